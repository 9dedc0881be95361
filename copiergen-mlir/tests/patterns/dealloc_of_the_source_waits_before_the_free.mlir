// Freeing the source is a conflict (MemoryEffects::Free).
func.func @f(%dst: memref<4096xf64>, %i: index) {
  %other = memref.alloc() : memref<4096xf64>
  %src = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  memref.dealloc %src : memref<4096xf64>
  return
}
