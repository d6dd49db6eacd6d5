// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only dump-alias-sets check-parallel-regions=false" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only dump-alias-sets check-parallel-regions=false})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up

// Differential test against upstream: scf.forall with shared_outs,
// tensor.parallel_insert_slice matching extract_slice, privatization of
// buffers written in parallel regions (check-parallel-regions).

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
