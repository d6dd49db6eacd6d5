// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries" > %t.up2
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up2

// shape.assuming: an op memplan's old op-name tables never listed. Its
// BufferizableOpInterface model (upstream's shape dialect) makes the region
// result alias the yielded value; the insert into the fresh allocation is in
// place, and the read after the region sees the inserted value.

// CHECK-LABEL: func.func @f
//       CHECK:   shape.assuming
//       CHECK:     tensor.insert {{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
//       CHECK:     shape.assuming_yield {__inplace_operands_attr__ = ["true"]}
func.func @f(%t: tensor<4xf32>, %f: f32, %i: index, %w: !shape.witness) -> (tensor<4xf32>, f32) {
  %e = bufferization.alloc_tensor() : tensor<4xf32>
  %r = shape.assuming %w -> (tensor<4xf32>) {
    %ins = tensor.insert %f into %e[%i] : tensor<4xf32>
    shape.assuming_yield %ins : tensor<4xf32>
  }
  %x = tensor.extract %r[%i] : tensor<4xf32>
  return %t, %x : tensor<4xf32>, f32
}
