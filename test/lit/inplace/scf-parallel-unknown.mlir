// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-heuristic=bottom-up-from-terminators" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-heuristic=bottom-up-from-terminators})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only allow-unknown-ops dump-alias-sets analysis-heuristic=top-down" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops dump-alias-sets analysis-heuristic=top-down})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-heuristic=bottom-up-from-terminators})' | FileCheck %s
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up

// scf.parallel / scf.reduce / affine.for / affine.if with tensor operands or
// results: unknown ops upstream (MLIR 22), analyzed with allow-unknown-ops
// like any unknown op -- operands read, written and aliasing every tensor
// result and region entry argument, results and region arguments not
// writable. Without allow-unknown-ops test-analysis-only annotates them the
// same way, as upstream does (a rewrite fails on them: "op was not
// bufferized"). For the bottom-up-from-terminators order, scf.reduce and
// affine.yield are region terminators, scf.reduce.return is not: the fill
// feeding scf.reduce / affine.yield is decided first and stays in place.

// CHECK-LABEL: func @affine_for_iter_args
func.func @affine_for_iter_args(%t: tensor<8xf32>, %f: f32, %g: f32) -> tensor<8xf32> {
  %c1 = arith.constant 1 : index
  // CHECK: affine.for
  // CHECK-SAME: iter_args
  %r = affine.for %i = 0 to 8 iter_args(%acc = %t) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
    %x = linalg.fill ins(%g : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %y = tensor.extract %x[%c1] : tensor<8xf32>
    affine.yield %w : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
// -----
// CHECK-LABEL: func @parallel_reduce
func.func @parallel_reduce(%t: tensor<8xf32>, %f: f32, %g: f32, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.parallel
  // CHECK-SAME: init
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%t) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
    %x = linalg.fill ins(%g : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %y = tensor.extract %x[%c1] : tensor<8xf32>
    // CHECK: scf.reduce
    scf.reduce(%w : tensor<8xf32>) {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %e2 = tensor.empty() : tensor<8xf32>
      // CHECK: linalg.fill
      // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
      %p = linalg.fill ins(%f : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
      // CHECK: linalg.fill
      // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
      %q = linalg.fill ins(%g : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
      %z = tensor.extract %q[%c1] : tensor<8xf32>
      scf.reduce.return %p : tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}
// -----
// Two reductions: writes into a region argument are writes into a buffer
// that is not writable (region arguments of unknown ops).
// CHECK-LABEL: func @parallel_two_reductions
func.func @parallel_two_reductions(%t: tensor<8xf32>, %u: tensor<8xf32>, %f: f32, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%t, %u) -> (tensor<8xf32>, tensor<8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    scf.reduce(%w, %w : tensor<8xf32>, tensor<8xf32>) {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      // CHECK: linalg.add
      // CHECK-SAME: __inplace_operands_attr__ = ["true", "true", "false"]
      %s = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
      scf.reduce.return %s : tensor<8xf32>
    }, {
    ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
      %e2 = tensor.empty() : tensor<8xf32>
      %s = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
      scf.reduce.return %s : tensor<8xf32>
    }
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
// -----
// affine.if with a tensor result: an unknown op (its affine.yield operands
// are read and written).
// CHECK-LABEL: func @affine_if_result
func.func @affine_if_result(%t: tensor<8xf32>, %f: f32, %i: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %r = affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %c = linalg.copy ins(%t : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    // CHECK: tensor.insert
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
    %w = tensor.insert %f into %c[%i] : tensor<8xf32>
    affine.yield %w : tensor<8xf32>
  } else {
    %y = tensor.extract %t[%c0] : tensor<8xf32>
    affine.yield %t : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
