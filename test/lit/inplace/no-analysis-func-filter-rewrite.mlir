// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries no-analysis-func-filter=skipped" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries no-analysis-func-filter=skipped})' | diff - %t.up
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries no-analysis-func-filter=skipped function-boundary-type-conversion=identity-layout-map" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries no-analysis-func-filter=skipped function-boundary-type-conversion=identity-layout-map})' | diff - %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries no-analysis-func-filter=skipped})' | FileCheck %s

// Rewrite mode with no-analysis-func-filter: memplan's copies in the analyzed
// functions, then upstream's rewrite, which bufferizes the skipped function
// with a copy before every write. Identical memref IR.

// CHECK-LABEL: func @skipped(
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK: memref.store
func.func @skipped(%t: tensor<4xf32>, %f: f32, %i: index) -> (tensor<4xf32>, f32) {
  %w = tensor.insert %f into %t[%i] : tensor<4xf32>
  %x = tensor.extract %t[%i] : tensor<4xf32>
  return %w, %x : tensor<4xf32>, f32
}

// CHECK-LABEL: func @caller(
// CHECK: call @skipped
func.func @caller(%t: tensor<4xf32>, %f: f32, %i: index) -> (tensor<4xf32>, f32) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%f : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r, %x = call @skipped(%a, %f, %i) : (tensor<4xf32>, f32, index) -> (tensor<4xf32>, f32)
  %y = tensor.extract %a[%i] : tensor<4xf32>
  %w = tensor.insert %y into %t[%i] : tensor<4xf32>
  return %r, %x : tensor<4xf32>, f32
}
