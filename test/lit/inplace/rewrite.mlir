// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{allow-return-allocs-from-loops})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s

// Rewrite mode: memplan decides, materializes its copies as
// bufferization.alloc_tensor, and upstream rewrites to memrefs. The memref IR
// must be identical to upstream's own run (same allocations and copies).

// extract_slice becomes a subview, never a copy.
// CHECK-LABEL: func @extract_slice_fun
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: memref.subview %arg0[0] [4] [1]
// CHECK: memref.subview %arg1[0] [8] [1]
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return %subview, %subview_0
func.func @extract_slice_fun(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}) -> (tensor<4xf32>, tensor<8xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.extract_slice %B[0][8][1] : tensor<?xf32> to tensor<8xf32>
  return %r0, %r1: tensor<4xf32>, tensor<8xf32>
}
// -----
// The non-writable %A is copied into a new buffer before the insert; the
// writable %B is written through a subview and returned itself.
// CHECK-LABEL: func @insert_slice_fun
// CHECK: %[[ALLOC:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xf32>
// CHECK: memref.copy %arg0, %[[ALLOC]] :
// CHECK: %[[SV:.*]] = memref.subview %[[ALLOC]][0] [4] [1]
// CHECK: memref.copy %arg2, %[[SV]] :
// CHECK-NOT: memref.alloc
// CHECK: %[[SV_B:.*]] = memref.subview %arg1[0] [4] [1]
// CHECK: memref.copy %arg2, %[[SV_B]] :
// CHECK: return %[[ALLOC]], %arg1
func.func @insert_slice_fun(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %C : tensor<4xf32> {bufferization.writable = false}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.insert_slice %C into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r1 = tensor.insert_slice %C into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r0, %r1: tensor<?xf32>, tensor<?xf32>
}
// -----
// The first two matmuls accumulate into copies of %B; the last one into %B.
// CHECK-LABEL: func @conflict_on_B
// CHECK: %[[A1:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: memref.copy %arg1, %[[A1]] :
// CHECK: linalg.matmul ins(%arg0, %arg1 : {{.*}} outs(%[[A1]] :
// CHECK: %[[A2:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: memref.copy %arg1, %[[A2]] :
// CHECK: linalg.matmul ins(%arg1, %arg0 : {{.*}} outs(%[[A2]] :
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul ins(%arg0, %arg0 : {{.*}} outs(%arg1 :
// CHECK: return %[[A1]], %[[A2]], %arg1
func.func @conflict_on_B(%A : tensor<4x4xf32> {bufferization.writable = true}, %B : tensor<4x4xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %C = linalg.matmul  ins(%A, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  %D = linalg.matmul  ins(%B, %A: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  %E = linalg.matmul  ins(%A, %A: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  return %C, %D, %E: tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// Chains of extract_slice are chains of subviews.
// CHECK-LABEL: func @extract_slice_extract_slice
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return %subview_0, %subview_2
func.func @extract_slice_extract_slice(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = false}) -> (tensor<2xf32>, tensor<2xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.extract_slice %r0[0][2][1] : tensor<4xf32> to tensor<2xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.extract_slice %r2[0][2][1] : tensor<4xf32> to tensor<2xf32>
  return %r1, %r3: tensor<2xf32>, tensor<2xf32>
}
// -----
// Writable destinations are written in place (copies into subviews only);
// the non-writable %B2 and %B are each copied into a new buffer first.
// CHECK-LABEL: func @insert_slice_insert_slice
// CHECK-NOT: memref.alloc
// CHECK: memref.copy %arg2, %subview
// CHECK: memref.copy %arg1, %subview_0
// CHECK: %[[B2:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: memref.copy %arg4, %[[B2]] :
// CHECK: %[[B:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xf32>
// CHECK: memref.copy %arg3, %[[B]] :
// CHECK: memref.copy %[[B2]], %{{.*}}
// CHECK: return %arg0, %[[B]] :
func.func @insert_slice_insert_slice(%A : tensor<?xf32> {bufferization.writable = true}, %A2 : tensor<4xf32> {bufferization.writable = true}, %A3 : tensor<2xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = false}, %B2 : tensor<4xf32> {bufferization.writable = false}, %B3 : tensor<2xf32> {bufferization.writable = false}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.insert_slice %A3 into %A2[0][2][1] : tensor<2xf32> into tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.insert_slice %B3 into %B2[0][2][1] : tensor<2xf32> into tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// The slice inserted at another offset is first copied out into a new
// buffer (the insert would overwrite what it reads).
// CHECK-LABEL: func @extract_slice_nonmatching_insert_slice
// CHECK: %[[SV:.*]] = memref.subview %arg0[0] [4] [1]
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: memref.copy %[[SV]], %[[ALLOC]] :
// CHECK: %[[DST:.*]] = memref.subview %arg0[%arg2] [4] [1]
// CHECK: memref.copy %[[ALLOC]], %[[DST]] :
// CHECK: %[[ALLOC2:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: return %arg0, %arg1
func.func @extract_slice_nonmatching_insert_slice(%A : tensor<?xf32>, %B : tensor<?xf32> {bufferization.writable = true}, %idx: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[%idx][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[%idx][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// Put back where it came from: no buffer is allocated (the insert is a copy
// between two subviews of the same region).
// CHECK-LABEL: func @extract_slice_matching_insert_slice
// CHECK-NOT: memref.alloc
// CHECK: return %arg0, %arg1
func.func @extract_slice_matching_insert_slice(%A : tensor<?xf32>, %B : tensor<?xf32> {bufferization.writable = true}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// The fill writes the subview of %A directly; the read after the insert
// reads that subview. No allocation.
// CHECK-LABEL: func @read_of_matching_insert_slice_source
// CHECK-NOT: memref.alloc
// CHECK: %[[SV:.*]] = memref.subview %arg0[%arg1] [%arg1] [1]
// CHECK: linalg.fill {{.*}} outs(%[[SV]] :
// CHECK: vector.transfer_read %[[SV]][
// CHECK: return %arg0
func.func @read_of_matching_insert_slice_source(%A : tensor<?xf32> {bufferization.writable = true}, %idx : index, %idx2 : index) -> (tensor<?xf32>, vector<5xf32>) {
  %cst = arith.constant 0.0 : f32
  %cst2 = arith.constant 1.0 : f32
  %0 = tensor.extract_slice %A[%idx][%idx][1] : tensor<?xf32> to tensor<?xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?xf32>) -> tensor<?xf32>
  %2 = tensor.insert_slice %1 into %A[%idx][%idx][1] : tensor<?xf32> into tensor<?xf32>
  %3 = vector.transfer_read %1[%idx2], %cst2 : tensor<?xf32>, vector<5xf32>
  return %2, %3 : tensor<?xf32>, vector<5xf32>
}
// -----
// The first fill goes into a new buffer (not initialized: the fill
// overwrites all of it) that the later read reads; the second fill writes a
// subview of %A directly.
// CHECK-LABEL: func @read_of_matching_insert_slice_source_interleaved
// CHECK: %[[ALLOC:.*]] = memref.alloc(%arg1)
// CHECK-NOT: memref.copy {{.*}}, %[[ALLOC]] :
// CHECK: linalg.fill {{.*}} outs(%[[ALLOC]] :
// CHECK: memref.copy %[[ALLOC]], %{{.*}}
// CHECK: %[[SV2:.*]] = memref.subview %arg0[%arg3] [%arg3] [1]
// CHECK: linalg.fill {{.*}} outs(%[[SV2]] :
// CHECK: vector.transfer_read %[[ALLOC]][
// CHECK-NOT: memref.alloc
// CHECK: return %arg0
func.func @read_of_matching_insert_slice_source_interleaved(%A : tensor<?xf32> {bufferization.writable = true}, %idx : index, %idx2 : index, %idx3 : index) -> (tensor<?xf32>, vector<5xf32>) {
  %cst = arith.constant 0.0 : f32
  %cst2 = arith.constant 1.0 : f32
  %0 = tensor.extract_slice %A[%idx][%idx][1] : tensor<?xf32> to tensor<?xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?xf32>) -> tensor<?xf32>
  %2 = tensor.insert_slice %1 into %A[%idx][%idx][1] : tensor<?xf32> into tensor<?xf32>
  %4 = tensor.extract_slice %2[%idx3][%idx3][1] : tensor<?xf32> to tensor<?xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<?xf32>) -> tensor<?xf32>
  %3 = vector.transfer_read %1[%idx2], %cst2 : tensor<?xf32>, vector<5xf32>
  %6 = tensor.insert_slice %5 into %2[%idx3][%idx3][1] : tensor<?xf32> into tensor<?xf32>
  return %6, %3 : tensor<?xf32>, vector<5xf32>
}
// -----
// The first matmul accumulates into a copy of %B, the second into %C.
// CHECK-LABEL: func @extract_slice_linalg_readonly_use
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: memref.copy %arg1, %[[ALLOC]] :
// CHECK: linalg.matmul {{.*}} outs(%[[ALLOC]] :
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul {{.*}} outs(%arg2 :
// CHECK: return %[[ALLOC]], %arg2
func.func @extract_slice_linalg_readonly_use(%A : tensor<?x?xf32>, %B : tensor<4x4xf32>, %C : tensor<4x4xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %sA = tensor.extract_slice %A[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %D = linalg.matmul ins(%sA, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B : tensor<4x4xf32>) -> tensor<4x4xf32>
  %E = linalg.matmul ins(%sA, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%C : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %D, %E: tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// The first matmul accumulates into a copy of the slice of %B (which the
// second matmul reads unchanged); the second into a subview of %C.
// CHECK-LABEL: func @extract_slice_to_linalg_write_use
// CHECK: %[[SB:.*]] = memref.subview %arg1[0, 0] [4, 4] [1, 1]
// CHECK: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: memref.copy %[[SB]], %[[ALLOC]] :
// CHECK: linalg.matmul {{.*}} outs(%[[ALLOC]] :
// CHECK: %[[SC:.*]] = memref.subview %arg2[0, 0] [4, 4] [1, 1]
// CHECK-NOT: memref.alloc
// CHECK: linalg.matmul ins(%arg0, %[[SB]] : {{.*}} outs(%[[SC]] :
// CHECK: return %[[ALLOC]], %[[SC]] :
func.func @extract_slice_to_linalg_write_use(%A : tensor<4x4xf32>, %B : tensor<?x?xf32>, %C : tensor<?x?xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %sB = tensor.extract_slice %B[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %D = linalg.matmul ins(%B, %C: tensor<?x?xf32>, tensor<?x?xf32>) outs(%sB : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sC = tensor.extract_slice %C[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %E = linalg.matmul ins(%A, %sB: tensor<4x4xf32>, tensor<4x4xf32>) outs(%sC : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %D, %E: tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// The matmul writes a subview of %C directly; no allocation.
// CHECK-LABEL: func @insert_slice_double_extract
// CHECK-NOT: memref.alloc
// CHECK: %[[SV:.*]] = memref.subview %arg7[%arg3, %arg4] [%arg1, %arg2] [1, 1]
// CHECK: linalg.matmul {{.*}} outs(%[[SV]] :
// CHECK: return %arg7
func.func @insert_slice_double_extract(%arg2: tensor<62x90xf32> {bufferization.writable = true}, %s1: index, %s2: index, %s3: index, %s4: index, %A: tensor<8x6xf32>, %B: tensor<6x6xf32>, %C: tensor<30x20xf32> {bufferization.writable = true}) -> tensor<30x20xf32> {
  %15 = tensor.extract_slice %C[%s3, %s4] [%s1, %s2] [1, 1] : tensor<30x20xf32> to tensor<?x?xf32>
  %18 = linalg.matmul ins(%A, %B : tensor<8x6xf32>, tensor<6x6xf32>) outs(%15 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %19 = tensor.extract_slice %18[0, 0] [%s1, %s2] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %20 = tensor.insert_slice %19 into %C[%s3, %s4] [%s1, %s2] [1, 1] : tensor<?x?xf32> into tensor<30x20xf32>
  return %20 : tensor<30x20xf32>
}
// -----
// Only the inner slice of %C (sizes not provably matching) gets a new
// buffer, uninitialized since the fill overwrites it, then copied back.
// CHECK-LABEL: func @nested_extract_slice_and_insert
// CHECK-NOT: memref.alloc
// CHECK: %[[ALLOC:.*]] = memref.alloc(%arg4) {{.*}} : memref<?x4xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[ALLOC]] :
// CHECK: %[[DST:.*]] = memref.subview %{{.*}}[0, 0] [%arg5, 4] [1, 1]
// CHECK: memref.copy %[[ALLOC]], %[[DST]] :
// CHECK-NOT: memref.alloc
// CHECK: return %arg0, %arg1, %arg2
func.func @nested_extract_slice_and_insert(%A : tensor<?x?xf32>, %B : tensor<?x?xf32> {bufferization.writable = true}, %C : tensor<?x?xf32> {bufferization.writable = true}, %idx : index, %sz1 : index, %sz2 : index) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %f0 = arith.constant 0.0 : f32
  %sA = tensor.extract_slice %A[0, 0][%idx, %idx][1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %ssA = tensor.extract_slice %sA[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %FA = linalg.fill ins(%f0 : f32) outs(%ssA : tensor<4x4xf32>) -> tensor<4x4xf32>
  %rsA = tensor.insert_slice %FA into %sA[0, 0][4, 4][1, 1] : tensor<4x4xf32> into tensor<?x?xf32>
  %rA = tensor.insert_slice %rsA into %A[0, 0][%idx, %idx][1, 1] : tensor<?x?xf32> into tensor<?x?xf32>
  %sB = tensor.extract_slice %B[0, 0][%idx, %idx][1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %ssB = tensor.extract_slice %sB[0, 0][4, %idx][1, 1] : tensor<?x?xf32> to tensor<4x?xf32>
  %FB = linalg.fill ins(%f0 : f32) outs(%ssB : tensor<4x?xf32>) -> tensor<4x?xf32>
  %rssB = tensor.insert_slice %FB into %sB[0, 0][4, %idx][1, 1] : tensor<4x?xf32> into tensor<?x?xf32>
  %rsB = tensor.insert_slice %rssB into %B[0, 0][%idx, %idx][1, 1] : tensor<?x?xf32> into tensor<?x?xf32>
  %sC = tensor.extract_slice %C[0, 0][%sz1, %sz2][1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %ssC = tensor.extract_slice %sC[0, 0][%sz1, 4][1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %FC = linalg.fill ins(%f0 : f32) outs(%ssC : tensor<?x4xf32>) -> tensor<?x4xf32>
  %rsC = tensor.insert_slice %FC into %sC[0, 0][%sz2, 4][1, 1] : tensor<?x4xf32> into tensor<?x?xf32>
  %rC = tensor.insert_slice %rsC into %C[0, 0][%sz1, %sz2][1, 1] : tensor<?x?xf32> into tensor<?x?xf32>
  return %rA, %rsB, %rC: tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
// -----
// The non-writable %A is copied once before its loop; %B's loop runs on %B.
// CHECK-LABEL: func @scf_for_yield_only
// CHECK: %[[ALLOC:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xf32>
// CHECK: memref.copy %arg0, %[[ALLOC]] :
// CHECK: %[[R0:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ALLOC]])
// CHECK-NOT: memref.alloc
// CHECK: %[[R1:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %arg1)
// CHECK: return %[[R0]], %[[R1]] :
func.func @scf_for_yield_only(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    scf.yield %t : tensor<?xf32>
  }
  %r1 = scf.for %i = %lb to %ub step %step iter_args(%t = %B) -> (tensor<?xf32>) {
    scf.yield %t : tensor<?xf32>
  }
  return %r0, %r1: tensor<?xf32>, tensor<?xf32>
}
// -----
// One copy of %A at loop entry; inside the loop only copies into subviews.
// CHECK-LABEL: func @scf_for_with_tensor.insert_slice
// CHECK: %[[ALLOC:.*]] = memref.alloc(%{{.*}})
// CHECK: memref.copy %arg0, %[[ALLOC]] :
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %[[ALLOC]], %{{.*}} = %arg1)
// CHECK-NOT: memref.alloc
// CHECK: memref.copy %arg2, %subview :
// CHECK: memref.copy %arg2, %subview_0 :
// CHECK: scf.yield
func.func @scf_for_with_tensor.insert_slice(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %C : tensor<4xf32> {bufferization.writable = false}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0:2 = scf.for %i = %lb to %ub step %step iter_args(%tA = %A, %tB = %B) -> (tensor<?xf32>, tensor<?xf32>) {
    %ttA = tensor.insert_slice %C into %tA[0][4][1] : tensor<4xf32> into tensor<?xf32>
    %ttB = tensor.insert_slice %C into %tB[0][4][1] : tensor<4xf32> into tensor<?xf32>
    scf.yield %ttA, %ttB : tensor<?xf32>, tensor<?xf32>
  }
  return %r0#0, %r0#1: tensor<?xf32>, tensor<?xf32>
}
// -----
// Each call gets a fresh copy of the iter_arg; the first loop runs on a copy
// of %A, the second on %A itself.
// CHECK-LABEL: func @scf_for_deps
// CHECK: %[[ALLOC:.*]] = memref.alloc(%{{.*}})
// CHECK: memref.copy %arg0, %[[ALLOC]] :
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %[[ALLOC]])
// CHECK: %[[C:.*]] = memref.alloc(
// CHECK: memref.copy %[[T]], %[[C]] :
// CHECK: func.call @some_use(
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[T2:.*]] = %arg0)
// CHECK: %[[C2:.*]] = memref.alloc(
// CHECK: memref.copy %[[T2]], %[[C2]] :
// CHECK: func.call @some_use(
// CHECK: return %[[R]] :
func.func private @some_use(tensor<?xf32>) -> ()
func.func @scf_for_deps(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    func.call @some_use(%t) : (tensor<?xf32>) -> ()
    scf.yield %t : tensor<?xf32>
  }
  %r1 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    func.call @some_use(%t) : (tensor<?xf32>) -> ()
    scf.yield %t : tensor<?xf32>
  }
  return %r1: tensor<?xf32>
}
// -----
// No copy: the write goes into %t1.
// CHECK-LABEL: func @scf_if_inplace
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_write %arg2, %arg1[%arg3]
// CHECK: return
func.func @scf_if_inplace(%cond: i1, %t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index) -> tensor<?xf32> {
  %r = scf.if %cond -> (tensor<?xf32>) {
    scf.yield %t1 : tensor<?xf32>
  } else {
    %t2 = vector.transfer_write %v, %t1[%idx] : vector<5xf32>, tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
// -----
// No copy: the write goes into the loop's buffer, which is %t1.
// CHECK-LABEL: func @scf_if_inside_scf_for
// CHECK-NOT: memref.alloc
// CHECK: scf.for {{.*}} iter_args(%[[T:.*]] = %arg0)
// CHECK: vector.transfer_write %arg1, %[[T]][%arg2]
// CHECK: return
func.func @scf_if_inside_scf_for(%t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index, %cond: i1) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %iv = %c0 to %c10 step %c1 iter_args(%bb = %t1) -> (tensor<?xf32>) {
    %r2 = scf.if %cond -> (tensor<?xf32>) {
      scf.yield %bb : tensor<?xf32>
    } else {
      %t2 = vector.transfer_write %v, %bb[%idx] : vector<5xf32>, tensor<?xf32>
      scf.yield %t2 : tensor<?xf32>
    }
    scf.yield %r2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
// -----
// Yielding either argument needs no copy.
// CHECK-LABEL: func @scf_if_non_equiv_yields
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return
func.func @scf_if_non_equiv_yields(%b : i1, %A : tensor<4xf32> {bufferization.writable = false}, %B : tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %r = scf.if %b -> (tensor<4xf32>) {
    scf.yield %A : tensor<4xf32>
  } else {
    scf.yield %B : tensor<4xf32>
  }
  return %r: tensor<4xf32>
}
// -----
// The tensor.empty becomes the only allocation, yielded by the region.
// CHECK-LABEL: func @scf_execute_region_yield_non_equivalent
// CHECK: scf.execute_region -> memref<?xf32>
// CHECK: %[[ALLOC:.*]] = memref.alloc(%arg0)
// CHECK: scf.yield %[[ALLOC]] :
// CHECK-NOT: memref.copy
// CHECK: memref.load
func.func @scf_execute_region_yield_non_equivalent(%i: index, %j: index) -> f32 {
  %r = scf.execute_region -> (tensor<?xf32>) {
    %t2 = tensor.empty(%i) : tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  }
  %f = tensor.extract %r[%j] : tensor<?xf32>
  return %f : f32
}
// -----
// Each branch copies %t1 into a new buffer and writes the copy; the read
// after the scf.if reads the original %t1.
// CHECK-LABEL: func @scf_if_out_of_place1b
// CHECK: %[[A1:.*]] = memref.alloc(
// CHECK: memref.copy %arg0, %[[A1]] :
// CHECK: vector.transfer_write %arg1, %[[A1]][%arg2]
// CHECK: } else {
// CHECK: %[[A2:.*]] = memref.alloc(
// CHECK: memref.copy %arg0, %[[A2]] :
// CHECK: vector.transfer_write %arg1, %[[A2]][%arg3]
// CHECK: vector.transfer_read %arg0[%arg4]
func.func @scf_if_out_of_place1b(%t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index, %idx2: index, %idx3: index, %cond: i1) -> (tensor<?xf32>, vector<10xf32>) {
  %cst = arith.constant 0.0 : f32
  %r = scf.if %cond -> (tensor<?xf32>) {
    %t2 = vector.transfer_write %v, %t1[%idx] : vector<5xf32>, tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  } else {
    %t3 = vector.transfer_write %v, %t1[%idx2] : vector<5xf32>, tensor<?xf32>
    scf.yield %t3 : tensor<?xf32>
  }
  %v2 = vector.transfer_read %t1[%idx3], %cst : tensor<?xf32>, vector<10xf32>
  return %r, %v2 : tensor<?xf32>, vector<10xf32>
}
// -----
// Every iteration copies %B into a new buffer and stores into the copy.
// CHECK-LABEL: func @write_to_same_tensor_in_loop_out_of_place
// CHECK: scf.for
// CHECK: %[[ALLOC:.*]] = memref.alloc(
// CHECK: memref.copy %arg1, %[[ALLOC]] :
// CHECK: memref.store %{{.*}}, %[[ALLOC]][%arg6]
// CHECK: memref.copy %[[ALLOC]], %subview
func.func @write_to_same_tensor_in_loop_out_of_place(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index, %sz: index) -> (tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    %i2 = arith.index_cast %i : index to i32
    %i3 = arith.sitofp %i2 : i32 to f32
    %B2 = tensor.insert %i3 into %B[%i] : tensor<?xf32>
    %A2 = tensor.insert_slice %B2 into %t[%i][%sz][1] : tensor<?xf32> into tensor<?xf32>
    scf.yield %A2 : tensor<?xf32>
  }
  return %r0 : tensor<?xf32>
}
// -----
// The tensor.empty is allocated once, outside the loop, and never copied
// into.
// CHECK-LABEL: func @write_to_same_alloc_tensor_in_place
// CHECK: %[[ALLOC:.*]] = memref.alloc(%arg5)
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: memref.store %{{.*}}, %[[ALLOC]][%arg6]
// CHECK: memref.copy %[[ALLOC]], %subview
func.func @write_to_same_alloc_tensor_in_place(%A : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index, %sz: index, %sz2: index) -> (tensor<?xf32>) {
  %B = tensor.empty(%sz2) : tensor<?xf32>
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    %i2 = arith.index_cast %i : index to i32
    %i3 = arith.sitofp %i2 : i32 to f32
    %B2 = tensor.insert %i3 into %B[%i] : tensor<?xf32>
    %A2 = tensor.insert_slice %B2 into %t[%i][%sz][1] : tensor<?xf32> into tensor<?xf32>
    scf.yield %A2 : tensor<?xf32>
  }
  return %r0 : tensor<?xf32>
}
// -----
// The select picks between a copy of %t1 and %t2; the load reads %t1.
// CHECK-LABEL: func @select_1
// CHECK: %[[ALLOC:.*]] = memref.alloc(
// CHECK: memref.copy %arg0, %[[ALLOC]] :
// CHECK: %[[CAST:.*]] = memref.cast %[[ALLOC]] :
// CHECK: %[[S:.*]] = arith.select %arg2, %[[CAST]], %arg1
// CHECK: memref.store %arg4, %[[S]][%arg3]
// CHECK: memref.load %arg0[%arg3]
func.func @select_1(%t1 : tensor<?xf32> {bufferization.writable = true}, %t2 : tensor<?xf32> {bufferization.writable = true}, %c: i1, %idx: index, %f: f32) -> (tensor<?xf32>, f32) {
  %s = arith.select %c, %t1, %t2 : tensor<?xf32>
  %w = tensor.insert %f into %s[%idx] : tensor<?xf32>
  %r = tensor.extract %t1[%idx] : tensor<?xf32>
  return %w, %r : tensor<?xf32>, f32
}
// -----
// The insert goes into a copy of %t; materialize_in_destination copies that
// into the tensor.empty's buffer; %t is returned untouched.
// CHECK-LABEL: func @materialize
// CHECK: %[[D:.*]] = memref.alloc(%arg2)
// CHECK: %[[T:.*]] = memref.alloc(
// CHECK: memref.copy %arg0, %[[T]] :
// CHECK: memref.store %arg1, %[[T]][%arg2]
// CHECK: memref.copy %[[T]], %[[D]] :
// CHECK: return %[[D]], %arg0
func.func @materialize(%t: tensor<?xf32>, %f: f32, %i: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %d = tensor.empty(%i) : tensor<?xf32>
  %0 = tensor.insert %f into %t[%i] : tensor<?xf32>
  %1 = bufferization.materialize_in_destination %0 in %d : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %1, %t : tensor<?xf32>, tensor<?xf32>
}
// -----
// alloc_tensor copy(%t) is an allocation plus copy; the write into the
// constant goes into a copy of the global.
// CHECK-LABEL: func @alloc_tensor
// CHECK: %[[A:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK: memref.copy %arg0, %[[A]] :
// CHECK: memref.store %arg1, %[[A]][
// CHECK: %[[G:.*]] = memref.get_global @__constant_8xf32
// CHECK: %[[A2:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK: memref.copy %[[G]], %[[A2]] :
// CHECK: memref.store %arg1, %[[A2]][
// CHECK: return %[[A]], %[[A2]] :
func.func @alloc_tensor(%t: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = bufferization.alloc_tensor() copy(%t) : tensor<8xf32>
  %c = arith.constant 0 : index
  %1 = tensor.insert %f into %0[%c] : tensor<8xf32>
  %cst = arith.constant dense<1.0> : tensor<8xf32>
  %2 = tensor.insert %f into %cst[%c] : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
// -----
// The element-wise chain runs on %a and %b without any allocation.
// CHECK-LABEL: func @ew
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%arg0 : {{.*}} outs(%arg1 :
// CHECK: linalg.map { arith.mulf } ins(%arg1, %arg0 : {{.*}} outs(%arg1 :
// CHECK: return %arg1
#id = affine_map<(d0) -> (d0)>
func.func @ew(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.copy ins(%1 : tensor<8xf32>) outs(%b : tensor<8xf32>) -> tensor<8xf32>
  %3 = linalg.map ins(%2, %1 : tensor<8xf32>, tensor<8xf32>) outs(%2 : tensor<8xf32>) (%x: f32, %y: f32, %z: f32) { %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32 }
  return %3 : tensor<8xf32>
}
// -----
// @callee copies %b before its dead insert; @caller passes a copy of %a to
// the first call (it reads %a afterwards) and nothing else is copied.
// CHECK-LABEL: func @callee
// CHECK: memref.store %arg2, %arg0
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: memref.copy %arg1, %[[A]] :
// CHECK: return %arg0, %arg1
// CHECK-LABEL: func @caller
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: memref.copy %arg0, %[[A]] :
// CHECK: %[[CAST:.*]] = memref.cast %[[A]] :
// CHECK: %[[R:.*]]:2 = call @callee(%[[CAST]], %arg1, %arg2)
// CHECK: memref.load %arg0
// CHECK-NOT: memref.alloc
// CHECK: call @callee(%[[R]]#1, %[[R]]#0,
func.func @callee(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant 0 : index
  %0 = tensor.insert %f into %a[%c] : tensor<8xf32>
  %x = tensor.extract %b[%c] : tensor<8xf32>
  %1 = tensor.insert %x into %b[%c] : tensor<8xf32>
  return %0, %b : tensor<8xf32>, tensor<8xf32>
}
func.func @caller(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, f32) {
  %0:2 = call @callee(%a, %b, %f) : (tensor<8xf32>, tensor<8xf32>, f32) -> (tensor<8xf32>, tensor<8xf32>)
  %c = arith.constant 0 : index
  %x = tensor.extract %a[%c] : tensor<8xf32>
  %1:2 = call @callee(%0#1, %0#0, %x) : (tensor<8xf32>, tensor<8xf32>, f32) -> (tensor<8xf32>, tensor<8xf32>)
  return %1#0, %x : tensor<8xf32>, f32
}
