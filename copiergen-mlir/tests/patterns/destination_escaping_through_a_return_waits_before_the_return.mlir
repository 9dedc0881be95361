// The caller may read a returned buffer: the wait is before the return.
func.func @f(%src: memref<4096xf64>, %i: index) -> memref<4096xf64> {
  %other = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  return %dst : memref<4096xf64>
}
