// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline)' --mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-split-destinations, memplan-reuse-dying-inputs, memplan-one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, memplan-buffer-deallocation, memplan-buffer-reuse)' | FileCheck %s
// RUN: memplan-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, func.func(optimize-allocation-liveness), memplan-buffer-liveness{format=none})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=UPSTREAM

// memplan-memory-pipeline spells out to the pipeline of the third RUN line.
// The MLP's bias+relu reads the first hidden buffer element by element and
// the buffer dies there: memplan-reuse-dying-inputs makes it write its
// result into that buffer, so one 8 KiB hidden buffer remains, freed by
// memplan-buffer-deallocation right after the second matmul (upstream's
// deallocation passes do not run: nothing is left for them). The heap peaks
// at 8192 + 2048 bytes, where upstream's pipeline holds both 8 KiB hidden
// buffers (16384, fourth RUN line). A pool of the two remaining buffers
// would not lower the peak, so they stay on the heap.

// CHECK-LABEL: func @mlp
//   CHECK-NOT:   memref.view
//       CHECK:   %[[H:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x128xf32>
//       CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : memref<16x64xf32>, memref<64x128xf32>) outs(%[[H]] : memref<16x128xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[H]], %{{.*}} : memref<16x128xf32>, memref<128xf32>) outs(%[[H]] : memref<16x128xf32>)
//       CHECK:   %[[Y:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
//       CHECK:   linalg.matmul ins(%[[H]], %{{.*}}) outs(%[[Y]] : memref<16x32xf32>)
//  CHECK-NEXT:   memref.dealloc %[[H]]
//  CHECK-NEXT:   return %[[Y]]

// STATS: MemplanReuseDyingInputsPass
// STATS: (S) 1 reused-inputs
// STATS: MemplanBufferDeallocationPass
// STATS-DAG: (S) 1 freed-by-memplan
// STATS-DAG: (S) 0 functions-left-to-upstream
// STATS: MemplanBufferReusePass
// STATS-DAG: (S) 1 skipped-escapes-return
// STATS-DAG: (S) 1 skipped-alone
// STATS-DAG: (S) 10240 peak-input
// STATS-DAG: (S) 10240 peak-planned
// STATS-DAG: (S) 2 heap-allocations-left

// UPSTREAM: (S) 16384 heap-peak-input
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
