// A four-layer MLP with a residual connection, on tensors. After
// bufferization each layer's output is a heap buffer; with
// memplan-memory-pipeline they share one pool:
//   memplan-opt examples/resmlp.mlir --pass-pipeline='builtin.module(memplan-memory-pipeline)'
//   memplan report examples/resmlp.mlir --bufferize --plot resmlp.png
func.func @resmlp(%x: tensor<32x256xf32>, %w: tensor<256x256xf32>) -> tensor<32x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h1 = linalg.matmul ins(%x, %w : tensor<32x256xf32>, tensor<256x256xf32>) outs(%f1 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e2 = tensor.empty() : tensor<32x256xf32>
  %a1 = linalg.exp ins(%h1 : tensor<32x256xf32>) outs(%e2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e3 = tensor.empty() : tensor<32x256xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h2 = linalg.matmul ins(%a1, %w : tensor<32x256xf32>, tensor<256x256xf32>) outs(%f3 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e4 = tensor.empty() : tensor<32x256xf32>
  %a2 = linalg.negf ins(%h2 : tensor<32x256xf32>) outs(%e4 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e5 = tensor.empty() : tensor<32x256xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h3 = linalg.matmul ins(%a2, %w : tensor<32x256xf32>, tensor<256x256xf32>) outs(%f5 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e6 = tensor.empty() : tensor<32x256xf32>
  %res = linalg.add ins(%h3, %a1 : tensor<32x256xf32>, tensor<32x256xf32>) outs(%e6 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e7 = tensor.empty() : tensor<32x256xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %h4 = linalg.matmul ins(%res, %w : tensor<32x256xf32>, tensor<256x256xf32>) outs(%f7 : tensor<32x256xf32>) -> tensor<32x256xf32>
  %e8 = tensor.empty() : tensor<32x256xf32>
  %y = linalg.negf ins(%h4 : tensor<32x256xf32>) outs(%e8 : tensor<32x256xf32>) -> tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}
