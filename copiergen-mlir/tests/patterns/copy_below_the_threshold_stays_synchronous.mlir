// 8 KiB: below the 16 KiB threshold, a synchronous copy is cheaper.
func.func @f(%src: memref<1024xf64>, %dst: memref<1024xf64>, %i: index) {
  %other = memref.alloc() : memref<4xf64>
  memref.copy %src, %dst : memref<1024xf64> to memref<1024xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4xf64>
  return
}
