// Strided copies: a column panel (128 rows of 32 KiB out of rows of 64 KiB)
// is copied row by row (one amemcpy per row); a copy with an innermost
// stride of 2 falls back to a synchronous memref.copy in the lowering.
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 128 : index
  %cols = arith.constant 8192 : index
  %w = arith.constant 4096 : index
  %m = memref.alloc() : memref<128x8192xf64>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %s = arith.muli %i, %cols : index
      %t = arith.addi %s, %j : index
      %c13 = arith.constant 8191 : index
      %u = arith.remui %t, %c13 : index
      %ui = arith.index_cast %u : index to i64
      %f = arith.sitofp %ui : i64 to f64
      memref.store %f, %m[%i, %j] : memref<128x8192xf64>
    }
  }
  %evens = memref.subview %m[0, 0] [128, 4096] [1, 2] : memref<128x8192xf64> to memref<128x4096xf64, strided<[8192, 2]>>
  %local2 = memref.alloc() : memref<128x4096xf64>
  memref.copy %evens, %local2 : memref<128x4096xf64, strided<[8192, 2]>> to memref<128x4096xf64>
  %panel = memref.subview %m[0, 2048] [128, 4096] [1, 1] : memref<128x8192xf64> to memref<128x4096xf64, strided<[8192, 1], offset: 2048>>
  %local = memref.alloc() : memref<128x4096xf64>
  memref.copy %panel, %local : memref<128x4096xf64, strided<[8192, 1], offset: 2048>> to memref<128x4096xf64>
  // Independent work while both copies are pending.
  %tmp = memref.alloc() : memref<8192xf64>
  scf.for %j = %c0 to %cols step %c1 {
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f64
    memref.store %jf, %tmp[%j] : memref<8192xf64>
  }
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (f64) {
    %r = scf.for %j = %c0 to %w step %c1 iter_args(%a = %acc) -> (f64) {
      %v = memref.load %local[%i, %j] : memref<128x4096xf64>
      %v2 = memref.load %local2[%i, %j] : memref<128x4096xf64>
      %x = arith.mulf %v, %v2 : f64
      %b = arith.addf %a, %x : f64
      scf.yield %b : f64
    }
    scf.yield %r : f64
  }
  call @printF64(%sum) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %tmp : memref<8192xf64>
  memref.dealloc %local : memref<128x4096xf64>
  memref.dealloc %local2 : memref<128x4096xf64>
  memref.dealloc %m : memref<128x8192xf64>
  %ok = arith.constant 0 : i32
  return %ok : i32
}
