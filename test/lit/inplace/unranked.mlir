// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | FileCheck %s
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize > %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize)' | diff - %t.up2
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up3
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up3

// Unranked tensors, through the interfaces like any other tensor.

// A cast from an unranked tensor must bufferize in place (the cast's
// BufferizableOpInterface model says so); the return then copies.
// CHECK-LABEL: func.func @cast_of_unranked_argument
//       CHECK:   tensor.cast {{.*}} {__inplace_operands_attr__ = ["true"]}
//       CHECK:   return {__inplace_operands_attr__ = ["false"]}
func.func @cast_of_unranked_argument(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = tensor.cast %a : tensor<*xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// The unranked cast of %t is returned, so the later insert into %t would
// change what it returns: the insert is out of place, and so is the cast
// (a function argument is not writable without function boundaries).
// CHECK-LABEL: func.func @cast_to_unranked
//       CHECK:   tensor.cast {{.*}} {__inplace_operands_attr__ = ["false"]}
//       CHECK:   tensor.insert {{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
func.func @cast_to_unranked(%t: tensor<4xf32>) -> (tensor<*xf32>, tensor<4xf32>) {
  %c = tensor.cast %t : tensor<4xf32> to tensor<*xf32>
  %f = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %w = tensor.insert %f into %t[%c0] : tensor<4xf32>
  return %c, %w : tensor<*xf32>, tensor<4xf32>
}
