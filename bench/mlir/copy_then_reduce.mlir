// Benchmark: copy 8 MiB into a fresh buffer, then reduce it tile by tile
// (the e2e program's kernel), REPS times; prints the checksum and the
// kernel's total seconds (rtclock).
func.func private @printF64(f64)
func.func private @printNewline()
func.func private @rtclock() -> f64

func.func @kernel(%src: memref<1048576xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %chunk = arith.constant 8192 : index
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
  memref.dealloc %dst : memref<1048576xf64>
  return %sum : f64
}

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1048576 : index
  %reps = arith.constant 200 : index
  %src = memref.alloc() : memref<1048576xf64>
  scf.for %i = %c0 to %n step %c1 {
    %c7 = arith.constant 1021 : index
    %m = arith.remui %i, %c7 : index
    %mi = arith.index_cast %m : index to i64
    %f = arith.sitofp %mi : i64 to f64
    memref.store %f, %src[%i] : memref<1048576xf64>
  }
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.for %k = %c0 to %reps step %c1 iter_args(%t = %zero, %chk = %zero) -> (f64, f64) {
    %t0 = func.call @rtclock() : () -> f64
    %s = func.call @kernel(%src) : (memref<1048576xf64>) -> f64
    %t1 = func.call @rtclock() : () -> f64
    %d = arith.subf %t1, %t0 : f64
    %t2 = arith.addf %t, %d : f64
    %c2 = arith.addf %chk, %s : f64
    scf.yield %t2, %c2 : f64, f64
  }
  call @printF64(%r#1) : (f64) -> ()
  call @printNewline() : () -> ()
  call @printF64(%r#0) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %src : memref<1048576xf64>
  %ok = arith.constant 0 : i32
  return %ok : i32
}
