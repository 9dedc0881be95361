// C = A * B (256 x 256, f64), tiled over k: each 32-row panel of B is copied
// into a local buffer (64 KiB) one step ahead, double-buffered, so the copy
// of the next panel overlaps the multiply with the current one.
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 256 : index
  %kb = arith.constant 32 : index
  %kb2 = arith.constant 64 : index
  %last = arith.constant 224 : index
  %a = memref.alloc() : memref<256x256xf64>
  %b = memref.alloc() : memref<256x256xf64>
  %c = memref.alloc() : memref<256x256xf64>
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %s = arith.addi %i, %j : index
      %t = arith.muli %i, %j : index
      %c7 = arith.constant 7 : index
      %c5 = arith.constant 5 : index
      %ma = arith.remui %s, %c7 : index
      %mb = arith.remui %t, %c5 : index
      %ia = arith.index_cast %ma : index to i64
      %ib = arith.index_cast %mb : index to i64
      %fa = arith.sitofp %ia : i64 to f64
      %fb = arith.sitofp %ib : i64 to f64
      memref.store %fa, %a[%i, %j] : memref<256x256xf64>
      memref.store %fb, %b[%i, %j] : memref<256x256xf64>
      memref.store %zero, %c[%i, %j] : memref<256x256xf64>
    }
  }
  %buf0 = memref.alloc() : memref<32x256xf64>
  %buf1 = memref.alloc() : memref<32x256xf64>
  %p0 = memref.subview %b[0, 0] [32, 256] [1, 1] : memref<256x256xf64> to memref<32x256xf64, strided<[256, 1]>>
  memref.copy %p0, %buf0 : memref<32x256xf64, strided<[256, 1]>> to memref<32x256xf64>
  scf.for %k = %c0 to %n step %kb2 {
    // Panel k+32 into buf1 while panel k (buf0) is multiplied.
    %k1 = arith.addi %k, %kb : index
    %pn = memref.subview %b[%k1, 0] [32, 256] [1, 1] : memref<256x256xf64> to memref<32x256xf64, strided<[256, 1], offset: ?>>
    memref.copy %pn, %buf1 : memref<32x256xf64, strided<[256, 1], offset: ?>> to memref<32x256xf64>
    %a0 = memref.subview %a[0, %k] [256, 32] [1, 1] : memref<256x256xf64> to memref<256x32xf64, strided<[256, 1], offset: ?>>
    linalg.matmul ins(%a0, %buf0 : memref<256x32xf64, strided<[256, 1], offset: ?>>, memref<32x256xf64>) outs(%c : memref<256x256xf64>)
    // Panel k+64 (the last one again at the end) into buf0 while buf1 is used.
    %k2 = arith.addi %k, %kb2 : index
    %k2c = arith.minui %k2, %last : index
    %pm = memref.subview %b[%k2c, 0] [32, 256] [1, 1] : memref<256x256xf64> to memref<32x256xf64, strided<[256, 1], offset: ?>>
    memref.copy %pm, %buf0 : memref<32x256xf64, strided<[256, 1], offset: ?>> to memref<32x256xf64>
    %a1 = memref.subview %a[0, %k1] [256, 32] [1, 1] : memref<256x256xf64> to memref<256x32xf64, strided<[256, 1], offset: ?>>
    linalg.matmul ins(%a1, %buf1 : memref<256x32xf64, strided<[256, 1], offset: ?>>, memref<32x256xf64>) outs(%c : memref<256x256xf64>)
  }
  // Checksum: sum of C, and two entries.
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%x = %acc) -> (f64) {
      %v = memref.load %c[%i, %j] : memref<256x256xf64>
      %y = arith.addf %x, %v : f64
      scf.yield %y : f64
    }
    scf.yield %r : f64
  }
  %c17 = arith.constant 17 : index
  %c201 = arith.constant 201 : index
  %e1 = memref.load %c[%c17, %c201] : memref<256x256xf64>
  call @printF64(%sum) : (f64) -> ()
  call @printNewline() : () -> ()
  call @printF64(%e1) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %buf0 : memref<32x256xf64>
  memref.dealloc %buf1 : memref<32x256xf64>
  memref.dealloc %a : memref<256x256xf64>
  memref.dealloc %b : memref<256x256xf64>
  memref.dealloc %c : memref<256x256xf64>
  %ok = arith.constant 0 : i32
  return %ok : i32
}
