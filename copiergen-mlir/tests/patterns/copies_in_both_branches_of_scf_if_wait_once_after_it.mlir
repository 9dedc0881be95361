// Each branch copies and works; both copies stay pending past the scf.if
// (every path out of a branch goes on after it), where one range wait on the
// destination covers whichever branch ran.
func.func @f(%cond: i1, %src: memref<4096xf64>, %dst: memref<4096xf64>, %i: index) {
  %other = memref.alloc() : memref<4096xf64>
  %one = arith.constant 1.0 : f64
  scf.if %cond {
    memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
    memref.store %one, %other[%i] : memref<4096xf64>
  } else {
    memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
    %two = arith.constant 2.0 : f64
    memref.store %two, %other[%i] : memref<4096xf64>
  }
  return
}
