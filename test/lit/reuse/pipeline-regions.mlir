// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline)' --mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// Tensor code with a loop and an scf.if through memplan-memory-pipeline. The
// loop's temporary is hoisted into the function pool; the scf.if result,
// which the deallocation pipeline frees through extract_strided_metadata
// after the merge, is a branch group: its then- and else-buffers share offset
// 0, next to the then-branch temporary. Only the returned buffer remains a
// separate allocation.

// CHECK-LABEL: func @loop_and_branches
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//       CHECK:   scf.for
//       CHECK:     memref.view %[[POOL]]
//       CHECK:   scf.if
//       CHECK:     memref.view %[[POOL]][%[[C256:.*]]][]
//       CHECK:     memref.view %[[POOL]][%[[C0:.*]]][]
//       CHECK:   } else {
//       CHECK:     memref.view %[[POOL]][%[[C0]]][]
//       CHECK:   }
//       CHECK:   %[[RET:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
//       CHECK:   memref.extract_strided_metadata
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<512xi8>
//  CHECK-NEXT:   return %[[RET]]

// STATS: MemplanBufferReusePass
// STATS-DAG: (S) 4 pooled-allocations
// STATS-DAG: (S) 1 branch-groups
// STATS-DAG: (S) 1 skipped-escapes-return
// STATS-DAG: (S) 512 bytes-after
// STATS-DAG: (S) 512 pool-lower-bound
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
