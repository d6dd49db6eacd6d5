// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | FileCheck %s
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="test-analysis-only" > %t.up0
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | diff - %t.up0
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="test-analysis-only allow-unknown-ops print-conflicts" > %t.up
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up2

// Ops that are not bufferizable are unknown ops exactly as upstream models
// them (operands read and written, aliasing every tensor result, results not
// writable). test-analysis-only annotates them with or without
// allow-unknown-ops, as upstream does; only the rewrite needs the option.

// The fill writes %A, which the unknown op may still read through its
// result: the write is out of place; nothing written by an unknown op (or
// aliasing one) can be in place.
// CHECK-LABEL: func.func @g
//       CHECK:   "test.foo"(%{{.*}}) {__inplace_operands_attr__ = ["false"]}
//       CHECK:   linalg.fill {__inplace_operands_attr__ = ["none", "false"]}
//       CHECK:   "test.bar"(%{{.*}}, %{{.*}}) {__inplace_operands_attr__ = ["false", "false"]}
func.func @g(%A: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %r = "test.foo"(%A) : (tensor<8xf32>) -> tensor<8xf32>
  %r2 = linalg.fill ins(%cst : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %r3 = "test.bar"(%r2, %r) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r3 : tensor<8xf32>
}
