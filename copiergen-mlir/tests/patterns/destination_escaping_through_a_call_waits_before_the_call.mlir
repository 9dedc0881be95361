// A call may read anything it is given (no memory-effect interface): the
// copy is complete before it.
func.func private @consume(memref<4096xf64>)
func.func @f(%src: memref<4096xf64>, %i: index) {
  %other = memref.alloc() : memref<4096xf64>
  %dst = memref.alloc() : memref<4096xf64>
  memref.copy %src, %dst : memref<4096xf64> to memref<4096xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %other[%i] : memref<4096xf64>
  call @consume(%dst) : (memref<4096xf64>) -> ()
  return
}
