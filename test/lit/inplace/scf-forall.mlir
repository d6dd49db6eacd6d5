// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only dump-alias-sets check-parallel-regions=false" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only dump-alias-sets check-parallel-regions=false})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only check-parallel-regions=false})' | FileCheck %s --check-prefix=NOPAR
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s --check-prefix=REWRITE

// Differential test against upstream: scf.forall with shared_outs,
// tensor.parallel_insert_slice matching extract_slice, privatization of
// buffers written in parallel regions (check-parallel-regions).

// The forall writes its shared_out %t, which is read after the loop: the
// shared_outs operand goes out of place. Inside, the extract_slice / fill /
// matching parallel_insert_slice chain is in place.
// CHECK-LABEL: func @forall1
// CHECK: tensor.extract_slice %arg3{{.*}} {__inplace_operands_attr__ = ["true", "none"]}
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "true"]}
// CHECK: tensor.parallel_insert_slice %2 into %arg3{{.*}} {__inplace_operands_attr__ = ["true", "true", "none"]}
// CHECK: } {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.extract %arg0
// NOPAR-LABEL: func @forall1
// NOPAR: } {__inplace_operands_attr__ = ["false"]}
// In the bufferized IR %t is copied once, before the loop.
// REWRITE-LABEL: func @forall1
// REWRITE: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[ALLOC]] :
// REWRITE: scf.forall
// REWRITE-NOT: memref.alloc
// REWRITE: linalg.fill {{.*}} outs(%subview :
// REWRITE: memref.load %arg0
// REWRITE: return %[[ALLOC]], %0 :
func.func @forall1(%t: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %r = scf.forall (%i) in (2) shared_outs(%o = %t) -> (tensor<8xf32>) {
    %off = arith.muli %i, %c0 : index
    %s = tensor.extract_slice %o[%off] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %w = linalg.fill ins(%f : f32) outs(%s : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w into %o[%off] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  %x = tensor.extract %t[%c0] : tensor<8xf32>
  return %r, %x : tensor<8xf32>, f32
}
// -----
// The fill writes %u, defined outside the forall and returned unchanged: out
// of place whether or not parallel regions are checked. The forall writes
// %t in place and returns it (equivalent to arg 0).
// CHECK-LABEL: func @forall2
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg1
// CHECK: } {__inplace_operands_attr__ = ["none", "true"]}
// CHECK: return {__equivalent_func_args__ = [0, 1]
// NOPAR-LABEL: func @forall2
// NOPAR: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg1
// REWRITE-LABEL: func @forall2
// REWRITE-NOT: memref.copy %arg1
// REWRITE: scf.forall
// REWRITE: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// REWRITE: linalg.fill {{.*}} outs(%[[ALLOC]] :
// REWRITE: return %arg0, %arg1
func.func @forall2(%t: tensor<8xf32>, %u: tensor<4xf32>, %f: f32, %n: index) -> (tensor<8xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %r = scf.forall (%i) in (%n) shared_outs(%o = %t) -> (tensor<8xf32>) {
    %w = linalg.fill ins(%f : f32) outs(%u : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w into %o[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  return %r, %u : tensor<8xf32>, tensor<4xf32>
}
// -----
// The fill writes a tensor.empty defined outside the forall: every thread
// would write the same buffer, so with check-parallel-regions (default) the
// fill is out of place (privatized); without it, in place.
// CHECK-LABEL: func @forall3
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%0
// CHECK: linalg.copy {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: } {__inplace_operands_attr__ = ["true"]}
// CHECK: return {__equivalent_func_args__ = [0]
// NOPAR-LABEL: func @forall3
// NOPAR: linalg.fill {__inplace_operands_attr__ = ["none", "true"]} {{.*}} outs(%0
// The privatized buffer is allocated inside the loop body, per thread.
// REWRITE-LABEL: func @forall3
// REWRITE-NOT: memref.alloc
// REWRITE: scf.forall
// REWRITE-NEXT: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// REWRITE-NEXT: linalg.fill {{.*}} outs(%[[ALLOC]] :
// REWRITE: linalg.copy {{.*}} outs(%[[ALLOC]] :
// REWRITE: return %arg0
func.func @forall3(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %t) -> (tensor<8xf32>) {
    %w = linalg.fill ins(%f : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %s = tensor.extract_slice %o[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %w2 = linalg.copy ins(%s : tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %w2 into %o[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  return %r : tensor<8xf32>
}
