// RUN: memplan transients %s --func fixed | FileCheck %s

// A tensor-level function is bufferized first; its static size is a constant.
// CHECK: @fixed: 256 bytes of transient storage (constant)
#id = affine_map<(d0) -> (d0)>
func.func @fixed(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
