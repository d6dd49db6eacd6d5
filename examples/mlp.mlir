// A two-layer MLP on tensors: every intermediate becomes a heap buffer after
// bufferization. This is memplan's running example.
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
               %w2: tensor<128x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x128xf32>)
                     outs(%f1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %e2 = tensor.empty() : tensor<16x128xf32>
  %hb = linalg.generic {indexing_maps = [#map, #bias, #map],
                        iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<16x128xf32>, tensor<128xf32>) outs(%e2 : tensor<16x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x128xf32>
  %e3 = tensor.empty() : tensor<16x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%hb, %w2 : tensor<16x128xf32>, tensor<128x32xf32>)
                     outs(%f3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
