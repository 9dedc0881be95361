// A tile is copied into a local buffer at the top of each iteration; the
// iteration's other work overlaps it and the wait is inside the loop body.
func.func @f(%a: memref<64x4096xf64>, %out: memref<64x4096xf64>) {
  %acc = memref.alloc() : memref<64xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %tile = memref.alloc() : memref<4096xf64>
  scf.for %i = %c0 to %c64 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 4096] [1, 1] : memref<64x4096xf64> to memref<4096xf64, strided<[1], offset: ?>>
    memref.copy %row, %tile : memref<4096xf64, strided<[1], offset: ?>> to memref<4096xf64>
    %z = arith.constant 0.0 : f64
    memref.store %z, %acc[%i] : memref<64xf64>
    %orow = memref.subview %out[%i, 0] [1, 4096] [1, 1] : memref<64x4096xf64> to memref<4096xf64, strided<[1], offset: ?>>
    linalg.copy ins(%tile : memref<4096xf64>) outs(%orow : memref<4096xf64, strided<[1], offset: ?>>)
  }
  memref.dealloc %tile : memref<4096xf64>
  return
}
