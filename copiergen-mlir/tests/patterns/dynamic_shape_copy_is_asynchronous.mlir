// The size is known only at run time: asynchronous (libcopier runs short
// copies inline itself).
func.func @f(%src: memref<?x?xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %src, %c0 : memref<?x?xf32>
  %n = memref.dim %src, %c1 : memref<?x?xf32>
  %other = memref.alloc(%m) : memref<?xf32>
  %dst = memref.alloc(%m, %n) : memref<?x?xf32>
  memref.copy %src, %dst : memref<?x?xf32> to memref<?x?xf32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %other[%i] : memref<?xf32>
  %v = memref.load %dst[%i, %i] : memref<?x?xf32>
  memref.dealloc %dst : memref<?x?xf32>
  return %v : f32
}
