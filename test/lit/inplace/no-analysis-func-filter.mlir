// RUN: mlir-opt %s --split-input-file -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts no-analysis-func-filter=skipped,ext" > %t.up
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts no-analysis-func-filter=skipped,ext})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only dump-alias-sets analysis-heuristic=bottom-up-from-terminators no-analysis-func-filter=skipped,ext" > %t.up
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only dump-alias-sets analysis-heuristic=bottom-up-from-terminators no-analysis-func-filter=skipped,ext})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts no-analysis-func-filter=skipped,ext})' | FileCheck %s

// no-analysis-func-filter: upstream denies every op of the named functions
// (the function op itself and all ops nested in it): they are not analyzed
// and get no annotations at all -- no __inplace_operands_attr__, no
// bufferization.access, no __equivalent_func_args__, and nothing is checked
// in them (an unregistered op without allow-unknown-ops is fine). A call into
// a skipped function stays conservative: its tensor operands are read and
// written and may alias every tensor result, even when the callee declares
// bufferization.access. Skipped functions keep their place in the call
// order; the other functions are analyzed as usual.

// CHECK-LABEL: func @callee(
// CHECK-SAME: bufferization.access = "read-write"
func.func @callee(%t: tensor<4xf32>, %f: f32, %i: index) -> tensor<4xf32> {
  %w = tensor.insert %f into %t[%i] : tensor<4xf32>
  // CHECK: return
  // CHECK-SAME: __equivalent_func_args__ = [0]
  return %w : tensor<4xf32>
}

// CHECK-LABEL: func @skipped(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {bufferization.access = "read"},
// CHECK-NOT: __inplace_operands_attr__
// CHECK-NOT: __equivalent_func_args__
// CHECK: return
func.func @skipped(%t: tensor<4xf32> {bufferization.access = "read"}, %f: f32, %i: index) -> (tensor<4xf32>, f32) {
  %w = tensor.insert %f into %t[%i] : tensor<4xf32>
  %x = tensor.extract %t[%i] : tensor<4xf32>
  %u = "test.unknown"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %r = call @callee(%u, %f, %i) : (tensor<4xf32>, f32, index) -> tensor<4xf32>
  return %r, %x : tensor<4xf32>, f32
}

// CHECK-LABEL: func @caller(
// CHECK-SAME: bufferization.access = "read"
func.func @caller(%t: tensor<4xf32>, %f: f32, %i: index) -> (tensor<4xf32>, f32) {
  // CHECK: call @skipped
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 0]"
  // CHECK-SAME: __inplace_operands_attr__ = ["false", "none", "none"]
  %r, %x = call @skipped(%t, %f, %i) : (tensor<4xf32>, f32, index) -> (tensor<4xf32>, f32)
  // CHECK: tensor.extract
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  %y = tensor.extract %t[%i] : tensor<4xf32>
  return %r, %y : tensor<4xf32>, f32
}
// -----
// A skipped declaration: not annotated; calls into it are conservative, as
// into any declaration.
// CHECK-LABEL: func private @ext(tensor<4xf32>) -> tensor<4xf32>
func.func private @ext(%t: tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: func @calls_ext(
func.func @calls_ext(%t: tensor<4xf32>, %i: index) -> (tensor<4xf32>, f32) {
  // CHECK: call @ext
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %r = call @ext(%t) : (tensor<4xf32>) -> tensor<4xf32>
  %x = tensor.extract %t[%i] : tensor<4xf32>
  return %r, %x : tensor<4xf32>, f32
}
// -----
// A skipped function whose result is an argument: the call in @fwd_caller
// does not learn the equivalence, so its result is not equivalent to %t.
// CHECK-LABEL: func @skipped(
func.func @skipped(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}

// CHECK-LABEL: func @fwd_caller(
func.func @fwd_caller(%t: tensor<4xf32>, %f: f32, %i: index) -> tensor<4xf32> {
  %r = call @skipped(%t) : (tensor<4xf32>) -> tensor<4xf32>
  %w = tensor.insert %f into %r[%i] : tensor<4xf32>
  // CHECK: return
  // CHECK-NOT: __equivalent_func_args__
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  return %w : tensor<4xf32>
}
