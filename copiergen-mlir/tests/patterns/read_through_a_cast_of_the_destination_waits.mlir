// Alias analysis follows memref.cast: a read through the cast conflicts.
func.func @f(%src: memref<4096xf64>, %i: index) -> f64 {
  %other = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  %dyn = memref.cast %dst : memref<4096xf64> to memref<?xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  %v = memref.load %dyn[%i] : memref<?xf64>
  memref.dealloc %dst : memref<4096xf64>
  return %v : f64
}
