// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory{beam-width=1 lookahead=1 branching=1})' | FileCheck %s --check-prefix=GREEDY
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reorder-for-memory{lookahead=0})' 2>&1 | FileCheck %s --check-prefix=BAD

// memplan-reorder-for-memory list-schedules a function body for a lower
// peak, keeping every dependence.

// %a is computed first but only used by the last op: in the importer's order
// it is held while %b and %b2 are live (3 buffers: the adds write into an
// input that dies there, as memplan-reuse-dying-inputs will make them).
// Sinking it to its user needs 2 at most. Each tensor.empty stays right
// before its user.

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
// STATS-DAG: (S) 12288 modeled-peak-before
// STATS-DAG: (S) 8192 modeled-peak-after
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

// Calls have memory effects (no interface says otherwise), so the two calls
// keep their order, though sinking the first one to its only user, as
// @early_branch sinks its exp, would lower the modeled peak.

// CHECK-LABEL: func @calls_keep_order
//       CHECK:   call @produce(%arg0)
//  CHECK-NEXT:   call @produce(%arg1)
func.func private @produce(tensor<1024xf32>) -> tensor<1024xf32>
func.func @calls_keep_order(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = func.call @produce(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  %b = func.call @produce(%y) : (tensor<1024xf32>) -> tensor<1024xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %b2 = linalg.negf ins(%y : tensor<1024xf32>) outs(%e2 : tensor<1024xf32>) -> tensor<1024xf32>
  %e3 = tensor.empty() : tensor<1024xf32>
  %d = linalg.add ins(%b, %b2 : tensor<1024xf32>, tensor<1024xf32>) outs(%e3 : tensor<1024xf32>) -> tensor<1024xf32>
  %e4 = tensor.empty() : tensor<1024xf32>
  %z = linalg.add ins(%a, %d : tensor<1024xf32>, tensor<1024xf32>) outs(%e4 : tensor<1024xf32>) -> tensor<1024xf32>
  return %z : tensor<1024xf32>
}

// -----

// The broadcast %w reads %a, which the add then writes in place; %w is only
// returned, so the schedule would like to compute it last, after the large
// temporaries of the middle. The read stays before the in-place write, and
// the order keeps the gain that is legal: the exp of %y sinks to its user.
// (Were the read allowed to move, the new order would lose the add's
// in-place decision and the whole body would be put back.)

// CHECK-LABEL: func @read_stays_before_in_place_write
//       CHECK:   %[[A:.*]] = linalg.exp ins(%arg0
//  CHECK-NEXT:   tensor.empty() : tensor<8x1024xf32>
//  CHECK-NEXT:   linalg.broadcast ins(%[[A]]
//  CHECK-NEXT:   linalg.add ins(%[[A]], %arg1 : tensor<1024xf32>, tensor<1024xf32>) outs(%[[A]]
//       CHECK:   %[[P:.*]] = linalg.exp ins(%arg1
//       CHECK:   linalg.reduce
//       CHECK:   linalg.add ins(%{{.*}}, %[[P]]
func.func @read_stays_before_in_place_write(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<8x1024xf32>) {
  %ep = tensor.empty() : tensor<1024xf32>
  %p = linalg.exp ins(%y : tensor<1024xf32>) outs(%ep : tensor<1024xf32>) -> tensor<1024xf32>
  %e = tensor.empty() : tensor<1024xf32>
  %a = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %e3 = tensor.empty() : tensor<8x1024xf32>
  %w = linalg.broadcast ins(%a : tensor<1024xf32>) outs(%e3 : tensor<8x1024xf32>) dimensions = [0]
  %s = linalg.add ins(%a, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%a : tensor<1024xf32>) -> tensor<1024xf32>
  %e5 = tensor.empty() : tensor<8x1024xf32>
  %u = linalg.broadcast ins(%s : tensor<1024xf32>) outs(%e5 : tensor<8x1024xf32>) dimensions = [0]
  %e6 = tensor.empty() : tensor<8x1024xf32>
  %v = linalg.negf ins(%u : tensor<8x1024xf32>) outs(%e6 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %e7 = tensor.empty() : tensor<8x1024xf32>
  %r = linalg.add ins(%u, %v : tensor<8x1024xf32>, tensor<8x1024xf32>) outs(%e7 : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e8 : tensor<1024xf32>) -> tensor<1024xf32>
  %red = linalg.reduce ins(%r : tensor<8x1024xf32>) outs(%acc : tensor<1024xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %e9 = tensor.empty() : tensor<1024xf32>
  %out = linalg.add ins(%red, %p : tensor<1024xf32>, tensor<1024xf32>) outs(%e9 : tensor<1024xf32>) -> tensor<1024xf32>
  return %out, %w : tensor<1024xf32>, tensor<8x1024xf32>
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

// -----

// The tanh-GELU of GPT-2 as torch-mlir imports it: 0.5 * x is computed
// first and held while x ** 3 and its chain are. Computed last, it writes
// into x, which dies there, and the chain runs in one buffer besides x: 2
// buffers instead of 3. A greedy list schedule (one schedule, one op
// ahead) does not see it: the two first ops each allocate one buffer.

// CHECK-LABEL: func @gelu_chain
//       CHECK:   %[[X:.*]] = linalg.exp
//       CHECK:   linalg.generic {{.*}} ins(%[[X]] : tensor<64x256xf32>)
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     arith.mulf %{{.*}}, %{{.*}} : f32
//  CHECK-NEXT:     arith.mulf
//       CHECK:   linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<64x256xf32>, tensor<64x256xf32>)
//       CHECK:   %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x256xf32>)
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     arith.mulf %{{.*}}, %cst : f32
//       CHECK:   linalg.generic {{.*}} ins(%[[A]], %{{.*}} : tensor<64x256xf32>, tensor<64x256xf32>)

// GREEDY-LABEL: func @gelu_chain
//       GREEDY:   linalg.exp
//  GREEDY-NEXT:   tensor.empty
//  GREEDY-NEXT:   linalg.generic
//  GREEDY-NEXT:   ^bb0
//  GREEDY-NEXT:     arith.mulf %{{.*}}, %cst :

// BAD: error: memplan-reorder-for-memory: option 'lookahead' must be at least 1, got 0
#g = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_chain(%in: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %e0 = tensor.empty() : tensor<64x256xf32>
  %x = linalg.exp ins(%in : tensor<64x256xf32>) outs(%e0 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<64x256xf32>
  %a = linalg.generic {indexing_maps = [#g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e1 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %half : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  %e2 = tensor.empty() : tensor<64x256xf32>
  %p = linalg.generic {indexing_maps = [#g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e2 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    %m3 = arith.mulf %m, %v : f32
    linalg.yield %m3 : f32
  } -> tensor<64x256xf32>
  %e3 = tensor.empty() : tensor<64x256xf32>
  %q = linalg.generic {indexing_maps = [#g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x256xf32>) outs(%e3 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %c : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  %e4 = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#g, #g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%x, %q : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e4 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %e5 = tensor.empty() : tensor<64x256xf32>
  %t = linalg.generic {indexing_maps = [#g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x256xf32>) outs(%e5 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %k : f32
    %th = math.tanh %m : f32
    linalg.yield %th : f32
  } -> tensor<64x256xf32>
  %e6 = tensor.empty() : tensor<64x256xf32>
  %u = linalg.generic {indexing_maps = [#g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64x256xf32>) outs(%e6 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %one : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %e7 = tensor.empty() : tensor<64x256xf32>
  %z = linalg.generic {indexing_maps = [#g, #g, #g], iterator_types = ["parallel", "parallel"]}
      ins(%a, %u : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e7 : tensor<64x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %m = arith.mulf %v, %w : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %z : tensor<64x256xf32>
}

// STATS: MemplanReorderForMemoryPass
// STATS-DAG: (S) 196608 modeled-peak-before
// STATS-DAG: (S) 131072 modeled-peak-after
// STATS-DAG: (S) 1 reordered

// -----

// The same chain with checks between its ops: the cf.asserts (memory
// effects) keep their order (they need nothing, so they go first), and
// 0.5 * x still moves after the chain.

// CHECK-LABEL: func @gelu_with_checks
//       CHECK:   cf.assert %{{.*}}, "first"
//  CHECK-NEXT:   cf.assert %{{.*}}, "second"
//       CHECK:   math.tanh
//       CHECK:   arith.addf
//       CHECK:   arith.mulf %{{.*}}, %cst :
//       CHECK:   return
#g2 = affine_map<(d0) -> (d0)>
func.func @gelu_with_checks(%in: tensor<16384xf32>, %c1: i1, %c2: i1) -> tensor<16384xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<16384xf32>
  %x = linalg.exp ins(%in : tensor<16384xf32>) outs(%e0 : tensor<16384xf32>) -> tensor<16384xf32>
  %e1 = tensor.empty() : tensor<16384xf32>
  %a = linalg.generic {indexing_maps = [#g2, #g2], iterator_types = ["parallel"]}
      ins(%x : tensor<16384xf32>) outs(%e1 : tensor<16384xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %half : f32
    linalg.yield %m : f32
  } -> tensor<16384xf32>
  cf.assert %c1, "first"
  %e2 = tensor.empty() : tensor<16384xf32>
  %p = linalg.generic {indexing_maps = [#g2, #g2], iterator_types = ["parallel"]}
      ins(%x : tensor<16384xf32>) outs(%e2 : tensor<16384xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<16384xf32>
  %e3 = tensor.empty() : tensor<16384xf32>
  %q = linalg.generic {indexing_maps = [#g2, #g2], iterator_types = ["parallel"]}
      ins(%p : tensor<16384xf32>) outs(%e3 : tensor<16384xf32>) {
  ^bb0(%v: f32, %o: f32):
    %th = math.tanh %v : f32
    linalg.yield %th : f32
  } -> tensor<16384xf32>
  cf.assert %c2, "second"
  %e4 = tensor.empty() : tensor<16384xf32>
  %r = linalg.generic {indexing_maps = [#g2, #g2, #g2], iterator_types = ["parallel"]}
      ins(%x, %q : tensor<16384xf32>, tensor<16384xf32>) outs(%e4 : tensor<16384xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<16384xf32>
  %e5 = tensor.empty() : tensor<16384xf32>
  %z = linalg.generic {indexing_maps = [#g2, #g2, #g2], iterator_types = ["parallel"]}
      ins(%a, %r : tensor<16384xf32>, tensor<16384xf32>) outs(%e5 : tensor<16384xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %m = arith.mulf %v, %w : f32
    linalg.yield %m : f32
  } -> tensor<16384xf32>
  return %z : tensor<16384xf32>
}

// -----

// A value used inside another op's region is a dependence of that op: the
// scf.if reads %p in its branch, so it stays after %p's producer even
// though moving it up would free nothing.

// CHECK-LABEL: func @use_in_region
//       CHECK:   %[[P:.*]] = linalg.exp
//       CHECK:   scf.if
//       CHECK:     linalg.negf ins(%[[P]]
func.func @use_in_region(%x: tensor<1024xf32>, %c: i1) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32>
  %p = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %r = scf.if %c -> tensor<1024xf32> {
    %e2 = tensor.empty() : tensor<1024xf32>
    %n = linalg.negf ins(%p : tensor<1024xf32>) outs(%e2 : tensor<1024xf32>) -> tensor<1024xf32>
    scf.yield %n : tensor<1024xf32>
  } else {
    scf.yield %x : tensor<1024xf32>
  }
  return %p, %r : tensor<1024xf32>, tensor<1024xf32>
}
