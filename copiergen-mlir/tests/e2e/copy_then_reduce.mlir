// Copy 8 MiB into a fresh buffer, then reduce it chunk by chunk: each chunk
// waits only for its own bytes (a wait per tile inside the loop).
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %chunk = arith.constant 8192 : index
  %src = memref.alloc() : memref<1048576xf64>
  scf.for %i = %c0 to %n step %c1 {
    %c7 = arith.constant 1021 : index
    %m = arith.remui %i, %c7 : index
    %mi = arith.index_cast %m : index to i64
    %f = arith.sitofp %mi : i64 to f64
    memref.store %f, %src[%i] : memref<1048576xf64>
  }
  %dst = memref.alloc() : memref<1048576xf64>
  memref.copy %src, %dst : memref<1048576xf64> to memref<1048576xf64>
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %c = %c0 to %n step %chunk iter_args(%acc = %zero) -> (f64) {
    %tile = memref.subview %dst[%c] [8192] [1] : memref<1048576xf64> to memref<8192xf64, strided<[1], offset: ?>>
    %s = scf.for %j = %c0 to %chunk step %c1 iter_args(%a = %acc) -> (f64) {
      %v = memref.load %tile[%j] : memref<8192xf64, strided<[1], offset: ?>>
      %w = arith.mulf %v, %v : f64
      %b = arith.addf %a, %w : f64
      scf.yield %b : f64
    }
    scf.yield %s : f64
  }
  call @printF64(%sum) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %src : memref<1048576xf64>
  memref.dealloc %dst : memref<1048576xf64>
  %ok = arith.constant 0 : i32
  return %ok : i32
}
