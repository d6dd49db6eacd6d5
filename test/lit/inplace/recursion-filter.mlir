// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" | diff - %t.up
// RUN: mlir-opt %s -one-shot-bufferize="test-analysis-only dialect-filter=tensor,bufferization dump-alias-sets" > %t.up2
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{test-analysis-only dialect-filter=tensor,bufferization dump-alias-sets})" | diff - %t.up2

// Module analysis with a recursive call graph: @even and @odd call each
// other, so (as upstream) their bodies are analyzed but their boundaries are
// not (calls into them stay conservative, no bufferization.access); @main is
// analyzed after them. The second pair restricts bufferization to two
// dialects (dialect-filter): every other op is an unknown op.

func.func @even(%t: tensor<8xf32>, %n: index, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %w = tensor.insert %f into %t[%c0] : tensor<8xf32>
  %r = func.call @odd(%w, %n, %f) : (tensor<8xf32>, index, f32) -> tensor<8xf32>
  %x = tensor.extract %w[%c0] : tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @odd(%t: tensor<8xf32>, %n: index, %f: f32) -> tensor<8xf32> {
  %r = func.call @even(%t, %n, %f) : (tensor<8xf32>, index, f32) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @main(%t: tensor<8xf32>, %n: index, %f: f32) -> tensor<8xf32> {
  %r = func.call @odd(%t, %n, %f) : (tensor<8xf32>, index, f32) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
