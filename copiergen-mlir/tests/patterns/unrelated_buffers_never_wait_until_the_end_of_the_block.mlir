// Accesses to buffers alias analysis proves distinct do not wait; the copy
// is complete before the function returns.
func.func @f(%src: memref<4096xf64>, %i: index) -> f64 {
  %dst = memref.alloc() : memref<4096xf64>
  %x = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %v = memref.load %src[%i] : memref<4096xf64>
  memref.store %v, %x[%i] : memref<4096xf64>
  %w = memref.load %x[%i] : memref<4096xf64>
  memref.dealloc %x : memref<4096xf64>
  memref.dealloc %dst : memref<4096xf64>
  return %w : f64
}
