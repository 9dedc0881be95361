// A copy out of a column panel (row stride 4096, rows of 512 elements) is
// asynchronous; the lowering copies it row by row.
func.func @f(%a: memref<128x4096xf64>, %j: index) -> f64 {
  %other = memref.alloc() : memref<16xf64>
  %c0 = arith.constant 0 : index
  %panel = memref.subview %a[0, %j] [128, 512] [1, 1] : memref<128x4096xf64> to memref<128x512xf64, strided<[4096, 1], offset: ?>>
  %dst = memref.alloc() : memref<128x512xf64>
  memref.copy %panel, %dst : memref<128x512xf64, strided<[4096, 1], offset: ?>> to memref<128x512xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%c0] : memref<16xf64>
  %v = memref.load %dst[%c0, %c0] : memref<128x512xf64>
  memref.dealloc %dst : memref<128x512xf64>
  return %v : f64
}
