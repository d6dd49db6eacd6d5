// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-reuse-dying-inputs lets an elementwise op write into an input that
// dies there instead of a fresh destination, where the in-place analysis
// bufferizes that in place.

// %a dies at the add: the add writes into it, and its tensor.empty goes.

// CHECK-LABEL: func @dying_input
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<64xf32>
//       CHECK:   %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<64xf32>) outs(%[[E]] : tensor<64xf32>)
//  CHECK-NEXT:   %[[S:.*]] = linalg.add ins(%[[A]], %{{.*}} : tensor<64xf32>, tensor<64xf32>) outs(%[[A]] : tensor<64xf32>)
//  CHECK-NEXT:   return %[[S]]
func.func @dying_input(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%a, %y : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// STATS: MemplanReuseDyingInputsPass
// STATS-NEXT: (S) 1 candidates
// STATS-NEXT: (S) 0 rejected
// STATS-NEXT: (S) 1 reused-inputs

// -----

// %a is read again after the add: it does not die there, and the add keeps
// its destination. It dies at the second exp, which writes into it.

// CHECK-LABEL: func @input_read_later
//       CHECK:   %[[A:.*]] = linalg.exp
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<64xf32>
//       CHECK:   linalg.add ins(%[[A]], %{{.*}} : tensor<64xf32>, tensor<64xf32>) outs(%[[E2]] : tensor<64xf32>)
//  CHECK-NEXT:   linalg.exp ins(%[[A]] : tensor<64xf32>) outs(%[[A]] : tensor<64xf32>)
func.func @input_read_later(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%a, %y : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %t = linalg.exp ins(%a : tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  return %s, %t : tensor<64xf32>, tensor<64xf32>
}

// -----

// A function argument is the caller's tensor: never written, even where it
// dies in the function.

// CHECK-LABEL: func @argument
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<64xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<64xf32>) outs(%[[E]] : tensor<64xf32>)
func.func @argument(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %a : tensor<64xf32>
}

// -----

// Same type but another indexing map (a transpose): element i is not read
// where it is written, so the input is not a candidate.

// CHECK-LABEL: func @transposed
//       CHECK:   linalg.exp
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
//       CHECK:   linalg.generic {{.*}} outs(%[[E2]] : tensor<8x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %a = linalg.exp ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

// A loop's iteration argument is the loop's buffer (the init's on the first
// trip, the yielded value's after): it dies at the op but is not a
// candidate, since only buffers the program allocates in straight-line code
// are (the loop body keeps its own destination). (Not runnable: upstream's
// bufferization rejects a loop yield that is not its iteration argument's
// buffer.)

// CHECK-LABEL: func @loop_iteration_argument
//       CHECK:   scf.for {{.*}} iter_args(%[[T:.*]] = %{{.*}})
//  CHECK-NEXT:     %[[E:.*]] = tensor.empty() : tensor<64xf32>
//  CHECK-NEXT:     linalg.exp ins(%[[T]] : tensor<64xf32>) outs(%[[E]] : tensor<64xf32>)
func.func @loop_iteration_argument(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.empty() : tensor<64xf32>
  %init = linalg.exp ins(%x : tensor<64xf32>) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> (tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %a = linalg.exp ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// -----

// The dying value went through an scf.if: its buffer would take a dynamic
// layout, and the returned result a copy. Not a candidate.

// CHECK-LABEL: func @through_branch
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<16xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<16xf32>) outs(%[[E2]] : tensor<16xf32>)
func.func @through_branch(%x: tensor<16xf32>, %c: i1) -> tensor<16xf32> {
  %r = scf.if %c -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %a = linalg.exp ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %a : tensor<16xf32>
  } else {
    %e = tensor.empty() : tensor<16xf32>
    %b = linalg.negf ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %b : tensor<16xf32>
  }
  %e2 = tensor.empty() : tensor<16xf32>
  %s = linalg.exp ins(%r : tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// The analysis has the last word. %v is a view of %a's buffer that is read
// after the add (the cheap last-use filter only sees %a itself): writing %a
// in place would clobber what the later op reads, so the in-place analysis
// puts it out of place and the rewrite is undone.

// CHECK-LABEL: func @alias_read_later
//       CHECK:   tensor.collapse_shape
//       CHECK:   %[[E2:.*]] = tensor.empty() : tensor<4x16xf32>
//       CHECK:   linalg.add ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<4x16xf32>) outs(%[[E2]] : tensor<4x16xf32>)
func.func @alias_read_later(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<4x16xf32>
  %a = linalg.exp ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %s = linalg.add ins(%a, %y : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %w = linalg.exp ins(%v : tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  return %s, %w : tensor<4x16xf32>, tensor<64xf32>
}

// STATS: (S) 1 rejected
// STATS-NEXT: (S) 0 reused-inputs

// -----

// A rewrite that would cost another operand its in-place decision is
// dropped alone. %q, a slice of the fused %qkv, dies at the mul: writing the
// mul into it would write %qkv's buffer while %k, another slice of it, is
// read afterwards, so the slice %q would be copied out of place. That
// candidate keeps its destination. The other two stay: %k dies at the exp
// (the mul read %q before), which writes into it, and %a at the add.

// CHECK-LABEL: func @one_dropped_others_kept
//       CHECK:   %[[Q:.*]] = tensor.extract_slice %{{.*}}[0, 0] [4, 8] [1, 1]
//       CHECK:   %[[K:.*]] = tensor.extract_slice %{{.*}}[0, 8] [4, 8] [1, 1]
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<4x8xf32>
//       CHECK:   %[[QS:.*]] = linalg.mul ins(%[[Q]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[E1]] : tensor<4x8xf32>)
//  CHECK-NEXT:   %[[A:.*]] = linalg.exp ins(%[[K]] : tensor<4x8xf32>) outs(%[[K]] : tensor<4x8xf32>)
//  CHECK-NEXT:   linalg.add ins(%[[A]], %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[A]] : tensor<4x8xf32>)
func.func @one_dropped_others_kept(%x: tensor<4x16xf32>, %w: tensor<16x24xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x24xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %qkv = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x24xf32>) outs(%f : tensor<4x24xf32>) -> tensor<4x24xf32>
  %q = tensor.extract_slice %qkv[0, 0] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %k = tensor.extract_slice %qkv[0, 8] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %qs = linalg.mul ins(%q, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%k : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%a, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %qs, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// STATS: (S) 3 candidates
// STATS-NEXT: (S) 1 rejected
// STATS-NEXT: (S) 2 reused-inputs

// -----

// A fused payload that keeps the importer's cf.assert is still elementwise:
// the assert's write names no buffer (it is the program's abort), so the
// op may write into %a, which dies there.

// CHECK-LABEL: func @assert_in_payload
//       CHECK:   %[[A:.*]] = linalg.exp
//  CHECK-NEXT:   linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<64xf32>, tensor<64xf32>) outs(%[[A]] : tensor<64xf32>)
//       CHECK:     cf.assert
#id1 = affine_map<(d0) -> (d0)>
func.func @assert_in_payload(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %y : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %nz = arith.cmpf one, %in2, %cst : f32
    cf.assert %nz, "division by zero"
    %d = arith.divf %in, %in2 : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A payload that reads memory (a global's element) is not elementwise: it
// could read the buffer the op writes. %a dies at the op, which keeps its
// destination.

// CHECK-LABEL: func @load_in_payload
//       CHECK:   linalg.exp
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<64xf32>
//  CHECK-NEXT:   linalg.generic {{.*}} outs(%[[E2]] : tensor<64xf32>)
#id1 = affine_map<(d0) -> (d0)>
memref.global "private" constant @table : memref<64xf32> = dense<1.0>
func.func @load_in_payload(%x: tensor<64xf32>) -> tensor<64xf32> {
  %g = memref.get_global @table : memref<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %t = memref.load %g[%i] : memref<64xf32>
    %d = arith.addf %in, %t : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Inline assembly with side effects in the payload reads and writes memory
// it does not name (effects on no value): it could read the buffer the op
// writes, so the op is not elementwise. %a dies at the op, which keeps its
// destination.

// CHECK-LABEL: func @asm_in_payload
//       CHECK:   linalg.exp
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<64xf32>
//  CHECK-NEXT:   linalg.generic {{.*}} outs(%[[E2]] : tensor<64xf32>)
#id2 = affine_map<(d0) -> (d0)>
func.func @asm_in_payload(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = llvm.inline_asm has_side_effects "", "=x,x" %in : (f32) -> f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Each input that dies at the op is tried in turn. %q, the first, is a
// slice of %qkv whose sibling %k is read afterwards: writing into it would
// cost the slice its in-place decision, so it is dropped; %a, the second,
// dies there too and takes the result.

// CHECK-LABEL: func @second_input_taken
//       CHECK:   %[[Q:.*]] = tensor.extract_slice %{{.*}}[0, 0] [4, 8] [1, 1]
//       CHECK:   %[[A:.*]] = linalg.exp
//  CHECK-NEXT:   %[[S:.*]] = linalg.add ins(%[[Q]], %[[A]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[A]] : tensor<4x8xf32>)
func.func @second_input_taken(%x: tensor<4x16xf32>, %w: tensor<16x24xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x24xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
  %qkv = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x24xf32>) outs(%f : tensor<4x24xf32>) -> tensor<4x24xf32>
  %q = tensor.extract_slice %qkv[0, 0] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %k = tensor.extract_slice %qkv[0, 8] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%y : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %s = linalg.add ins(%q, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.negf ins(%k : tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s, %n : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A rewrite the rounds keep and the final analysis puts out of place is
// undone, though no other operand changes its decision. %a, the negf's
// input, is the exp's result in %p, which the branch also forwards to %m;
// the return reads %m through the select. The exp's operand %p is out of
// place once decided (the join merges %p with %b, which the branch reads
// after the exp writes). In the round, the negf's operand is decided last,
// after the exp's: %a has a buffer of its own and writing it is in place.
// The final analysis (bottom-up, nothing deferred) decides the negf's
// operand before the exp's: the walk back from %a goes through the exp's
// undecided operand to %p, which %m may be, so the write may clobber what
// the return reads: out of place. The negf keeps its destination.

// CHECK-LABEL: func @kept_in_its_round_out_of_place_at_the_end
//       CHECK:   %[[A:.*]] = linalg.exp
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//  CHECK-NEXT:   linalg.negf ins(%[[A]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
func.func @kept_in_its_round_out_of_place_at_the_end(%x: tensor<8xf32>, %b: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<8xf32>
  %p = linalg.fill ins(%zero : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%p : tensor<8xf32>) -> tensor<8xf32>
  cf.cond_br %c, ^bb1(%p : tensor<8xf32>), ^bb2(%b : tensor<8xf32>)
^bb2(%v: tensor<8xf32>):
  cf.br ^bb1(%v : tensor<8xf32>)
^bb1(%m: tensor<8xf32>):
  cf.br ^bb3
^bb3:
  %e = tensor.empty() : tensor<8xf32>
  %n = linalg.negf ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = arith.select %c, %m, %n : tensor<8xf32>
  return %s : tensor<8xf32>
}

// STATS: (S) 1 rejected
// STATS-NEXT: (S) 0 reused-inputs
