// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline)' --mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// Tensor code with a loop and an scf.if through memplan-memory-pipeline. In
// the then-branch the add writes into the exp's result, which dies there
// (memplan-reuse-dying-inputs): that branch needs one buffer. The loop may
// not run (%n iterations), so its temporary stays in its body, freed there by
// memplan. The scf.if result is a branch group: its then- and else-buffers
// (as large as each other) share one offset of a 256-byte pool, allocated
// before the scf.if (memplan's deallocation frees the merged value, which
// owns whichever branch buffer it holds; nothing is left to upstream's). The pool is held next to the returned buffer, which costs nothing:
// upstream holds the scf.if result there too (512 bytes, its peak).

// CHECK-LABEL: func @loop_and_branches
//       CHECK:   scf.for
//       CHECK:     %[[TMP:.*]] = memref.alloc() {{.*}} : memref<64xf32>
//       CHECK:     memref.dealloc %[[TMP]]
//       CHECK:   }
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
//       CHECK:   scf.if
//       CHECK:     %[[T:.*]] = memref.view %[[POOL]][%[[C0:.*]]][]
//       CHECK:     linalg.exp ins(%{{.*}} : memref<64xf32>) outs(%[[T]] : memref<64xf32>)
//       CHECK:     linalg.add ins(%[[T]], %{{.*}} : memref<64xf32>, memref<64xf32>) outs(%[[T]] : memref<64xf32>)
//       CHECK:   } else {
//       CHECK:     memref.view %[[POOL]][%[[C0]]][]
//       CHECK:   }
//       CHECK:   %[[RET:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<256xi8>
//  CHECK-NEXT:   return %[[RET]]

// STATS: MemplanBufferDeallocationPass
// STATS-DAG: (S) 2 freed-by-memplan
// STATS-DAG: (S) 0 functions-left-to-upstream
// STATS: MemplanBufferReusePass
// STATS-DAG: (S) 2 pooled-allocations
// STATS-DAG: (S) 1 branch-groups
// STATS-DAG: (S) 1 skipped-escapes-return
// STATS-DAG: (S) 256 bytes-after
// STATS-DAG: (S) 512 peak-input
// STATS-DAG: (S) 512 peak-planned
// STATS-DAG: (S) 3 heap-allocations-left
func.func @loop_and_branches(%x: tensor<64xf32>, %n: index, %c: i1) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<64xf32> {
    %e = tensor.empty() : tensor<64xf32>
    %t = linalg.exp ins(%acc : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %u = linalg.add ins(%t, %t : tensor<64xf32>, tensor<64xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  }
  %s = scf.if %c -> tensor<64xf32> {
    %e = tensor.empty() : tensor<64xf32>
    %t = linalg.exp ins(%r : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    %e2 = tensor.empty() : tensor<64xf32>
    %u = linalg.add ins(%t, %r : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %u : tensor<64xf32>
  } else {
    %e = tensor.empty() : tensor<64xf32>
    %t = linalg.negf ins(%r : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %t : tensor<64xf32>
  }
  %e3 = tensor.empty() : tensor<64xf32>
  %o = linalg.add ins(%s, %s : tensor<64xf32>, tensor<64xf32>) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  return %o : tensor<64xf32>
}
