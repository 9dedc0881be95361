// A copy out of another copy's destination is a read: the first copy's wait
// goes before the second copy, which is asynchronous itself.
func.func @f(%src: memref<4096xf64>, %i: index) -> f64 {
  %other = memref.alloc() : memref<4096xf64>
  %mid = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %mid : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  memref.copy %mid, %dst : memref<4096xf64> to memref<4096xf64>
  memref.store %one, %other[%i] : memref<4096xf64>
  %v = memref.load %dst[%i] : memref<4096xf64>
  return %v : f64
}
