// Both buffers are private allocations whose aliases never escape: a call
// that is not handed one of them cannot touch them, so the wait moves past
// it; the call that is handed the destination waits.
func.func private @log(f64)
func.func private @consume(memref<4096xf64>)
func.func @f(%i: index) -> f64 {
  %src = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  %view = memref.subview %dst[0] [2048] [1] : memref<4096xf64> to memref<2048xf64, strided<[1]>>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  call @log(%one) : (f64) -> ()
  %v = memref.load %view[%i] : memref<2048xf64, strided<[1]>>
  call @log(%v) : (f64) -> ()
  memref.dealloc %src : memref<4096xf64>
  memref.dealloc %dst : memref<4096xf64>
  return %v : f64
}
