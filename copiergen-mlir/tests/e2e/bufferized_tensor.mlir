// A tensor program; `one-shot-bufferize` (run through --pass-pipeline)
// turns the out-of-place copy of %t into memref.alloc + memref.copy, which the
// pass makes asynchronous: the reduction of %u overlaps it, and the
// reduction of the copy waits per tile.
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %tile = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f64
  %t = tensor.generate {
  ^bb0(%i: index):
    %c9 = arith.constant 997 : index
    %m = arith.remui %i, %c9 : index
    %mi = arith.index_cast %m : index to i64
    %f = arith.sitofp %mi : i64 to f64
    tensor.yield %f : f64
  } : tensor<1048576xf64>
  %u = tensor.generate {
  ^bb0(%i: index):
    %c3 = arith.constant 3 : index
    %m = arith.remui %i, %c3 : index
    %mi = arith.index_cast %m : index to i64
    %f = arith.sitofp %mi : i64 to f64
    tensor.yield %f : f64
  } : tensor<1048576xf64>
  %copy = bufferization.alloc_tensor() copy(%t) : tensor<1048576xf64>
  %su = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = tensor.extract %u[%i] : tensor<1048576xf64>
    %w = arith.addf %acc, %v : f64
    scf.yield %w : f64
  }
  %sc = scf.for %c = %c0 to %n step %tile iter_args(%acc = %zero) -> (f64) {
    %part = tensor.extract_slice %copy[%c] [8192] [1] : tensor<1048576xf64> to tensor<8192xf64>
    %s = scf.for %j = %c0 to %tile step %c1 iter_args(%a = %acc) -> (f64) {
      %v = tensor.extract %part[%j] : tensor<8192xf64>
      %w = arith.mulf %v, %v : f64
      %b = arith.addf %a, %w : f64
      scf.yield %b : f64
    }
    scf.yield %s : f64
  }
  call @printF64(%su) : (f64) -> ()
  call @printNewline() : () -> ()
  call @printF64(%sc) : (f64) -> ()
  call @printNewline() : () -> ()
  %ok = arith.constant 0 : i32
  return %ok : i32
}
