// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-split-destinations)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-split-destinations)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-split-destinations gives every use of a fresh destination
// (tensor.empty) its own copy right before the op that uses it.

// A tensor.empty CSE'd across two layers (as torch-mlir's importer emits it):
// each layer's op gets its own, right before it, located at that op. Upstream
// bufferization would otherwise allocate one buffer at the shared
// tensor.empty and keep it live from the first layer to the last.

// CHECK-LABEL: func @shared_by_two_layers
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<64xf32>
//  CHECK-NEXT:   %[[L1:.*]] = linalg.exp ins(%{{.*}} : tensor<64xf32>) outs(%[[E1]] : tensor<64xf32>)
//  CHECK-NEXT:   %[[M:.*]] = linalg.negf
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<64xf32>
//  CHECK-NEXT:   %[[L2:.*]] = linalg.exp ins(%[[M]] : tensor<64xf32>) outs(%[[E2]] : tensor<64xf32>)
//   CHECK-NOT:   tensor.empty
//       CHECK:   return %[[L2]]
func.func @shared_by_two_layers(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %l1 = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.negf ins(%l1 : tensor<64xf32>) outs(%y : tensor<64xf32>) -> tensor<64xf32>
  %l2 = linalg.exp ins(%m : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %l2 : tensor<64xf32>
}

// STATS: MemplanSplitDestinationsPass
// STATS-NEXT: (S) 0 kept-read-destinations
// STATS-NEXT: (S) 2 split-destinations
// STATS-NEXT: (S) 0 sunk-destinations

// -----

// A destination with one use moves down to it; its dynamic size operand
// already dominates the new position.

// CHECK-LABEL: func @sunk
//       CHECK:   %[[D:.*]] = tensor.dim
//  CHECK-NEXT:   %[[N:.*]] = linalg.negf
//  CHECK-NEXT:   %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
//  CHECK-NEXT:   linalg.exp ins(%[[N]] : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
func.func @sunk(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%d) : tensor<?xf32>
  %n = linalg.negf ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.exp ins(%n : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// STATS: MemplanSplitDestinationsPass
// STATS-NEXT: (S) 0 kept-read-destinations
// STATS-NEXT: (S) 0 split-destinations
// STATS-NEXT: (S) 1 sunk-destinations

// -----

// A use inside a loop gets its copy before the loop, not in the body: no
// allocation is added to an iteration.

// CHECK-LABEL: func @use_in_loop
//       CHECK:   linalg.exp
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//  CHECK-NEXT:   scf.for
//   CHECK-NOT:     tensor.empty
//       CHECK:     linalg.negf ins(%{{.*}} : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
func.func @use_in_loop(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<8xf32> {
    %t = linalg.negf ins(%acc : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %u = linalg.add ins(%t, %acc : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// STATS: MemplanSplitDestinationsPass
// STATS-NEXT: (S) 0 kept-read-destinations
// STATS-NEXT: (S) 2 split-destinations
// STATS-NEXT: (S) 0 sunk-destinations

// -----

// Two uses inside one loop body share the destination the loop gets: it
// moves down to the loop, and the loop holds one buffer, as upstream
// allocates it. One destination per use, both before the loop, would hold
// two buffers on every path (the loop's zero-trip one included).

// CHECK-LABEL: func @two_uses_in_one_loop
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<16xf32>
//  CHECK-NEXT:   scf.for
//   CHECK-NOT:     tensor.empty
//       CHECK:     linalg.exp ins(%{{.*}} : tensor<16xf32>) outs(%[[E]] : tensor<16xf32>)
//       CHECK:     linalg.negf ins(%{{.*}} : tensor<16xf32>) outs(%[[E]] : tensor<16xf32>)
func.func @two_uses_in_one_loop(%x: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.exp ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>) -> tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> tensor<16xf32> {
    %a = linalg.exp ins(%acc : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %s = linalg.add ins(%a, %acc : tensor<16xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) -> tensor<16xf32>
    %b = linalg.negf ins(%s : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %t = linalg.add ins(%b, %s : tensor<16xf32>, tensor<16xf32>) outs(%s : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %t : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// STATS: MemplanSplitDestinationsPass
// STATS-NEXT: (S) 0 kept-read-destinations
// STATS-NEXT: (S) 0 split-destinations
// STATS-NEXT: (S) 1 sunk-destinations

// -----

// Only pure ops that bufferize to a new allocation are destinations: a
// constant (read-only memory) and an op with effects stay as they are.

// CHECK-LABEL: func @not_destinations
//       CHECK:   %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
//       CHECK:   linalg.exp ins(%[[C]] : tensor<4xf32>)
//       CHECK:   linalg.exp ins(%[[C]] : tensor<4xf32>)
//       CHECK:   %[[A:.*]] = bufferization.alloc_tensor() : tensor<4xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
func.func @not_destinations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %a = linalg.exp ins(%c : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.exp ins(%c : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  %t = bufferization.alloc_tensor() : tensor<4xf32>
  %u = linalg.exp ins(%a : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  %v = linalg.exp ins(%b : tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %u, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A shared destination one of whose uses reads it (a partial write keeps the
// rest of its contents): the program reads undefined contents, which upstream
// bufferization makes what the other use wrote. It stays shared. (Not runnable:
// the result holds undefined elements.)

// CHECK-LABEL: func @read_destination_stays_shared
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
//       CHECK:   tensor.insert_slice %{{.*}} into %[[E]][0] [4] [1]
//   CHECK-NOT:   tensor.empty
func.func @read_destination_stays_shared(%x: tensor<8xf32>, %y: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = tensor.insert_slice %y into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// STATS: (S) 1 kept-read-destinations

// -----

// Read through a view: the cast's return reads the destination's undefined
// contents, which upstream bufferization makes what the exp wrote. It stays
// shared. (Not runnable: the result holds undefined elements.)

// CHECK-LABEL: func @read_through_a_view_stays_shared
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
//       CHECK:   tensor.cast %[[E]]
//   CHECK-NOT:   tensor.empty
func.func @read_through_a_view_stays_shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = tensor.cast %e : tensor<8xf32> to tensor<?xf32>
  return %a, %r : tensor<8xf32>, tensor<?xf32>
}

// STATS: (S) 1 kept-read-destinations

// -----

// A reshape of a shared tensor.empty (as elementwise fusion's reshape
// propagation leaves it) is the destination of two transposes: the view
// becomes a tensor.empty of its own type, which is then split like any other.

// CHECK-LABEL: func @view_of_a_shared_empty
//   CHECK-NOT:   tensor.expand_shape %{{.*}} : tensor<256x64xf32>
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<256x4x16xf32>
//  CHECK-NEXT:   %[[T1:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x256x16xf32>) outs(%[[E1]] : tensor<256x4x16xf32>)
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<256x4x16xf32>
//  CHECK-NEXT:   %[[T2:.*]] = linalg.transpose ins(%{{.*}} : tensor<4x256x16xf32>) outs(%[[E2]] : tensor<256x4x16xf32>)
//       CHECK:   return %[[T1]], %[[T2]]
func.func @view_of_a_shared_empty(%x: tensor<4x256x16xf32>, %y: tensor<4x256x16xf32>) -> (tensor<256x4x16xf32>, tensor<256x4x16xf32>) {
  %e = tensor.empty() : tensor<256x64xf32>
  %v = tensor.expand_shape %e [[0], [1, 2]] output_shape [256, 4, 16] : tensor<256x64xf32> into tensor<256x4x16xf32>
  %t1 = linalg.transpose ins(%x : tensor<4x256x16xf32>) outs(%v : tensor<256x4x16xf32>) permutation = [1, 0, 2]
  %t2 = linalg.transpose ins(%y : tensor<4x256x16xf32>) outs(%v : tensor<256x4x16xf32>) permutation = [1, 0, 2]
  return %t1, %t2 : tensor<256x4x16xf32>, tensor<256x4x16xf32>
}

// STATS: (S) 2 split-destinations
// STATS: (S) 1 views-as-destinations

// -----

// A view of a dynamically sized tensor.empty becomes a tensor.empty sized as
// the view reifies its result (here the expand_shape's output_shape).

// CHECK-LABEL: func @views_of_a_dynamic_empty
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x4xf32>, %[[N:.*]]: index)
//   CHECK-NOT:   tensor.expand_shape
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
//  CHECK-NEXT:   linalg.exp ins(%[[X]] : tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xf32>)
func.func @views_of_a_dynamic_empty(%x: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %c4 = arith.constant 4 : index
  %m = arith.muli %n, %c4 : index
  %e = tensor.empty(%m) : tensor<?xf32>
  %v = tensor.expand_shape %e [[0, 1]] output_shape [%n, 4] : tensor<?xf32> into tensor<?x4xf32>
  %r = linalg.exp ins(%x : tensor<?x4xf32>) outs(%v : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// STATS: (S) 1 views-as-destinations

// -----

// A view of a function argument is no destination: it stays.

// CHECK-LABEL: func @view_of_an_argument
//       CHECK:   %[[V:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 4]
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<2x4xf32>) outs(%[[V]] : tensor<2x4xf32>)
func.func @view_of_an_argument(%x: tensor<2x4xf32>, %y: tensor<8xf32>) -> tensor<2x4xf32> {
  %v = tensor.expand_shape %y [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %r = linalg.exp ins(%x : tensor<2x4xf32>) outs(%v : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// STATS: (S) 0 views-as-destinations
