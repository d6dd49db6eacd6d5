// RUN: not mlir-opt %s --allow-unregistered-dialect --split-input-file -one-shot-bufferize="copy-before-write" > %t.up 2>&1
// RUN: not memplan-opt %s --allow-unregistered-dialect --split-input-file -memplan-one-shot-bufferize="copy-before-write" 2>&1 | diff - %t.up
// RUN: not memplan-opt %s --allow-unregistered-dialect --split-input-file -memplan-one-shot-bufferize="copy-before-write" 2>&1 | FileCheck %s

// With copy-before-write no analysis runs and upstream's rewrite reports
// what it cannot bufferize; memplan passes its diagnostics on as they are,
// notes included (output and diagnostics are upstream's, byte for byte).

// An op that is not bufferizable: the error and upstream's note.
// CHECK: :[[@LINE+5]]:8: error: op was not bufferized
// CHECK-NEXT: "test.foo"
// CHECK: :[[@LINE+3]]:8: note: see current operation: %0 = "test.foo"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: error
func.func @unknown_op(%t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "test.foo"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An unknown op after another op: the note numbers values as upstream's does.
// CHECK: :[[@LINE+5]]:8: error: op was not bufferized
// CHECK: :[[@LINE+4]]:8: note: see current operation: %1 = "test.bar"
// CHECK-NOT: error
func.func @second_unknown_op(%t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = "test.bar"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
