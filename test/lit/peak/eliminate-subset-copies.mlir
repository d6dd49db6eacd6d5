// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-eliminate-subset-copies)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-eliminate-subset-copies)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-eliminate-subset-copies lets the producers of a value that is
// copied into a subset of a larger tensor (a pad's interior, a concat's
// operand, an insert_slice's source) write straight into that subset.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A padded 3x3 convolution's input (as torch-mlir imports ResNet): the
// convolution accumulates into a zero fill, a ReLU follows, and the pad
// copies the result into a larger tensor. The chain now writes into the
// interior of the padded tensor, which is made and filled with the padding
// value right before the chain starts; the pad becomes an insert_slice of the
// interior into it.

// CHECK-LABEL: func @pad_after_conv
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<1x4x10x10xf32>, %[[W:[a-z0-9]+]]: tensor<8x4x3x3xf32>
//   CHECK-DAG:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//   CHECK-DAG:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[BIG:.*]] = tensor.empty() : tensor<1x8x10x10xf32>
//  CHECK-NEXT:   %[[FILLED:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[BIG]] : tensor<1x8x10x10xf32>)
//  CHECK-NEXT:   %[[SLICE:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1]
//  CHECK-NEXT:   %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[SLICE]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[ACC]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x8x8xf32>) outs(%[[CONV]] : tensor<1x8x8x8xf32>)
//       CHECK:   %[[PADDED:.*]] = tensor.insert_slice %[[RELU]] into %[[FILLED]][0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.pad
//       CHECK:   return %[[PADDED]]
func.func @pad_after_conv(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x8xf32>) outs(%c : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  return %p : tensor<1x8x10x10xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS-NEXT: (S) 2048 bytes-saved
// STATS-NEXT: (S) 1 candidates
// STATS-NEXT: (S) 0 folded-concats
// STATS-NEXT: (S) 3200 modeled-peak-after
// STATS-NEXT: (S) 5248 modeled-peak-before
// STATS-NEXT: (S) 0 rejected-analysis
// STATS-NEXT: (S) 0 rejected-dynamic
// STATS-NEXT: (S) 0 rejected-not-produced
// STATS-NEXT: (S) 0 rejected-other-uses
// STATS-NEXT: (S) 0 rejected-peak
// STATS-NEXT: (S) 0 rejected-placement
// STATS-NEXT: (S) 1 rounds
// STATS-NEXT: (S) 1 written-in-place

// -----

// The zero fill is shared by two convolutions (torch-mlir CSEs fills): it is
// cloned onto the slice for the padded one, and stays for the other.

// CHECK-LABEL: func @shared_fill
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<1x8x8x8xf32>
//  CHECK-NEXT:   %[[SHARED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   %[[BIG:.*]] = tensor.empty() : tensor<1x8x10x10xf32>
//  CHECK-NEXT:   %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BIG]] : tensor<1x8x10x10xf32>)
//  CHECK-NEXT:   %[[SLICE:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 8, 8, 8] [1, 1, 1, 1]
//  CHECK-NEXT:   %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[ACC]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   %[[P:.*]] = tensor.insert_slice %[[C]] into %[[FILLED]]
//  CHECK-NEXT:   %[[D:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %{{.*}} : {{.*}}) outs(%[[SHARED]] : tensor<1x8x8x8xf32>)
//  CHECK-NEXT:   return %[[P]], %[[D]]
func.func @shared_fill(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %v: tensor<8x8x3x3xf32>) -> (tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%p, %v : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %p, %d : tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 written-in-place

// -----

// Both operands of a concat are made by producers that run one after the
// other: each writes its half of the result. The first half is inserted
// before the second producer starts, and the second takes its slice from
// that: the in-place analysis then sees no conflict.

// CHECK-LABEL: func @concat_two_producers
//       CHECK:   %[[BIG:.*]] = tensor.empty() : tensor<8x8xf32>
//  CHECK-NEXT:   %[[S0:.*]] = tensor.extract_slice %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4x8xf32>) outs(%[[S0]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[S1:.*]] = tensor.extract_slice %[[I0]][4, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[B:.*]] = linalg.negf ins(%{{.*}} : tensor<4x8xf32>) outs(%[[S1]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][4, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   return %[[I1]]
func.func @concat_two_producers(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %e1 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.negf ins(%y : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 2 written-in-place

// -----

// Rotate-half (Llama's rotary embedding): the negated half is written into
// the concat's result; the other operand is a slice of an argument, not made
// by a destination-style op, and is copied.

// CHECK-LABEL: func @rotate_half
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<4x16xf32>
//       CHECK:   %[[LO:.*]] = tensor.extract_slice %[[X]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[HI:.*]] = tensor.extract_slice %[[X]][0, 8] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[BIG:.*]] = tensor.empty() : tensor<4x16xf32>
//  CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[N:.*]] = linalg.negf ins(%[[HI]] : tensor<4x8xf32>) outs(%[[S]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[I0:.*]] = tensor.insert_slice %[[N]] into %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[I1:.*]] = tensor.insert_slice %[[LO]] into %[[I0]][0, 8] [4, 8] [1, 1]
//  CHECK-NEXT:   return %[[I1]]
func.func @rotate_half(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %lo = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %hi = tensor.extract_slice %x[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.negf ins(%hi : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(1) %n, %lo : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-not-produced
// STATS: (S) 1 written-in-place

// -----

// The producers of the two operands interleave: a slice of the result taken
// for the second before the first is inserted would conflict with that
// insertion. The first (in program order) is written in place, the second
// copied.

// CHECK-LABEL: func @concat_interleaved
//       CHECK:   %[[BIG:.*]] = tensor.empty() : tensor<8x8xf32>
//  CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[A0:.*]] = linalg.exp ins(%{{.*}} : tensor<4x8xf32>) outs(%[[S]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
//  CHECK-NEXT:   %[[B:.*]] = linalg.negf ins(%{{.*}} : tensor<4x8xf32>) outs(%[[E2]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[A:.*]] = linalg.abs ins(%[[A0]] : tensor<4x8xf32>) outs(%[[A0]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[BIG]][0, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][4, 0] [4, 8] [1, 1]
//  CHECK-NEXT:   return %[[I1]]
func.func @concat_interleaved(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<8x8xf32> {
  %e1 = tensor.empty() : tensor<4x8xf32>
  %a0 = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.negf ins(%y : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.abs ins(%a0 : tensor<4x8xf32>) outs(%a0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-placement
// STATS: (S) 1 written-in-place

// -----

// A U-Net skip connection: the concat of the upsampled path and the skip is
// padded right away. The upsampled path is written into its place in the
// padded tensor's interior; the skip, which the encoder reads again, is
// copied there.

// CHECK-LABEL: func @pad_of_concat
//       CHECK:   %[[S:.*]] = linalg.exp
//  CHECK-NEXT:   %[[BIG:.*]] = tensor.empty() : tensor<1x4x6x6xf32>
//  CHECK-NEXT:   %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BIG]] : tensor<1x4x6x6xf32>)
//  CHECK-NEXT:   %[[SLICE:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
//  CHECK-NEXT:   %[[U:.*]] = linalg.negf ins(%{{.*}} : tensor<1x2x4x4xf32>) outs(%[[SLICE]] : tensor<1x2x4x4xf32>)
//  CHECK-NEXT:   %[[I0:.*]] = tensor.insert_slice %[[U]] into %[[FILLED]][0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
//  CHECK-NEXT:   %[[I1:.*]] = tensor.insert_slice %[[S]] into %[[I0]][0, 2, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1]
//   CHECK-NOT:   tensor.concat
//   CHECK-NOT:   tensor.pad
//       CHECK:   linalg.abs ins(%[[S]]
//       CHECK:   return %[[I1]]
func.func @pad_of_concat(%x: tensor<1x2x4x4xf32>, %skip: tensor<1x2x4x4xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x2x4x4xf32>
  %s = linalg.exp ins(%skip : tensor<1x2x4x4xf32>) outs(%e1 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e2 = tensor.empty() : tensor<1x2x4x4xf32>
  %u = linalg.negf ins(%x : tensor<1x2x4x4xf32>) outs(%e2 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = tensor.concat dim(1) %u, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x4xf32> to tensor<1x4x6x6xf32>
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %t = linalg.abs ins(%s : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %p, %t : tensor<1x4x6x6xf32>, tensor<1x2x4x4xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS-NEXT: (S) 384 bytes-saved
// STATS-NEXT: (S) 2 candidates
// STATS-NEXT: (S) 1 folded-concats
// STATS: (S) 1 rejected-other-uses
// STATS: (S) 1 written-in-place

// -----

// An insert_slice into a strided subset of a zero fill that is made after
// the producer (a transposed convolution as torch-mlir imports it): the
// fill is moved before the producer, which then writes the strided slice.

// CHECK-LABEL: func @insert_strided
//       CHECK:   %[[BIG:.*]] = tensor.empty() : tensor<2x9x9xf32>
//  CHECK-NEXT:   %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BIG]] : tensor<2x9x9xf32>)
//  CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[Z]][0, 1, 1] [2, 4, 4] [1, 2, 2]
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<2x4x4xf32>) outs(%[[S]] : tensor<2x4x4xf32>)
//  CHECK-NEXT:   %[[I:.*]] = tensor.insert_slice %[[A]] into %[[Z]][0, 1, 1] [2, 4, 4] [1, 2, 2]
//  CHECK-NEXT:   return %[[I]]
func.func @insert_strided(%x: tensor<2x4x4xf32>) -> tensor<2x9x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4xf32>
  %a = linalg.exp ins(%x : tensor<2x4x4xf32>) outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %big = tensor.empty() : tensor<2x9x9xf32>
  %z = linalg.fill ins(%zero : f32) outs(%big : tensor<2x9x9xf32>) -> tensor<2x9x9xf32>
  %i = tensor.insert_slice %a into %z[0, 1, 1] [2, 4, 4] [1, 2, 2] : tensor<2x4x4xf32> into tensor<2x9x9xf32>
  return %i : tensor<2x9x9xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 written-in-place

// -----

// Must not fire: the pad's source is read afterwards (a residual
// connection). Its value must exist on its own; reading it from the padded
// buffer instead would keep the larger buffer alive until the add.

// CHECK-LABEL: func @source_read_afterwards
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<1x4x8x8xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<1x4x8x8xf32>) outs(%[[E]] : tensor<1x4x8x8xf32>)
//  CHECK-NEXT:   tensor.pad %[[A]]
//       CHECK:   linalg.add ins(%[[A]], %{{.*}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @source_read_afterwards(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %a = linalg.exp ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %s = linalg.add ins(%a, %x : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e2 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %p, %s : tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-other-uses
// STATS: (S) 0 written-in-place

// -----

// Must not fire: a producer of the chain has another user (the value it
// writes into is read by another op too).

// CHECK-LABEL: func @producer_other_users
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
//  CHECK-NEXT:   %[[B:.*]] = linalg.negf ins(%[[A]] : tensor<4x4xf32>) outs(%[[A]] : tensor<4x4xf32>)
//  CHECK-NEXT:   tensor.pad %[[B]]
//   CHECK-NOT:   tensor.insert_slice
func.func @producer_other_users(%x: tensor<4x4xf32>) -> (tensor<6x6xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.exp ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.negf ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.pad %b low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %c = linalg.abs ins(%a : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p, %c : tensor<6x6xf32>, tensor<4x4xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-other-uses
// STATS: (S) 0 written-in-place

// -----

// Must not fire: the pad's source is not made by a destination-style op (a
// reshape of an argument, a view of the caller's buffer).

// CHECK-LABEL: func @not_destination_style
//       CHECK:   %[[R:.*]] = tensor.expand_shape
//  CHECK-NEXT:   tensor.pad %[[R]]
//   CHECK-NOT:   tensor.insert_slice
func.func @not_destination_style(%x: tensor<16xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %r = tensor.expand_shape %x [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  %p = tensor.pad %r low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-not-produced
// STATS: (S) 0 written-in-place

// -----

// Must not fire: dynamic sizes (the peak model cannot weigh them).

// CHECK-LABEL: func @dynamic
//       CHECK:   %[[A:.*]] = linalg.exp
//  CHECK-NEXT:   tensor.pad %[[A]]
//   CHECK-NOT:   tensor.insert_slice
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x6xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %a = linalg.exp ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x4xf32> to tensor<?x6xf32>
  return %p : tensor<?x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-dynamic
// STATS: (S) 0 written-in-place

// -----

// Must not fire: the chain's first op reads its tensor.empty (undefined
// contents); writing it into the padded tensor would make it read the
// padding instead.

// CHECK-LABEL: func @reads_undefined
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
//       CHECK:   tensor.pad %[[A]]
//   CHECK-NOT:   tensor.insert_slice
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reads_undefined(%x: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-not-produced
// STATS: (S) 0 written-in-place

// -----

// Must not fire: the padding depends on the position.

// CHECK-LABEL: func @padding_by_position
//       CHECK:   %[[A:.*]] = linalg.exp
//  CHECK-NEXT:   tensor.pad %[[A]]
//   CHECK-NOT:   tensor.insert_slice
func.func @padding_by_position(%x: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.exp ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    tensor.yield %f : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-not-produced
// STATS: (S) 0 written-in-place

// -----

// Must not fire: the padding value is computed after the producer starts
// (it is not a constant that could be made earlier).

// CHECK-LABEL: func @padding_defined_late
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
//  CHECK-NEXT:   %[[V:.*]] = tensor.extract
//  CHECK-NEXT:   tensor.pad %[[A]]
//       CHECK:     tensor.yield %[[V]]
//   CHECK-NOT:   tensor.insert_slice
func.func @padding_defined_late(%x: tensor<4x4xf32>, %y: tensor<2xf32>) -> tensor<6x6xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.exp ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %v = tensor.extract %y[%c0] : tensor<2xf32>
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-placement
// STATS: (S) 0 written-in-place

// -----

// Must not fire: the producer reads a large temporary that dies there.
// Holding the padded tensor from the producer on would put it next to that
// temporary: the modeled peak would go from 17408 to 32768 bytes.

// CHECK-LABEL: func @peak_would_rise
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<16x16xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<16x16xf32>)
//       CHECK:   tensor.pad %[[A]]
//   CHECK-NOT:   tensor.insert_slice
#down = affine_map<(d0, d1) -> (d0 * 4, d1 * 4)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @peak_would_rise(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %t = linalg.exp ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %a = linalg.generic {indexing_maps = [#down, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64x64xf32>) outs(%e2 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x16xf32>
  %p = tensor.pad %a low[24, 24] high[24, 24] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<16x16xf32> to tensor<64x64xf32>
  return %p : tensor<64x64xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 0 modeled-peak-after
// STATS-NEXT: (S) 0 modeled-peak-before
// STATS: (S) 1 rejected-peak
// STATS-NEXT: (S) 0 rejected-placement
// STATS-NEXT: (S) 1 rounds
// STATS-NEXT: (S) 0 written-in-place

// -----

// Must not fire: the insert_slice's destination is read after the
// insertion, so the insertion copies anyway; a producer writing into the
// destination would clobber what that read sees. The in-place analysis
// rejects the rewrite.

// CHECK-LABEL: func @destination_read_later
//       CHECK:   %[[Z:.*]] = linalg.fill
//  CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<4xf32>
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
//  CHECK-NEXT:   tensor.insert_slice %[[A]] into %[[Z]][2] [4] [1]
//   CHECK-NOT:   tensor.extract_slice
func.func @destination_read_later(%x: tensor<4xf32>, %d: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %big = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%big : tensor<8xf32>) -> tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %i = tensor.insert_slice %a into %z[2] [4] [1] : tensor<4xf32> into tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %s = linalg.add ins(%z, %d : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  return %i, %s : tensor<8xf32>, tensor<8xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 rejected-analysis
// STATS: (S) 0 written-in-place

// -----

// A value the chain overwrites in place may be read before that (SiLU:
// x * sigmoid(x) writes into x): the read sees x only, and is done before
// the write. The chain still writes into the padded tensor.

// CHECK-LABEL: func @read_before_overwritten
//       CHECK:   %[[BIG:.*]] = tensor.empty() : tensor<6x6xf32>
//  CHECK-NEXT:   %[[FILLED:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BIG]] : tensor<6x6xf32>)
//  CHECK-NEXT:   %[[S:.*]] = tensor.extract_slice %[[FILLED]][1, 1] [4, 4] [1, 1]
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4x4xf32>) outs(%[[S]] : tensor<4x4xf32>)
//  CHECK-NEXT:   %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
//  CHECK-NEXT:   %[[N:.*]] = linalg.negf ins(%[[A]] : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
//  CHECK-NEXT:   %[[M:.*]] = linalg.mul ins(%[[A]], %[[N]] : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[A]] : tensor<4x4xf32>)
//  CHECK-NEXT:   %[[P:.*]] = tensor.insert_slice %[[M]] into %[[FILLED]][1, 1] [4, 4] [1, 1]
//  CHECK-NEXT:   return %[[P]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @read_before_overwritten(%x: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.exp ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %s = linalg.negf ins(%a : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.mul ins(%a, %s : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.pad %m low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}

// STATS: MemplanEliminateSubsetCopiesPass
// STATS: (S) 1 written-in-place
