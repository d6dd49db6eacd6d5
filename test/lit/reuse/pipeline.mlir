// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline)' --mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: memplan-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, func.func(optimize-allocation-liveness), memplan-buffer-reuse)' | FileCheck %s

// memplan-memory-pipeline runs upstream bufferization and deallocation, then
// optimize-allocation-liveness, then memplan-buffer-reuse; it spells out to
// the pipeline of the third RUN line. The MLP's two 8 KiB hidden buffers
// overlap (the bias+relu reads one and writes the other). One pool of both
// would be held until the last matmul, next to the returned result: 16384 +
// 2048 bytes, above upstream's peak of 16384 (both hidden buffers). So they
// stay separate allocations: the heap peak never goes above upstream's.

// CHECK-LABEL: func @mlp
//   CHECK-NOT:   memref.view
//       CHECK:   %[[H:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x128xf32>
//       CHECK:   %[[HB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x128xf32>
//       CHECK:   memref.dealloc %[[H]]
//       CHECK:   %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
//       CHECK:   linalg.matmul ins(%[[HB]], %{{.*}}) outs(%[[Y]] : memref<16x32xf32>)
//  CHECK-NEXT:   memref.dealloc %[[HB]]
//  CHECK-NEXT:   return %[[Y]]

// STATS: MemplanBufferReusePass
// STATS-DAG: (S) 1 skipped-escapes-return
// STATS-DAG: (S) 2 skipped-alone
// STATS-DAG: (S) 16384 peak-upstream
// STATS-DAG: (S) 16384 peak-planned
// STATS-DAG: (S) 16384 peak-lower-bound
// STATS-DAG: (S) 3 heap-allocations-left
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
               %w2: tensor<128x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x128xf32>)
                     outs(%f1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %e2 = tensor.empty() : tensor<16x128xf32>
  %hb = linalg.generic {indexing_maps = [#map, #bias, #map],
                        iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<16x128xf32>, tensor<128xf32>) outs(%e2 : tensor<16x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x128xf32>
  %e3 = tensor.empty() : tensor<16x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%hb, %w2 : tensor<16x128xf32>, tensor<128x32xf32>)
                     outs(%f3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
