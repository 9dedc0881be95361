// linalg.copy and a linalg.generic that only yields its input are copies;
// a generic that computes is not.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: memref<64x64xf64>, %b: memref<64x64xf64>, %c: memref<64x64xf64>, %d: memref<64x64xf64>, %i: index) -> f64 {
  %other = memref.alloc() : memref<4xf64>
  %one = arith.constant 1.0 : f64
  linalg.copy ins(%a : memref<64x64xf64>) outs(%b : memref<64x64xf64>)
  memref.store %one, %other[%i] : memref<4xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf64>) outs(%c : memref<64x64xf64>) {
  ^bb0(%x: f64, %y: f64):
    linalg.yield %x : f64
  }
  memref.store %one, %other[%i] : memref<4xf64>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf64>) outs(%d : memref<64x64xf64>) {
  ^bb0(%x: f64, %y: f64):
    %z = arith.addf %x, %y : f64
    linalg.yield %z : f64
  }
  %v = memref.load %b[%i, %i] : memref<64x64xf64>
  %w = memref.load %c[%i, %i] : memref<64x64xf64>
  %r = arith.addf %v, %w : f64
  return %r : f64
}
