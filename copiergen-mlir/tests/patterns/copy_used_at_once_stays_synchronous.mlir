// The next operation reads the destination: nothing would overlap the copy.
func.func @f(%src: memref<4096xf64>, %i: index) -> f64 {
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %v = memref.load %dst[%i] : memref<4096xf64>
  memref.dealloc %dst : memref<4096xf64>
  return %v : f64
}
