// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-reorder-for-memory list-schedules a function body for a lower
// peak, keeping every dependence.

// %a is computed first but only used by the last op: in the importer's order
// it is held while %b, %b2 and %d are live (4 buffers). Sinking it to its
// user needs 3 at most. Each tensor.empty stays right before its user.

// CHECK-LABEL: func @early_branch
//       CHECK:   %[[E1:.*]] = tensor.empty()
//  CHECK-NEXT:   %[[B:.*]] = linalg.exp ins(%arg1 : tensor<1024xf32>) outs(%[[E1]]
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty()
//  CHECK-NEXT:   %[[B2:.*]] = linalg.negf ins(%arg1 : tensor<1024xf32>) outs(%[[E2]]
//  CHECK-NEXT:   %[[E3:.*]] = tensor.empty()
//  CHECK-NEXT:   %[[D:.*]] = linalg.add ins(%[[B]], %[[B2]] : tensor<1024xf32>, tensor<1024xf32>) outs(%[[E3]]
//  CHECK-NEXT:   %[[E0:.*]] = tensor.empty()
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%arg0 : tensor<1024xf32>) outs(%[[E0]]
//  CHECK-NEXT:   %[[E4:.*]] = tensor.empty()
//  CHECK-NEXT:   linalg.add ins(%[[A]], %[[D]] : tensor<1024xf32>, tensor<1024xf32>) outs(%[[E4]]
func.func @early_branch(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<1024xf32> {
  %e0 = tensor.empty() : tensor<1024xf32>
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<1024xf32>
  %b = linalg.exp ins(%y : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) -> tensor<1024xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %b2 = linalg.negf ins(%y : tensor<1024xf32>) outs(%e2 : tensor<1024xf32>) -> tensor<1024xf32>
  %e3 = tensor.empty() : tensor<1024xf32>
  %d = linalg.add ins(%b, %b2 : tensor<1024xf32>, tensor<1024xf32>) outs(%e3 : tensor<1024xf32>) -> tensor<1024xf32>
  %e4 = tensor.empty() : tensor<1024xf32>
  %z = linalg.add ins(%a, %d : tensor<1024xf32>, tensor<1024xf32>) outs(%e4 : tensor<1024xf32>) -> tensor<1024xf32>
  return %z : tensor<1024xf32>
}

// STATS: MemplanReorderForMemoryPass
// STATS-DAG: (S) 16384 modeled-peak-before
// STATS-DAG: (S) 12288 modeled-peak-after
// STATS-DAG: (S) 1 reordered

// -----

// Ops with memory effects keep their relative order: the two asserts stay in
// place relative to each other, and the order does not change (nothing to
// gain here: the body keeps its order).

// CHECK-LABEL: func @effects_keep_order
//       CHECK:   cf.assert %arg1, "first"
//       CHECK:   cf.assert %arg2, "second"
func.func @effects_keep_order(%x: tensor<16xf32>, %c1: i1, %c2: i1) -> tensor<16xf32> {
  cf.assert %c1, "first"
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  cf.assert %c2, "second"
  return %a : tensor<16xf32>
}

// -----

// An in-place write keeps every read of the old contents before it: %v
// (a view of %a) is read by the exp, and the add writes %a in place; the
// exp may not move after the add.

// CHECK-LABEL: func @read_before_in_place_write
//       CHECK:   %[[V:.*]] = tensor.collapse_shape
//       CHECK:   linalg.exp ins(%[[V]]
//       CHECK:   linalg.add
func.func @read_before_in_place_write(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %a = linalg.exp ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %w = linalg.exp ins(%v : tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.add ins(%a, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%a : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s, %w : tensor<4x16xf32>, tensor<64xf32>
}
