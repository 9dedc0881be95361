// A loop that indexes the destination itself (no per-iteration view) gets
// one wait before it.
func.func @f(%src: memref<4096xf64>) -> f64 {
  %other = memref.alloc() : memref<4096xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4096 : index
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%c0] : memref<4096xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f64) {
    %v = memref.load %dst[%i] : memref<4096xf64>
    %b = arith.addf %a, %v : f64
    scf.yield %b : f64
  }
  memref.dealloc %dst : memref<4096xf64>
  return %s : f64
}
