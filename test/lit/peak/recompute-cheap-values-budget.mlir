// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-recompute-cheap-values{remarks=true max-added-work-percent=0})' --verify-diagnostics | FileCheck %s --check-prefix=NONE
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-recompute-cheap-values{max-added-work-percent=50})' | FileCheck %s --check-prefix=HALF

// The work memplan-recompute-cheap-values may add to a function is bounded
// (max-added-work-percent of the loop iterations times payload ops of its
// linalg ops). A broadcast of a constant read by two layers and held across
// the peak between them (three temporaries) is recomputed only where its
// second computation fits: 4096 iterations here, of a function of 24576.

// NONE-LABEL: func @broadcast_read_by_two_layers
//       NONE:   linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>)
//   NONE-NOT:   linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>)

// HALF-LABEL: func @broadcast_read_by_two_layers
//       HALF:   %[[B1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>)
//       HALF:   linalg.add ins(%{{.*}}, %[[B1]] : tensor<64x64xf32>, tensor<64x64xf32>)
//       HALF:   linalg.mul
//       HALF:   %[[B2:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>)
//       HALF:   linalg.add ins(%{{.*}}, %[[B2]] : tensor<64x64xf32>, tensor<64x64xf32>)
#row = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> (d0, d1)>
func.func @broadcast_read_by_two_layers(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %bias = arith.constant dense<0.5> : tensor<64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  // expected-remark @below {{not recomputed: recomputing it adds 4096 units of work, more than 0% of the function's 24576}}
  %b = linalg.generic {indexing_maps = [#row, #all], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %a1 = linalg.add ins(%x, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x1 = linalg.exp ins(%a1 : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %x2 = linalg.exp ins(%x1 : tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e5 = tensor.empty() : tensor<64x64xf32>
  %x3 = linalg.mul ins(%x2, %x1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e5 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e4 = tensor.empty() : tensor<64x64xf32>
  %a2 = linalg.add ins(%x3, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e4 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a2 : tensor<64x64xf32>
}
