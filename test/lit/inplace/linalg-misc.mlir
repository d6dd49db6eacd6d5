// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts allow-unknown-ops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts allow-unknown-ops})" | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets allow-unknown-ops})" | diff - %t.up2

// linalg.softmax (input read, output written but not read), and ops of
// bufferizable dialects that upstream does not bufferize (linalg.pack,
// linalg.unpack, tensor.bitcast): unknown ops, as upstream treats them.

func.func @sm(%t: tensor<4xf32>, %u: tensor<4xf32>, %i: index) -> (tensor<4xf32>, f32) {
  %b = linalg.softmax dimension(0) ins(%t : tensor<4xf32>) outs(%u : tensor<4xf32>) -> tensor<4xf32>
  %x = tensor.extract %u[%i] : tensor<4xf32>
  %c = linalg.softmax dimension(0) ins(%b : tensor<4xf32>) outs(%b : tensor<4xf32>) -> tensor<4xf32>
  return %c, %x : tensor<4xf32>, f32
}
// -----
func.func @pack(%t: tensor<8x8xf32>, %d: tensor<2x2x4x4xf32>, %u: tensor<8x8xf32>) -> (tensor<2x2x4x4xf32>, tensor<8x8xf32>) {
  %p = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  %q = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %u : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  %r = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %t : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  return %p, %q : tensor<2x2x4x4xf32>, tensor<8x8xf32>
}
// -----
func.func @bc(%t: tensor<4xi32>, %f: f32, %i: index) -> tensor<4xf32> {
  %b = tensor.bitcast %t : tensor<4xi32> to tensor<4xf32>
  %w = tensor.insert %f into %b[%i] : tensor<4xf32>
  return %w : tensor<4xf32>
}
