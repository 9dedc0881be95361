// Only one branch copies; the other path has nothing pending. The wait
// after the scf.if (a range wait: the token stays in its branch) is on both
// paths and returns at once on the one that did not copy.
func.func @f(%cond: i1, %src: memref<4096xf64>, %i: index) -> f64 {
  %dst = memref.alloc() : memref<4096xf64>
  %other = memref.alloc() : memref<4096xf64>
  %one = arith.constant 1.0 : f64
  scf.if %cond {
    memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  } else {
    memref.store %one, %dst[%i] : memref<4096xf64>
  }
  memref.store %one, %other[%i] : memref<4096xf64>
  %v = memref.load %dst[%i] : memref<4096xf64>
  return %v : f64
}
