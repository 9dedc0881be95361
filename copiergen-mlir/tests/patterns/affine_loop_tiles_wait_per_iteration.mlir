// The same per-tile wait inside an affine.for.
func.func @f(%src: memref<64x1024xf32>, %out: memref<64xf32>) {
  %dst = memref.alloc() : memref<64x1024xf32>
  memref.copy %src, %dst : memref<64x1024xf32> to memref<64x1024xf32>
  affine.for %i = 0 to 64 {
    %row = memref.subview %dst[%i, 0] [1, 1024] [1, 1] : memref<64x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    %z = arith.constant 0.0 : f32
    %s = affine.for %j = 0 to 1024 iter_args(%a = %z) -> (f32) {
      %v = affine.load %row[%j] : memref<1024xf32, strided<[1], offset: ?>>
      %b = arith.addf %a, %v : f32
      affine.yield %b : f32
    }
    affine.store %s, %out[%i] : memref<64xf32>
  }
  memref.dealloc %dst : memref<64x1024xf32>
  return
}
