// Copies in both branches of an scf.if (inside a loop, so both run): the
// range wait after the scf.if covers whichever branch copied, and work on
// another buffer overlaps the copy.
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 262144 : index
  %src = memref.alloc() : memref<262144xf64>
  %alt = memref.alloc() : memref<262144xf64>
  %dst = memref.alloc() : memref<262144xf64>
  %side = memref.alloc() : memref<262144xf64>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %two = arith.constant 2.0 : f64
    %g = arith.mulf %f, %two : f64
    memref.store %f, %src[%i] : memref<262144xf64>
    memref.store %g, %alt[%i] : memref<262144xf64>
  }
  %zero = arith.constant 0.0 : f64
  %total = scf.for %r = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %m = arith.remui %r, %c2 : index
    %even = arith.cmpi eq, %m, %c0 : index
    scf.if %even {
      memref.copy %src, %dst : memref<262144xf64> to memref<262144xf64>
    } else {
      memref.copy %alt, %dst : memref<262144xf64> to memref<262144xf64>
    }
    scf.for %i = %c0 to %n step %c1 {
      %ri = arith.index_cast %r : index to i64
      %rf = arith.sitofp %ri : i64 to f64
      memref.store %rf, %side[%i] : memref<262144xf64>
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %acc) -> (f64) {
      %v = memref.load %dst[%i] : memref<262144xf64>
      %w = memref.load %side[%i] : memref<262144xf64>
      %x = arith.addf %v, %w : f64
      %b = arith.addf %a, %x : f64
      scf.yield %b : f64
    }
    scf.yield %s : f64
  }
  call @printF64(%total) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %src : memref<262144xf64>
  memref.dealloc %alt : memref<262144xf64>
  memref.dealloc %dst : memref<262144xf64>
  memref.dealloc %side : memref<262144xf64>
  %ok = arith.constant 0 : i32
  return %ok : i32
}
