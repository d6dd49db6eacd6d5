// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-fold-transposes{remarks})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-fold-transposes)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-fold-transposes folds transposes and broadcasts into the indexing
// maps of the ops that read them: no permuted copy is stored. The numerics of
// every case are checked in test/python/peak/test_fold_transposes.py.

// nn.Linear as torch-mlir imports it: the weight is transposed into a fresh
// tensor, then multiplied. The matmul reads the weight where it lies through
// a transposed map; the copy and its destination are gone.

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$WT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @linear
//   CHECK-NOT:   linalg.transpose
//       CHECK:   linalg.matmul indexing_maps = [#[[$A]], #[[$WT]], #[[$C]]] ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>)
//   CHECK-NOT:   tensor.empty() : tensor<8x16xf32>
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// STATS: MemplanFoldTransposesPass
// STATS-DAG: (S) 512 bytes-not-stored
// STATS-DAG: (S) 1 folded
// STATS-DAG: (S) 1 folded-reads

// -----

// A dynamic batch: the matmul's sizes come from its own operands, so the
// copy's destination, with the batch size, goes too.

// CHECK-LABEL: func @linear_dynamic_batch
//   CHECK-NOT:   linalg.transpose
//       CHECK:   linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%arg0, %arg1 : tensor<?x8xf32>, tensor<16x8xf32>)
func.func @linear_dynamic_batch(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %o = tensor.empty(%n) : tensor<?x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<?x16xf32>) -> tensor<?x16xf32>
  %r = linalg.matmul ins(%x, %t : tensor<?x8xf32>, tensor<8x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// A transpose with dynamic sizes of an activation (not a weight): the copy
// and its dynamically sized destination go.

// CHECK-LABEL: func @dynamic_transpose
//   CHECK-NOT:   linalg.transpose
//   CHECK-NOT:   tensor.empty
//       CHECK:   linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%arg0, %[[H:.*]] : tensor<4x?xf32>, tensor<8x?xf32>)
func.func @dynamic_transpose(%x: tensor<4x?xf32>, %a: tensor<8x?xf32>, %acc: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c1 = arith.constant 1 : index
  %h = linalg.exp ins(%a : tensor<8x?xf32>) outs(%a : tensor<8x?xf32>) -> tensor<8x?xf32>
  %k = tensor.dim %a, %c1 : tensor<8x?xf32>
  %e = tensor.empty(%k) : tensor<?x8xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy is not stored}}
  %t = linalg.transpose ins(%h : tensor<8x?xf32>) outs(%e : tensor<?x8xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<4x?xf32>, tensor<?x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Attention's heads, as torch-mlir imports them: Q and K^T transposed, the
// unit batch dimension collapsed away, then a batched matmul. The reshapes
// only drop a unit dimension, so their maps compose (the dropped dimension
// reads index 0). linalg.batch_matmul only takes maps whose batch dimension
// comes first: it becomes the linalg.generic with its loops and payload.

// CHECK-DAG: #[[$Q:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d1, d0, d3)>
// CHECK-DAG: #[[$K:.*]] = affine_map<(d0, d1, d2, d3) -> (0, d2, d0, d3)>
// CHECK-DAG: #[[$S:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @attention_scores
//   CHECK-NOT:   linalg.transpose
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   %[[QE:.*]] = tensor.expand_shape %arg0
//       CHECK:   %[[KE:.*]] = tensor.expand_shape %arg1
//       CHECK:   linalg.generic {indexing_maps = [#[[$Q]], #[[$K]], #[[$S]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QE]], %[[KE]] : tensor<1x16x2x4xf32>, tensor<1x16x2x4xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
func.func @attention_scores(%q: tensor<16x8xf32>, %k: tensor<16x8xf32>) -> tensor<2x16x16xf32> {
  %cst = arith.constant 0.0 : f32
  %qe = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [1, 16, 2, 4] : tensor<16x8xf32> into tensor<1x16x2x4xf32>
  %ke = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [1, 16, 2, 4] : tensor<16x8xf32> into tensor<1x16x2x4xf32>
  %e1 = tensor.empty() : tensor<1x2x16x4xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %qt = linalg.transpose ins(%qe : tensor<1x16x2x4xf32>) outs(%e1 : tensor<1x2x16x4xf32>) permutation = [0, 2, 1, 3]
  %e2 = tensor.empty() : tensor<1x2x4x16xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %kt = linalg.transpose ins(%ke : tensor<1x16x2x4xf32>) outs(%e2 : tensor<1x2x4x16xf32>) permutation = [0, 2, 3, 1]
  %qc = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x2x16x4xf32> into tensor<2x16x4xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %o = tensor.empty() : tensor<2x16x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  // expected-remark @below {{generalized to linalg.generic to read the transposed operand where it lies}}
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x16x4xf32>, tensor<2x4x16xf32>) outs(%z : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %s : tensor<2x16x16xf32>
}

// -----

// A batched matmul whose transposed operand keeps its batch dimension first
// takes the map as it is: it stays a linalg.batch_matmul.

// CHECK-LABEL: func @batched_transpose_b
//   CHECK-NOT:   linalg.transpose
//       CHECK:   linalg.batch_matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%arg0, %arg1 : tensor<2x16x4xf32>, tensor<2x16x4xf32>)
func.func @batched_transpose_b(%q: tensor<2x16x4xf32>, %k: tensor<2x16x4xf32>, %acc: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %e = tensor.empty() : tensor<2x4x16xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %kt = linalg.transpose ins(%k : tensor<2x16x4xf32>) outs(%e : tensor<2x4x16xf32>) permutation = [0, 2, 1]
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x16x4xf32>, tensor<2x4x16xf32>) outs(%acc : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %s : tensor<2x16x16xf32>
}

// -----

// Generics read through the composed map, whatever they compute; a
// linalg.broadcast folds the same way (the generic reads the smaller source),
// and a transpose of a transpose folds into a plain copy, which folds too:
// nothing is stored.

// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @generic_readers
//   CHECK-NOT:   linalg.transpose
//   CHECK-NOT:   linalg.broadcast
//   CHECK-NOT:   linalg.generic
//       CHECK:   linalg.generic {indexing_maps = [#[[$T]], #[[$ROW]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %arg2 : tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>)
func.func @generic_readers(%a: tensor<8x4xf32>, %bias: tensor<8xf32>, %twice: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (128 bytes) is not stored}}
  %t = linalg.transpose ins(%a : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the broadcast copy (128 bytes) is not stored}}
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %e2 = tensor.empty() : tensor<8x4xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (128 bytes) is not stored}}
  %tt = linalg.transpose ins(%twice : tensor<4x8xf32>) outs(%e2 : tensor<8x4xf32>) permutation = [1, 0]
  // expected-remark @below {{generalized to linalg.generic to read the transposed operand where it lies}}
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the plain copy (128 bytes) is not stored}}
  %back = linalg.transpose ins(%tt : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%t, %b, %back : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// tensor.extract reads one element: at the permuted indices of the source.

// CHECK-LABEL: func @extract_element
//   CHECK-NOT:   linalg.transpose
//       CHECK:   %[[V:.*]] = tensor.extract %arg0[%arg2, %arg1] : tensor<8x4xf32>
//       CHECK:   return %[[V]]
func.func @extract_element(%a: tensor<8x4xf32>, %i: index, %j: index) -> f32 {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (128 bytes) is not stored}}
  %t = linalg.transpose ins(%a : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) permutation = [1, 0]
  %v = tensor.extract %t[%i, %j] : tensor<4x8xf32>
  return %v : f32
}

