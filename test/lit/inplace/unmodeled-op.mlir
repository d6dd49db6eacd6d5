// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' 2>&1 | FileCheck %s
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' 2> %t.err | diff - %t.up
// RUN: FileCheck %s --check-prefix=REMARK < %t.err

// An op that upstream bufferizes but memplan does not model (shape.assuming,
// ShapeBufferizableOpInterface upstream): with test-analysis-only a located
// error (memplan never guesses a decision); in rewrite mode a remark, and
// upstream's own analysis bufferizes the module.

// CHECK: unmodeled-op.mlir:[[@LINE+4]]:8: error: memplan-one-shot-bufferize: memplan's in-place analysis does not model 'shape.assuming'
// REMARK: unmodeled-op.mlir:[[@LINE+3]]:8: remark: memplan-one-shot-bufferize: memplan's in-place analysis does not model 'shape.assuming'; falling back to upstream's analysis
func.func @f(%t: tensor<4xf32>, %f: f32, %i: index, %w: !shape.witness) -> (tensor<4xf32>, f32) {
  %e = bufferization.alloc_tensor() : tensor<4xf32>
  %r = shape.assuming %w -> (tensor<4xf32>) {
    %ins = tensor.insert %f into %e[%i] : tensor<4xf32>
    shape.assuming_yield %ins : tensor<4xf32>
  }
  %x = tensor.extract %r[%i] : tensor<4xf32>
  return %t, %x : tensor<4xf32>, f32
}
