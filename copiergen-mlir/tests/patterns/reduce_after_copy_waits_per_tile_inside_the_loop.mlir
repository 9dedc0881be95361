// The loop reads the destination one subview per iteration: each iteration
// waits for its own tile; a full wait follows the loop.
func.func @f(%src: memref<65536xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  %t = arith.constant 4096 : index
  %dst = memref.alloc() : memref<65536xf64>
  memref.copy %src, %dst : memref<65536xf64> to memref<65536xf64>
  %zero = arith.constant 0.0 : f64
  %sum = scf.for %c = %c0 to %n step %t iter_args(%acc = %zero) -> (f64) {
    %tile = memref.subview %dst[%c] [4096] [1] : memref<65536xf64> to memref<4096xf64, strided<[1], offset: ?>>
    %s = scf.for %j = %c0 to %t step %c1 iter_args(%a = %acc) -> (f64) {
      %v = memref.load %tile[%j] : memref<4096xf64, strided<[1], offset: ?>>
      %b = arith.addf %a, %v : f64
      scf.yield %b : f64
    }
    scf.yield %s : f64
  }
  memref.dealloc %dst : memref<65536xf64>
  return %sum : f64
}
