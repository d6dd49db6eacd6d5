// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | FileCheck %s --check-prefix=PLAIN
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="test-analysis-only" > %t.up0
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | diff - %t.up0
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="test-analysis-only allow-unknown-ops print-conflicts" > %t.up
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up2
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | FileCheck %s
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops print-conflicts})' | FileCheck %s --check-prefix=NOFB

// Ops that are not bufferizable are unknown ops exactly as upstream models
// them (operands read and written, aliasing every tensor result, results not
// writable). test-analysis-only annotates them with or without
// allow-unknown-ops, as upstream does; only the rewrite needs the option.

// An unknown op with a tensor result: each tensor operand is assumed written
// and aliasing the result, which is not writable, so every operand of
// test.foo and test.bar is copied. The fill between them writes the writable
// %A in place (test.foo's copy keeps the value test.bar reads); %A is
// accessed read-write. Without function boundaries %A is not writable (the
// fill is copied too) and func.return is an unknown op (its operand is
// copied); print-conflicts shows these as W_[NOT-WRITABLE] annotations.
// CHECK-LABEL: func @g
// CHECK-SAME: %arg0: tensor<8xf32> {bufferization.access = "read-write"}
// CHECK: "test.foo"(%arg0) {__inplace_operands_attr__ = ["false"]}
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "true"]} {{.*}} outs(%arg0
// CHECK: "test.bar"(%1, %0) {__inplace_operands_attr__ = ["false", "false"]}
// CHECK: return {__inplace_operands_attr__ = ["true"]}
// NOFB-LABEL: func @g
// NOFB-SAME: "W_{{[0-9]+}}[NOT-WRITABLE: bbArg 0]"
// NOFB: "test.foo"(%arg0) {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}__inplace_operands_attr__ = ["false"]}
// NOFB: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg0
// NOFB: "test.bar"(%1, %0) {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}__inplace_operands_attr__ = ["false", "false"]}
// NOFB: return {__inplace_operands_attr__ = ["false"]}
// Without allow-unknown-ops and without function boundaries (PLAIN): the
// same annotations as with the option (NOFB above).
// PLAIN-LABEL: func.func @g
//       PLAIN:   "test.foo"(%{{.*}}) {__inplace_operands_attr__ = ["false"]}
//       PLAIN:   linalg.fill {__inplace_operands_attr__ = ["none", "false"]}
//       PLAIN:   "test.bar"(%{{.*}}, %{{.*}}) {__inplace_operands_attr__ = ["false", "false"]}
func.func @g(%A: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %r = "test.foo"(%A) : (tensor<8xf32>) -> tensor<8xf32>
  %r2 = linalg.fill ins(%cst : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %r3 = "test.bar"(%r2, %r) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r3 : tensor<8xf32>
}
