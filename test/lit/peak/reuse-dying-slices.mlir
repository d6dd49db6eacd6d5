// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs)' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// An input that is a slice of a larger tensor dying with it holds all of
// that tensor's buffer once the result is written into it, for as long as
// the result lives: memplan-reuse-dying-inputs takes it only where that
// does not raise the block's modeled peak.

// %s is a quarter of %big, which dies at the slice. %h lives across %big2:
// written into %s, it would hold %big's 4096 bytes next to %big2's (8192
// at the peak, against 6144 with its own 1024 bytes): the tanh keeps its
// destination. The add's inputs are both still needed or slices that would
// hold %big2 alone: it writes into %h, which dies there.

// CHECK-LABEL: func @slice_held_across_a_larger_buffer
//       CHECK:   %[[S:.*]] = tensor.extract_slice
//       CHECK:   %[[E1:.*]] = tensor.empty() : tensor<16x16xf32>
//       CHECK:   %[[H:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<16x16xf32>) outs(%[[E1]] : tensor<16x16xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<16x16xf32>, tensor<16x16xf32>) outs(%[[H]] : tensor<16x16xf32>)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @slice_held_across_a_larger_buffer(%a: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %e0 = tensor.empty() : tensor<64x16xf32>
  %big = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x16xf32>) outs(%e0 : tensor<64x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<64x16xf32>
  %s = tensor.extract_slice %big[48, 0] [16, 16] [1, 1] : tensor<64x16xf32> to tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %h = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.tanh %in : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %big2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x16xf32>) outs(%e2 : tensor<64x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.sin %in : f32
    linalg.yield %x : f32
  } -> tensor<64x16xf32>
  %t = tensor.extract_slice %big2[16, 0] [16, 16] [1, 1] : tensor<64x16xf32> to tensor<16x16xf32>
  %e3 = tensor.empty() : tensor<16x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %t : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e3 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %x = arith.addf %in, %in2 : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// STATS: MemplanReuseDyingInputsPass
// STATS-NEXT: (S) 1 candidates
// STATS-NEXT: (S) 0 rejected
// STATS-NEXT: (S) 1 reused-inputs

// -----

// The same slice with nothing held across %h: %big is the peak either way
// (4096 + 1024 while the tanh runs, without the slice taken), so %h is
// written into %s and the peak drops to 4096.

// CHECK-LABEL: func @slice_where_the_larger_buffer_is_the_peak
//       CHECK:   %[[S:.*]] = tensor.extract_slice
//   CHECK-NOT:   tensor.empty() : tensor<16x16xf32>
//       CHECK:   linalg.generic {{.*}} ins(%[[S]] : tensor<16x16xf32>) outs(%[[S]] : tensor<16x16xf32>)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @slice_where_the_larger_buffer_is_the_peak(%a: tensor<64x16xf32>) -> tensor<16x16xf32> {
  %e0 = tensor.empty() : tensor<64x16xf32>
  %big = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x16xf32>) outs(%e0 : tensor<64x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<64x16xf32>
  %s = tensor.extract_slice %big[48, 0] [16, 16] [1, 1] : tensor<64x16xf32> to tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %h = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.tanh %in : f32
    linalg.yield %x : f32
  } -> tensor<16x16xf32>
  return %h : tensor<16x16xf32>
}

// STATS: MemplanReuseDyingInputsPass
// STATS-NEXT: (S) 1 candidates
// STATS-NEXT: (S) 0 rejected
// STATS-NEXT: (S) 1 reused-inputs
