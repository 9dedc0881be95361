// Reading the source is harmless; writing it must wait for the copy.
func.func @f(%dst: memref<4096xf64>, %i: index) -> f64 {
  %src = memref.alloc() : memref<4096xf64>
  %other = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %r = memref.load %src[%i] : memref<4096xf64>
  memref.store %r, %other[%i] : memref<4096xf64>
  memref.store %r, %src[%i] : memref<4096xf64>
  memref.dealloc %other : memref<4096xf64>
  memref.dealloc %src : memref<4096xf64>
  return %r : f64
}
