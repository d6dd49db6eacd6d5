// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space})' 2>&1 | FileCheck %s --check-prefix=INFER
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries use-encoding-for-memory-space})' 2>&1 | FileCheck %s --check-prefix=ENCODING
// RUN: not mlir-opt %s --split-input-file --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space dialect-filter=tensor,bufferization})' > %t.up 2>&1
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space dialect-filter=tensor,bufferization})' 2>&1 | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space test-analysis-only})' > %t.analysis
// RUN: FileCheck %s --check-prefix=ANALYSIS < %t.analysis
// RUN: mlir-opt %s --split-input-file --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries must-infer-memory-space test-analysis-only})' | diff - %t.analysis

// Function boundaries whose memory space upstream cannot pick. With function
// boundaries, upstream's bufferization gives every tensor argument and
// result of every func.func (declarations included) its default memory
// space, and asserts where there is none (MLIR 22.1.8): for any tensor with
// must-infer-memory-space, for an unranked one with
// use-encoding-for-memory-space. memplan reports a located error instead.
// A dialect filter without `func` leaves functions alone, and the analysis
// alone does not ask: both run as upstream does (the filtered run's output
// and diagnostics are upstream's, and the analysis's annotations are
// upstream's too).

// A returned tensor, even one with a memory space of its own.
// INFER: :[[@LINE+4]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor result #0 cannot be inferred at a function boundary (upstream one-shot-bufferize asserts here)
// ENCODING-NOT: @returned
// ANALYSIS-LABEL: func.func @returned() -> tensor<4xf32>
//       ANALYSIS:   return {__inplace_operands_attr__ = ["true"]}
func.func @returned() -> tensor<4xf32> {
  %0 = bufferization.alloc_tensor() {memory_space = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The tensor result of a call to an external function: the declaration is
// bufferized too.
// INFER: :[[@LINE+2]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor result #0 cannot be inferred at a function boundary
// ANALYSIS-LABEL: func.func private @external() -> tensor<4xf32>
func.func private @external() -> tensor<4xf32>
// INFER-NOT: error
// ANALYSIS-LABEL: func.func @call_external
//       ANALYSIS:   tensor.extract {{.*}} {__inplace_operands_attr__ = ["true", "none"]}
func.func @call_external() -> f32 {
  %c0 = arith.constant 0 : index
  %0 = call @external() : () -> tensor<4xf32>
  %1 = tensor.extract %0[%c0] : tensor<4xf32>
  return %1 : f32
}

// -----

// An unranked tensor has no encoding: use-encoding-for-memory-space cannot
// give it a space either (result or argument).
// INFER: :[[@LINE+3]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor result #0 cannot be inferred at a function boundary
// ENCODING: :[[@LINE+2]]:1: error: memplan-one-shot-bufferize: use-encoding-for-memory-space: the memory space of tensor result #0 cannot be inferred at a function boundary (an unranked tensor has no encoding) (upstream one-shot-bufferize asserts here)
// ANALYSIS-LABEL: func.func private @unranked_result() -> tensor<*xf32>
func.func private @unranked_result() -> tensor<*xf32>

// -----

// An unranked tensor argument, the same.
// INFER: :[[@LINE+4]]:1: error: memplan-one-shot-bufferize: must-infer-memory-space: the memory space of tensor argument #1 cannot be inferred at a function boundary
// ENCODING: :[[@LINE+3]]:1: error: memplan-one-shot-bufferize: use-encoding-for-memory-space: the memory space of tensor argument #1 cannot be inferred at a function boundary (an unranked tensor has no encoding)
// ANALYSIS-LABEL: func.func @unranked_argument
//  ANALYSIS-SAME:   tensor<*xf32> {bufferization.access = "none"}
func.func @unranked_argument(%i: index, %a: tensor<*xf32>) -> index {
  return %i : index
}
