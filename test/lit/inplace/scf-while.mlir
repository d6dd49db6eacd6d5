// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets allow-return-allocs-from-loops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' | FileCheck %s --check-prefix=REWRITE

// Differential test against upstream: scf.while (condition/yield
// equivalence, repetitive before/after regions).

// The loop writes its iter_arg (initialized with %t) in the after region, and
// %t is read after the loop: the init operand goes out of place. Inside, the
// read in the before region precedes the write of the same iteration, and
// condition/yield forward the same buffer: all in place.
// CHECK-LABEL: func @while1
// CHECK: scf.condition(%arg3) {__inplace_operands_attr__ = ["none", "true"]}
// CHECK: tensor.insert {{.*}} into %arg4{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: } attributes {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.extract %arg0
// REWRITE-LABEL: func @while1
// REWRITE: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[ALLOC]] :
// REWRITE: scf.while (%{{.*}} = %[[ALLOC]])
// REWRITE-NOT: memref.alloc
// REWRITE: memref.load %arg0
func.func @while1(%t: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, f32) {
  %r = scf.while (%a = %t) : (tensor<8xf32>) -> tensor<8xf32> {
    %x = tensor.extract %a[%i] : tensor<8xf32>
    scf.condition(%c) %a : tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>):
    %w = tensor.insert %f into %b[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  %y = tensor.extract %t[%i] : tensor<8xf32>
  return %r, %y : tensor<8xf32>, f32
}
// -----
// Each iter_arg is forwarded to its own position by condition and yield
// (equivalent): in place, results equivalent to args 0 and 1.
// CHECK-LABEL: func @while2
// CHECK: scf.condition(%arg4) {__inplace_operands_attr__ = ["none", "true", "true"]}
// CHECK: tensor.insert {{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: } attributes {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: return {__equivalent_func_args__ = [0, 1]
// REWRITE-LABEL: func @while2
// REWRITE-NOT: memref.alloc
// REWRITE-NOT: memref.copy
// REWRITE: return %0#0, %0#1
func.func @while2(%t: tensor<8xf32>, %u: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = scf.while (%a = %t, %a2 = %u) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    scf.condition(%c) %a, %a2 : tensor<8xf32>, tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>, %b2: tensor<8xf32>):
    %w = tensor.insert %f into %b[%i] : tensor<8xf32>
    scf.yield %w, %b2 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
// -----
// The condition swaps the iter_args: condition arg #0 is not equivalent to
// before-region arg #0. With allow-return-allocs-from-loops the operands stay
// in place in the analysis but the results are equivalent to no argument,
// and the rewrite allocates a fresh buffer per condition operand. Without
// it, analysis stops with a located error (ERR, ERRLOC).
// CHECK-LABEL: func @while_swap
// CHECK: tensor.insert {{.*}} into %arg5{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: scf.condition(%arg4) {__inplace_operands_attr__ = ["none", "true", "true"]} %arg6, %inserted
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %0#0, %0#1
// REWRITE-LABEL: func @while_swap
// REWRITE: %[[A0:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg6, %[[A0]] :
// REWRITE: %[[A1:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg5, %[[A1]] :
// REWRITE: scf.condition(%arg4) %[[A0]], %[[A1]] :
func.func @while_swap(%t: tensor<8xf32>, %u: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = scf.while (%a = %t, %a2 = %u) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %w = tensor.insert %f into %a[%i] : tensor<8xf32>
    // ERRLOC: scf-while.mlir:[[@LINE+1]]:5: error: Condition arg #0 is not equivalent to the corresponding iter bbArg
    scf.condition(%c) %a2, %w : tensor<8xf32>, tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>, %b2: tensor<8xf32>):
    scf.yield %b2, %b : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
// RUN: not mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" 2> %t.uperr
// RUN: not memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.uperr
// ERR: error: Condition arg #0 is not equivalent to the corresponding iter bbArg
// RUN: FileCheck %s --check-prefix=ERRLOC < %t.err
// RUN: FileCheck %s --check-prefix=ERRLOC < %t.uperr
