// No byte to copy: nothing to make asynchronous.
func.func @f(%src: memref<0x4096xf64>, %dst: memref<0x4096xf64>, %i: index) {
  %other = memref.alloc() : memref<4xf64>
  memref.copy %src, %dst : memref<0x4096xf64> to memref<0x4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4xf64>
  return
}
