// Once the address leaves the memref type system nothing follows it: wait.
func.func @f(%src: memref<4096xf64>, %i: index) -> index {
  %other = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  %p = memref.extract_aligned_pointer_as_index %dst : memref<4096xf64> -> index
  return %p : index
}