// -----

// Must not fire: the copy is the destination of an op that writes into it
// (here, accumulates into it). The source may not be written, and a map
// cannot say where to write.

// CHECK-LABEL: func @copy_written
//       CHECK:   %[[T:.*]] = linalg.transpose
//       CHECK:   linalg.matmul ins(%arg0, %arg0 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%[[T]] : tensor<8x8xf32>)
func.func @copy_written(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @below {{kept the transposed copy: 'linalg.matmul' writes into the transposed copy}}
  %t = linalg.transpose ins(%w : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// Must not fire: a bias broadcast into the destination a convolution
// accumulates into (torch-mlir's convolutions with bias).

// CHECK-LABEL: func @broadcast_accumulated
//       CHECK:   %[[B:.*]] = linalg.broadcast
//       CHECK:   linalg.conv_2d_nchw_fchw {{.*}} outs(%[[B]] : tensor<1x2x6x6xf32>)
func.func @broadcast_accumulated(%x: tensor<1x3x8x8xf32>, %f: tensor<2x3x3x3xf32>, %bias: tensor<2xf32>) -> tensor<1x2x6x6xf32> {
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  // expected-remark @below {{kept the broadcast copy: 'linalg.conv_2d_nchw_fchw' writes into the broadcast copy}}
  %b = linalg.broadcast ins(%bias : tensor<2xf32>) outs(%e : tensor<1x2x6x6xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %f : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) outs(%b : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  return %r : tensor<1x2x6x6xf32>
}

// -----

// Must not fire: the copy is returned, which cannot read through a
// permutation; the matmul that also reads it comes first, so folding it
// would not shorten the copy's life (a transpose with consumers of different
// kinds).

// CHECK-LABEL: func @copy_returned
//       CHECK:   %[[T:.*]] = linalg.transpose
//       CHECK:   linalg.matmul ins(%arg0, %[[T]] : tensor<4x8xf32>, tensor<8x16xf32>)
//       CHECK:   return %{{.*}}, %[[T]]
func.func @copy_returned(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{kept the transposed copy: 'func.return' cannot read through a transpose; folding its other 1 read(s) would not shorten its life}}
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r, %t : tensor<4x16xf32>, tensor<8x16xf32>
}

// -----

// A partial fold: the copy is inserted into a larger tensor first (which
// cannot read through it), then read by a matmul. The weight, a function
// argument, lives anyway: the matmul reads it where it lies, and the copy
// dies at the insert instead of at the matmul.

// CHECK-LABEL: func @partial
//       CHECK:   %[[T:.*]] = linalg.transpose
//       CHECK:   tensor.insert_slice %[[T]]
//       CHECK:   linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>)
func.func @partial(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x16xf32>, %big: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{partly folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is kept for 'tensor.insert_slice', which uses it before them}}
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %s = tensor.insert_slice %t into %big[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<16x16xf32>
  %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r, %s : tensor<4x16xf32>, tensor<16x16xf32>
}

// -----

// Must not fire: the same with a source that is itself computed. Reading it
// at the matmul would keep it alive longer while the copy stays: no fold.

// CHECK-LABEL: func @partial_not_worth_it
//       CHECK:   %[[T:.*]] = linalg.transpose
//       CHECK:   linalg.matmul ins(%arg0, %[[T]] : tensor<4x8xf32>, tensor<8x16xf32>)
func.func @partial_not_worth_it(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x16xf32>, %big: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<16x16xf32>) {
  %h = linalg.exp ins(%w : tensor<16x8xf32>) outs(%w : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{kept the transposed copy: 'tensor.insert_slice' cannot read through a transpose; folding its other 1 read(s) would not shorten its life}}
  %t = linalg.transpose ins(%h : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %s = tensor.insert_slice %t into %big[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<16x16xf32>
  %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r, %s : tensor<4x16xf32>, tensor<16x16xf32>
}

// -----

// Must not fire: attention's heads merged back, the transposed head and
// position dimensions collapsed together. That reshape mixes dimensions of
// more than one element, which no affine map of a plain matmul reads
// through.

// CHECK-LABEL: func @heads_merged
//       CHECK:   %[[T:.*]] = linalg.transpose
//       CHECK:   tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]]
func.func @heads_merged(%o: tensor<1x2x16x4xf32>, %w: tensor<8x8xf32>, %acc: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<1x16x2x4xf32>
  // expected-remark @below {{kept the transposed copy: 'tensor.collapse_shape' merges or splits transposed dimensions that are not 1}}
  %t = linalg.transpose ins(%o : tensor<1x2x16x4xf32>) outs(%e : tensor<1x16x2x4xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<1x16x2x4xf32> into tensor<16x8xf32>
  %r = linalg.matmul ins(%c, %w : tensor<16x8xf32>, tensor<8x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Must not fire: a broadcast whose reader has no other operand to take the
// broadcast dimension's size from: the generic would not know its loops.

// CHECK-LABEL: func @broadcast_sizes_lost
//       CHECK:   %[[B:.*]] = linalg.broadcast
//       CHECK:   linalg.generic {{.*}} ins(%[[B]] : tensor<4x8xf32>)
func.func @broadcast_sizes_lost(%bias: tensor<8xf32>) -> tensor<8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{kept the broadcast copy: 'linalg.generic' cannot take the broadcast operand's indexing map}}
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %o = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%b : tensor<4x8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Not a layout copy: a generic that converts what it moves is left alone
// (no remark). linalg.copy is one, with the same map on both sides: its
// reader reads the source.

// CHECK-LABEL: func @converting_generic
//       CHECK:   linalg.generic
//       CHECK:     arith.extf
//   CHECK-NOT:   linalg.copy
//       CHECK:   linalg.exp ins(%arg1 : tensor<4x8xf32>)
func.func @converting_generic(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf64>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x4xf32>) outs(%e : tensor<4x8xf64>) {
  ^bb0(%x: f32, %out: f64):
    %w = arith.extf %x : f32 to f64
    linalg.yield %w : f64
  } -> tensor<4x8xf64>
  %e2 = tensor.empty() : tensor<4x8xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the plain copy (128 bytes) is not stored}}
  %c = linalg.copy ins(%b : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.exp ins(%c : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t, %r : tensor<4x8xf64>, tensor<4x8xf32>
}

// -----

// Not a layout copy either: a generic whose payload yields its init's
// element (here a filled tensor) moves nothing from its input. Its reader
// keeps reading its result (no remark).

// CHECK-LABEL: func @yields_the_init
//       CHECK:   %[[F:.*]] = linalg.fill
//       CHECK:   %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x4xf32>) outs(%[[F]] : tensor<4x8xf32>)
//       CHECK:   linalg.exp ins(%[[G]] : tensor<4x8xf32>)
func.func @yields_the_init(%a: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%two : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x4xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %out : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.exp ins(%g : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A fused payload that takes a constant from above still reads through the
// transposed map: the reader is checked by its own verifier, not by the
// dominance of values its payload takes from the function.

// CHECK-LABEL: func @payload_takes_a_constant
//   CHECK-NOT:   linalg.transpose
//       CHECK:   linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>)
func.func @payload_takes_a_constant(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-remark @below {{folded: 1 read(s) now read the source where it lies; the transposed copy (512 bytes) is not stored}}
  %t = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                                        affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.mulf %m, %half : f32
    %y = arith.addf %o, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
