// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down check-parallel-regions=false" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down check-parallel-regions=false})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s

// Tensor ops inside scf.parallel and affine loops. Upstream (MLIR 22) has no
// BufferizableOpInterface model for scf.parallel, scf.reduce, affine.for,
// affine.parallel or affine.if: they are unknown ops, and without tensor
// operands or results they are transparent -- their bodies are analyzed like
// straight-line code. In particular their regions are not repetitive (a read
// before a write in the body is no conflict) and not parallel (a buffer
// written in the body is not privatized, unlike scf.forall). affine.if is a
// RegionBranchOpInterface: its then/else regions are mutually exclusive.

// CHECK-LABEL: func @parallel_read_before_write
func.func @parallel_read_before_write(%t: tensor<8xf32>, %f: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.parallel
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %y = tensor.extract %t[%c1] : tensor<8xf32>
    // CHECK: tensor.insert
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
    %w = tensor.insert %f into %t[%i] : tensor<8xf32>
    %x = tensor.extract %w[%c0] : tensor<8xf32>
    scf.reduce
  }
  return %f : f32
}
// -----
// The same body in scf.for (a repetitive region) conflicts.
// CHECK-LABEL: func @for_read_before_write
func.func @for_read_before_write(%t: tensor<8xf32>, %f: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: tensor.extract %arg0[%c1]
    // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
    %y = tensor.extract %t[%c1] : tensor<8xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
    %w = linalg.fill ins(%f : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
    %x = tensor.extract %w[%i] : tensor<8xf32>
  }
  return %f : f32
}
// -----
// No privatization: the fill into a tensor defined outside the loop stays in
// place (scf.forall would copy it).
// CHECK-LABEL: func @parallel_no_privatization
func.func @parallel_no_privatization(%f: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %x = tensor.extract %w[%i] : tensor<8xf32>
    scf.reduce
  }
  return %f : f32
}
// -----
// A read after the loop still sees the write in the body.
// CHECK-LABEL: func @parallel_read_after
func.func @parallel_read_after(%t: tensor<8xf32>, %f: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    // CHECK: tensor.insert
    // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
    %w = tensor.insert %f into %t[%i] : tensor<8xf32>
    %x = tensor.extract %w[%j] : tensor<8xf32>
    scf.reduce
  }
  // CHECK: tensor.extract %arg0[%c0]
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  %y = tensor.extract %t[%c0] : tensor<8xf32>
  return %y : f32
}
// -----
// Nested: an scf.parallel inside scf.for is part of the for's repetitive
// region.
// CHECK-LABEL: func @parallel_in_for
func.func @parallel_in_for(%t: tensor<8xf32>, %f: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %y = tensor.extract %t[%c1] : tensor<8xf32>
      // CHECK: linalg.fill
      // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
      %w = linalg.fill ins(%f : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
      %x = tensor.extract %w[%i] : tensor<8xf32>
      scf.reduce
    }
  }
  return %f : f32
}
// -----
// CHECK-LABEL: func @affine_for_read_before_write
func.func @affine_for_read_before_write(%t: tensor<8xf32>, %f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  affine.for %i = 0 to 8 {
    %y = tensor.extract %t[%c0] : tensor<8xf32>
    // CHECK: tensor.insert
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
    %w = tensor.insert %f into %t[%i] : tensor<8xf32>
    %x = tensor.extract %w[%c0] : tensor<8xf32>
  }
  return %f : f32
}
// -----
// CHECK-LABEL: func @affine_parallel
func.func @affine_parallel(%f: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<8xf32>
  affine.parallel (%i) = (0) to (8) {
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %x = tensor.extract %w[%i] : tensor<8xf32>
  }
  return %f : f32
}
// -----
// affine.if: the write in the then-region and the read in the else-region
// are mutually exclusive.
// CHECK-LABEL: func @affine_if_exclusive
func.func @affine_if_exclusive(%t: tensor<8xf32>, %f: f32, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) {
    // CHECK: tensor.insert
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
    %w = tensor.insert %f into %t[%i] : tensor<8xf32>
    %x = tensor.extract %w[%c0] : tensor<8xf32>
  } else {
    %y = tensor.extract %t[%c0] : tensor<8xf32>
  }
  return %f : f32
}
// -----
// An affine.if nested in the then-region of an scf.if.
// CHECK-LABEL: func @affine_if_nested
func.func @affine_if_nested(%t: tensor<8xf32>, %f: f32, %i: index, %b: i1) -> f32 {
  %c0 = arith.constant 0 : index
  scf.if %b {
    affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) {
      %y = tensor.extract %t[%c0] : tensor<8xf32>
    } else {
      // CHECK: linalg.fill
      // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
      %w = linalg.fill ins(%f : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
      %x = tensor.extract %w[%c0] : tensor<8xf32>
    }
  }
  %z = tensor.extract %t[%i] : tensor<8xf32>
  return %z : f32
}
