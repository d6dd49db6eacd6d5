// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-recompute-cheap-values{remarks=true max-added-work-percent=-1})' --verify-diagnostics | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-recompute-cheap-values)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-recompute-cheap-values{max-added-work-percent=lots})' 2>&1 | FileCheck %s --check-prefix=BAD

// memplan-recompute-cheap-values computes a value whose computation reads
// only constants and scalars again right before each op that uses it,
// where holding it costs bytes at the modeled peak.

// BAD: max-added-work-percent

// A zero fill CSE'd across two layers (as torch-mlir's importer emits it):
// the accumulator of both matmuls. Held from the first layer to the second,
// it is at the peak (the exp's result and the first matmul's result live
// beside it); each matmul gets its own fill, with its own destination, right
// before it. The fills replace the copy bufferization would make for the
// first matmul: no work is added.

// CHECK-LABEL: func @zero_fill_shared_by_two_layers
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<64x64xf32>
//  CHECK-NEXT:   %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<64x64xf32>)
//  CHECK-NEXT:   %[[M1:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[F1]] : tensor<64x64xf32>)
//       CHECK:   linalg.exp
//  CHECK-NEXT:   %[[E2:.*]] = tensor.empty() : tensor<64x64xf32>
//  CHECK-NEXT:   %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<64x64xf32>)
//  CHECK-NEXT:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[F2]] : tensor<64x64xf32>)
//   CHECK-NOT:   linalg.fill
func.func @zero_fill_shared_by_two_layers(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-remark @below {{recomputed at each of its 2 users: holding it (tensor<64x64xf32>, 16384 bytes) costs 16384 bytes at the peak; adds 0 units of work}}
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %a1 = linalg.exp ins(%m1 : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}

// STATS: MemplanRecomputeCheapValuesPass
// STATS-NEXT: (S)     0 added-work
// STATS-NEXT: (S)     1 candidates
// STATS-NEXT: (S)     0 kept
// STATS-NEXT: (S) 32768 modeled-peak-after
// STATS-NEXT: (S) 49152 modeled-peak-before
// STATS-NEXT: (S)     2 recomputations
// STATS-NEXT: (S)     1 recomputed

// -----

// A fill computed long before its only user moves down to it: held beside
// the two exps (the peak: three buffers), it is not needed before the
// matmul.

// CHECK-LABEL: func @moved_down
//       CHECK:   linalg.exp
//       CHECK:   linalg.exp
//  CHECK-NEXT:   tensor.empty() : tensor<64x64xf32>
//  CHECK-NEXT:   linalg.fill
//  CHECK-NEXT:   linalg.matmul
func.func @moved_down(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-remark @below {{moved down to its only user: holding it (tensor<64x64xf32>, 16384 bytes) costs 16384 bytes at the peak; adds 0 units of work}}
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %a = linalg.exp ins(%x : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %b = linalg.exp ins(%a : tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%b, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// A causal mask (index-only generic, then a select of two constants) built
// once and read by the scores of two layers, held across the peak between
// them (three score temporaries): recomputed from the indices before each
// reader, its i1 mask with it; recomputing it reads no tensor but constants.

// CHECK-LABEL: func @causal_mask
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<32x32xi1>)
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<32x32xi1>, tensor<f32>, tensor<f32>)
//       CHECK:   linalg.add
//       CHECK:   linalg.exp
//       CHECK:   linalg.mul
//       CHECK:   linalg.mul
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<32x32xi1>)
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<32x32xi1>, tensor<f32>, tensor<f32>)
//       CHECK:   linalg.add
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @causal_mask(%s1: tensor<32x32xf32>, %s2: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<-1.0e+30> : tensor<f32>
  %eb = tensor.empty() : tensor<32x32xi1>
  %below = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%eb : tensor<32x32xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    linalg.yield %le : i1
  } -> tensor<32x32xi1>
  %em = tensor.empty() : tensor<32x32xf32>
  // expected-remark @below {{recomputed at each of its 2 users: holding it (tensor<32x32xf32>, 4096 bytes) costs 3072 bytes at the peak; adds 4096 units of work}}
  %mask = linalg.generic {indexing_maps = [#id, #scalar, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%below, %zero, %ninf : tensor<32x32xi1>, tensor<f32>, tensor<f32>) outs(%em : tensor<32x32xf32>) {
  ^bb0(%b: i1, %z: f32, %n: f32, %out: f32):
    %v = arith.select %b, %z, %n : f32
    linalg.yield %v : f32
  } -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  %l1 = linalg.add ins(%s1, %mask : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e1 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %x1 = linalg.exp ins(%l1 : tensor<32x32xf32>) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e3 = tensor.empty() : tensor<32x32xf32>
  %x2 = linalg.mul ins(%x1, %s2 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e3 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e5 = tensor.empty() : tensor<32x32xf32>
  %x3 = linalg.mul ins(%x2, %x1 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e5 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e4 = tensor.empty() : tensor<32x32xf32>
  %l2 = linalg.add ins(%x3, %mask : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e4 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %l2 : tensor<32x32xf32>
}

// -----

// Not recomputed: a fill read as an input by the op at the peak (the mul:
// the fill, the add's result and its own), then the matmul's accumulator.
// Its copy would be live at the peak as the fill is: recomputing it would
// add a fill per reader and free nothing there.

// CHECK-LABEL: func @fill_read_as_input
//       CHECK:   linalg.fill
//   CHECK-NOT:   linalg.fill
func.func @fill_read_as_input(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-remark @below {{not recomputed: holding it costs no bytes at the peak}}
  %ones = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %a = linalg.add ins(%x, %ones : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %b = linalg.mul ins(%a, %ones : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%ones : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %b, %m : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// Not recomputed: the value is small, but computing it again holds a large
// index tensor (the iota it reduces) right before the op at the peak, more
// than holding the value costs there.

// CHECK-LABEL: func @clone_would_raise_the_peak
//       CHECK:   linalg.generic
//       CHECK:   linalg.fill
//       CHECK:   linalg.generic
//   CHECK-NOT:   linalg.fill
#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @clone_would_raise_the_peak(%x: tensor<64xi64>, %y: tensor<64x32xi64>) -> (tensor<64xi64>, tensor<64x32xi64>) {
  %c0 = arith.constant 0 : i64
  %ei = tensor.empty() : tensor<64x256xi64>
  %iota = linalg.generic {indexing_maps = [#map0], iterator_types = ["parallel", "parallel"]} outs(%ei : tensor<64x256xi64>) {
  ^bb0(%out: i64):
    %j = linalg.index 1 : index
    %v = arith.index_cast %j : index to i64
    linalg.yield %v : i64
  } -> tensor<64x256xi64>
  %es = tensor.empty() : tensor<64xi64>
  %z = linalg.fill ins(%c0 : i64) outs(%es : tensor<64xi64>) -> tensor<64xi64>
  // expected-remark @below {{not recomputed: recomputing it would hold more bytes at the peak}}
  %sum = linalg.generic {indexing_maps = [#map0, #map1], iterator_types = ["parallel", "reduction"]} ins(%iota : tensor<64x256xi64>) outs(%z : tensor<64xi64>) {
  ^bb0(%in: i64, %out: i64):
    %a = arith.addi %in, %out : i64
    linalg.yield %a : i64
  } -> tensor<64xi64>
  %e1 = tensor.empty() : tensor<64xi64>
  %a1 = linalg.add ins(%x, %sum : tensor<64xi64>, tensor<64xi64>) outs(%e1 : tensor<64xi64>) -> tensor<64xi64>
  %e2 = tensor.empty() : tensor<64x32xi64>
  %big = linalg.generic {indexing_maps = [#map0, #map1, #map0], iterator_types = ["parallel", "parallel"]} ins(%y, %sum : tensor<64x32xi64>, tensor<64xi64>) outs(%e2 : tensor<64x32xi64>) {
  ^bb0(%in: i64, %s: i64, %out: i64):
    %b = arith.muli %in, %s : i64
    linalg.yield %b : i64
  } -> tensor<64x32xi64>
  return %a1, %big : tensor<64xi64>, tensor<64x32xi64>
}

// -----

// Not recomputed: a fill computed in a loop body, used twice there:
// recomputing it in the body would repeat the fill on every iteration.

// CHECK-LABEL: func @fill_in_loop
//       CHECK:   scf.for
//       CHECK:     linalg.fill
//   CHECK-NOT:     linalg.fill
func.func @fill_in_loop(%x: tensor<16x16xf32>, %n: index) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<16x16xf32> {
    %e = tensor.empty() : tensor<16x16xf32>
    // expected-remark @below {{not recomputed: it is computed in a region (a loop body or a branch), where recomputing it repeats the work on every run}}
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
    %m1 = linalg.matmul ins(%acc, %acc : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
    %m2 = linalg.matmul ins(%m1, %acc : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
    %s = linalg.add ins(%m2, %acc : tensor<16x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<16x16xf32>) -> tensor<16x16xf32>
    scf.yield %s : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}

// -----

// Not recomputed: a fill of dynamic size: its bytes at the peak are not
// known.

// CHECK-LABEL: func @dynamic_fill
//       CHECK:   linalg.fill
//   CHECK-NOT:   linalg.fill
func.func @dynamic_fill(%x: tensor<?x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%d) : tensor<?x64xf32>
  // expected-remark @below {{not recomputed: its size is dynamic: its bytes at the peak are not known}}
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<?x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e2 = tensor.empty(%d) : tensor<?x64xf32>
  %a1 = linalg.exp ins(%m1 : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<?x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %m2 : tensor<?x64xf32>
}

// -----

// Not a candidate: a value computed from an argument (a matmul of a weight)
// is not cheap, however far it is held.

// CHECK-LABEL: func @not_cheap
//       CHECK:   linalg.matmul
//       CHECK:   linalg.exp
//       CHECK:   linalg.add
//   CHECK-NOT:   linalg.matmul
func.func @not_cheap(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%x : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %a = linalg.exp ins(%x : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %b = linalg.add ins(%a, %m : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %b : tensor<64x64xf32>
}


// -----

// Not recomputed: an empty tensor a user reads through a view (the cast's
// return). Bufferized, that read sees what the exp wrote into the shared
// buffer; a tensor.empty of its own would hand it other bytes. (Not
// runnable: the result holds undefined elements.)

// CHECK-LABEL: func @undefined_contents_read
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
//       CHECK:   tensor.cast %[[E]]
func.func @undefined_contents_read(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  // expected-remark @below {{not recomputed: its contents are undefined and a user reads them: bufferized, it reads what another user wrote}}
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{not recomputed: its contents are undefined and a user reads them: bufferized, it reads what another user wrote}}
  %r = tensor.cast %e : tensor<8xf32> to tensor<?xf32>
  return %a, %r : tensor<8xf32>, tensor<?xf32>
}

// -----

// Not recomputed: a value whose computation has memory effects (here
// bufferization.alloc_tensor, which allocates) though it reads only
// constants and holding it costs bytes at the peak, as the zero fill of
// @zero_fill_shared_by_two_layers does: a clone would repeat the effects.

// CHECK-LABEL: func @effects_not_recomputed
//       CHECK:   bufferization.alloc_tensor()
//       CHECK:   linalg.fill
//   CHECK-NOT:   bufferization.alloc_tensor()
//   CHECK-NOT:   linalg.fill
func.func @effects_not_recomputed(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = bufferization.alloc_tensor() : tensor<64x64xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %a1 = linalg.exp ins(%m1 : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%a1, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%zero : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}
