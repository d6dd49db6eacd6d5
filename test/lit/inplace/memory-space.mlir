// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries use-encoding-for-memory-space})' | FileCheck %s
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries use-encoding-for-memory-space" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries use-encoding-for-memory-space})' | diff - %t.up
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space})' 2>&1 | FileCheck %s --check-prefix=INFER
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{must-infer-memory-space})' 2>&1 | FileCheck %s --check-prefix=NOBOUNDARY
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{must-infer-memory-space use-encoding-for-memory-space})' 2>&1 | FileCheck %s --check-prefix=BOTH

// Memory-space options, as upstream's one-shot-bufferize has them: the
// tensor encoding becomes the buffer's memory space; with
// must-infer-memory-space a new buffer without a known space is an error;
// both together are rejected. At a function boundary, a tensor argument's
// memory space cannot be inferred: upstream's bufferization asserts there
// (MLIR 22.1.8), memplan reports it instead.

// BOTH: error: only one of 'must-infer-memory-space' and 'use-encoding-for-memory-space' are allowed in memplan-one-shot-bufferize

// A new buffer takes the memory space of its tensor's encoding.
// CHECK-LABEL: func.func @encoding_space
//  CHECK-SAME:   %{{.*}}: memref<8xf32, strided<[?], offset: ?>, 1>
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<8xf32, 1>
// INFER: :[[@LINE+3]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor argument #0 cannot be inferred at a function boundary
// NOBOUNDARY: :[[@LINE+4]]:8: error: could not infer memory space
// NOBOUNDARY: :[[@LINE+3]]:8: error: failed to bufferize op
func.func @encoding_space(%a: tensor<8xf32, 1 : i64>, %f: f32) -> tensor<8xf32, 1 : i64> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<8xf32, 1 : i64>
  %0 = tensor.insert %f into %e[%c0] : tensor<8xf32, 1 : i64>
  return %0 : tensor<8xf32, 1 : i64>
}

// -----

// An in-place write into an argument keeps the argument's space, and
// allocates nothing.
// CHECK-LABEL: func.func @in_place_argument
// INFER: :[[@LINE+2]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor argument #0
//   CHECK-NOT:   memref.alloc
func.func @in_place_argument(%a: tensor<8xf32, 2 : i64>, %f: f32) -> tensor<8xf32, 2 : i64> {
  %c0 = arith.constant 0 : index
  %0 = tensor.insert %f into %a[%c0] : tensor<8xf32, 2 : i64>
  return %0 : tensor<8xf32, 2 : i64>
}
