// RUN: not memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="test-analysis-only allow-unknown-ops print-conflicts" > %t.up
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up2

// Ops that are not bufferizable: without allow-unknown-ops memplan stops
// with an error naming the op and its location (it never guesses); with it,
// they are unknown ops exactly as upstream models them (operands read and
// written, aliasing every tensor result, results not writable).

// ERR: unknown-ops.mlir:[[@LINE+3]]:8: error: memplan-one-shot-bufferize: op 'test.foo' is not bufferizable; pass allow-unknown-ops
func.func @g(%A: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %r = "test.foo"(%A) : (tensor<8xf32>) -> tensor<8xf32>
  %r2 = linalg.fill ins(%cst : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %r3 = "test.bar"(%r2, %r) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r3 : tensor<8xf32>
}
