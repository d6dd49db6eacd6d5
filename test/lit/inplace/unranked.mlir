// RUN: mlir-opt %s --split-input-file -one-shot-bufferize > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize)' 2>%t.err | diff - %t.up
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' 2>&1 | FileCheck %s --check-prefix=ERROR

// Unranked tensors are not modeled by memplan's analysis: with
// test-analysis-only that is a located error; otherwise upstream's analysis
// runs (with a remark) and the memref IR is upstream's.

// REMARK: unranked.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: memplan-one-shot-bufferize: unranked tensors are not modeled; falling back to upstream's analysis
// ERROR: unranked.mlir:[[@LINE+1]]:{{[0-9]+}}: error: memplan-one-shot-bufferize: unranked tensors are not modeled
func.func @cast_of_unranked_argument(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = tensor.cast %a : tensor<*xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @cast_to_unranked(%t: tensor<4xf32>) -> (tensor<*xf32>, tensor<4xf32>) {
  // REMARK: unranked.mlir:[[@LINE+2]]:8: remark: memplan-one-shot-bufferize: unranked tensors are not modeled
  // ERROR: unranked.mlir:[[@LINE+1]]:8: error: memplan-one-shot-bufferize: unranked tensors are not modeled
  %c = tensor.cast %t : tensor<4xf32> to tensor<*xf32>
  %f = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %w = tensor.insert %f into %t[%c0] : tensor<4xf32>
  return %c, %w : tensor<*xf32>, tensor<4xf32>
}
