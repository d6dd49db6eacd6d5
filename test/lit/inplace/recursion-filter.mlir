// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" | diff - %t.up
// RUN: mlir-opt %s -one-shot-bufferize="test-analysis-only dialect-filter=tensor,bufferization dump-alias-sets" > %t.up2
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{test-analysis-only dialect-filter=tensor,bufferization dump-alias-sets})" | diff - %t.up2
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" | FileCheck %s
// RUN: memplan-opt %s --pass-pipeline="builtin.module(memplan-one-shot-bufferize{test-analysis-only dialect-filter=tensor,bufferization})" | FileCheck %s --check-prefix=FILTER

// Module analysis with a recursive call graph: @even and @odd call each
// other, so (as upstream) their bodies are analyzed but their boundaries are
// not (calls into them stay conservative, no bufferization.access); @main is
// analyzed after them. The second pair restricts bufferization to two
// dialects (dialect-filter): every other op is an unknown op.

// @even and @odd form a call cycle: their boundaries are not analyzed, and
// (as upstream) no function of this module gets bufferization.access or
// __equivalent_func_args__; a call into the cycle is assumed to read and
// write its tensor operand. In @even that
// operand %w is read after the call: the call's operand is copied (the
// insert before it stays in place). The other calls pass values nobody reads
// afterwards: in place.
// With dialect-filter=tensor,bufferization, func.call and func.return are
// unknown ops and %t is not writable (no function boundaries): every tensor
// operand is copied except the extract's read.
// CHECK-LABEL: func @even
// CHECK-NOT: bufferization.access
// CHECK: tensor.insert {{.*}} into %arg0{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: call @odd(%inserted, {{.*}} {__inplace_operands_attr__ = ["false", "none", "none"]}
// CHECK: return {__inplace_operands_attr__ = ["true"]}
// CHECK-LABEL: func @odd
// CHECK-NOT: bufferization.access
// CHECK: call @even(%arg0, {{.*}} {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK: return {__inplace_operands_attr__ = ["true"]}
// CHECK-LABEL: func @main
// CHECK-NOT: bufferization.access
// CHECK: call @odd(%arg0, {{.*}} {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK-NOT: __equivalent_func_args__
// CHECK: return {__inplace_operands_attr__ = ["true"]}
// FILTER-LABEL: func @even
// FILTER: tensor.insert {{.*}} into %arg0{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
// FILTER: call @odd(%inserted, {{.*}} {__inplace_operands_attr__ = ["false", "none", "none"]}
// FILTER: tensor.extract %inserted{{.*}} {__inplace_operands_attr__ = ["true", "none"]}
// FILTER: return {__inplace_operands_attr__ = ["false"]}
// FILTER-LABEL: func @odd
// FILTER: call @even(%arg0, {{.*}} {__inplace_operands_attr__ = ["false", "none", "none"]}
// FILTER-LABEL: func @main
// FILTER: call @odd(%arg0, {{.*}} {__inplace_operands_attr__ = ["false", "none", "none"]}
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
