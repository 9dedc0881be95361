// Copy between subviews; the wait names the destination subview, and a read
// of the parent buffer (which contains it) conflicts.
func.func @f(%a: memref<64x1024xf64>, %b: memref<64x1024xf64>) -> f64 {
  %other = memref.alloc() : memref<16xf64>
  %c0 = arith.constant 0 : index
  %sa = memref.subview %a[8, 0] [16, 1024] [1, 1] : memref<64x1024xf64> to memref<16x1024xf64, strided<[1024, 1], offset: 8192>>
  %sb = memref.subview %b[32, 0] [16, 1024] [1, 1] : memref<64x1024xf64> to memref<16x1024xf64, strided<[1024, 1], offset: 32768>>
  memref.copy %sa, %sb : memref<16x1024xf64, strided<[1024, 1], offset: 8192>> to memref<16x1024xf64, strided<[1024, 1], offset: 32768>>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%c0] : memref<16xf64>
  %c40 = arith.constant 40 : index
  %v = memref.load %b[%c40, %c0] : memref<64x1024xf64>
  return %v : f64
}
