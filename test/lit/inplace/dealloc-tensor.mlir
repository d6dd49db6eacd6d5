// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only print-conflicts dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only print-conflicts dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only dialect-filter=tensor,linalg,func" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only dialect-filter=tensor,linalg,func})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s

// bufferization.dealloc_tensor, as upstream models it: its operand is neither
// read nor written and aliases nothing. It never causes a copy: a write
// before it into the deallocated tensor stays in place (no read after the
// write), and a function argument that is only deallocated is
// bufferization.access = "none" (with a write: "write", not "read-write").

// CHECK-LABEL: func @dealloc_after_write
// CHECK-SAME: bufferization.access = "write"
func.func @dealloc_after_write(%t: tensor<4xf32>, %f: f32) -> tensor<4xf32> {
  // CHECK: linalg.fill
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
  %w = linalg.fill ins(%f : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  // CHECK: bufferization.dealloc_tensor
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  bufferization.dealloc_tensor %t : tensor<4xf32>
  return %w : tensor<4xf32>
}
// -----
// CHECK-LABEL: func @dealloc_only
// CHECK-SAME: bufferization.access = "none"
func.func @dealloc_only(%t: tensor<4xf32> {bufferization.writable = false}) {
  bufferization.dealloc_tensor %t : tensor<4xf32>
  return
}
// -----
// A dealloc before a write of the same tensor: no conflict either.
// CHECK-LABEL: func @dealloc_then_write
func.func @dealloc_then_write(%t: tensor<4xf32>, %f: f32, %i: index) -> tensor<4xf32> {
  // CHECK: bufferization.dealloc_tensor
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  bufferization.dealloc_tensor %t : tensor<4xf32>
  // CHECK: tensor.insert
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %t[%i] : tensor<4xf32>
  return %w : tensor<4xf32>
}
// -----
// A slice of a tensor overwritten later: deallocating the slice is no read.
// CHECK-LABEL: func @dealloc_slice
func.func @dealloc_slice(%t: tensor<4xf32>, %f: f32) -> tensor<4xf32> {
  %s = tensor.extract_slice %t[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  // CHECK: linalg.fill
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
  %w = linalg.fill ins(%f : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  bufferization.dealloc_tensor %s : tensor<2xf32>
  return %w : tensor<4xf32>
}
// -----
// A real read after the write still conflicts (the read is the extract, not
// the dealloc).
// CHECK-LABEL: func @dealloc_and_read
func.func @dealloc_and_read(%t: tensor<4xf32>, %f: f32, %i: index) -> (tensor<4xf32>, f32) {
  // CHECK: tensor.insert
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
  %w = tensor.insert %f into %t[%i] : tensor<4xf32>
  // CHECK: tensor.extract
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  %x = tensor.extract %t[%i] : tensor<4xf32>
  bufferization.dealloc_tensor %t : tensor<4xf32>
  return %w, %x : tensor<4xf32>, f32
}
// -----
// A freshly allocated tensor: written, read, deallocated.
// CHECK-LABEL: func @alloc_write_dealloc
func.func @alloc_write_dealloc(%f: f32, %i: index) -> f32 {
  %e = bufferization.alloc_tensor() : tensor<4xf32>
  %w = tensor.insert %f into %e[%i] : tensor<4xf32>
  %x = tensor.extract %w[%i] : tensor<4xf32>
  // CHECK: bufferization.dealloc_tensor
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  bufferization.dealloc_tensor %w : tensor<4xf32>
  return %x : f32
}
