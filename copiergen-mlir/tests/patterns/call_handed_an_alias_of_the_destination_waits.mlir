// A subview of the destination passed to a call escapes: the buffer is not
// private, and the first call (handed nothing) waits too.
func.func private @log(f64)
func.func private @consume(memref<2048xf64, strided<[1]>>)
func.func @f(%i: index) {
  %src = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  %view = memref.subview %dst[0] [2048] [1] : memref<4096xf64> to memref<2048xf64, strided<[1]>>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %other = memref.alloc() : memref<4xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4xf64>
  call @log(%one) : (f64) -> ()
  call @consume(%view) : (memref<2048xf64, strided<[1]>>) -> ()
  return
}
