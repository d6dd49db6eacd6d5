// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s --check-prefix=ANALYSIS

// Upstream's bufferization reads one edge per successor block: a branch whose
// successors name one block twice, with tensors on the later edge, first
// gets a block of its own for that edge, which branches on to the block
// (lib/Inplace/RepeatedSuccessors.cpp). test-analysis-only leaves the IR as
// upstream's does.

// The second edge passes other tensors: it goes through a new block.

// CHECK-LABEL: func @repeated_with_tensors
//       CHECK:   cf.cond_br %{{.*}}, ^[[JOIN:bb[0-9]+]](%{{.*}}, %{{.*}} : memref<8xf32, strided<[?], offset: ?>>, memref<8xf32, strided<[?], offset: ?>>), ^[[EDGE:bb[0-9]+]](%{{.*}}, %{{.*}} : memref<8xf32, strided<[?], offset: ?>>, memref<8xf32>)
//       CHECK: ^[[EDGE]](%[[P:.*]]: memref<8xf32, strided<[?], offset: ?>>, %[[Q:.*]]: memref<8xf32>):
//       CHECK:   cf.br ^[[JOIN]](%[[P]], %{{.*}} :
//       CHECK: ^[[JOIN]](
// ANALYSIS-LABEL: func @repeated_with_tensors
//       ANALYSIS:   cf.cond_br %{{.*}}, ^bb1(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>), ^bb1(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
//   ANALYSIS-NOT:   cf.br
func.func @repeated_with_tensors(%c: i1, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  cf.cond_br %c, ^bb1(%a, %x : tensor<8xf32>, tensor<8xf32>), ^bb1(%x, %a : tensor<8xf32>, tensor<8xf32>)
^bb1(%m: tensor<8xf32>, %k: tensor<8xf32>):
  %e2 = tensor.empty() : tensor<8xf32>
  %n = linalg.add ins(%m, %k : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  return %n : tensor<8xf32>
}

// -----

// Edges that forward no tensor stay as they are.

// CHECK-LABEL: func @repeated_without_tensors
//       CHECK:   cf.cond_br %{{.*}}, ^bb1(%{{.*}} : index), ^bb1(%{{.*}} : index)
//   CHECK-NOT:   cf.br
func.func @repeated_without_tensors(%c: i1, %x: tensor<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.cond_br %c, ^bb1(%c0 : index), ^bb1(%c1 : index)
^bb1(%i: index):
  %v = tensor.extract %x[%i] : tensor<8xf32>
  return %v : f32
}
