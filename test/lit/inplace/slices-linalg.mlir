// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s

// Differential test against upstream: the tensor.extract_slice /
// tensor.insert_slice / linalg cases of upstream's one-shot analysis tests.
// memplan's annotations must be byte-identical to mlir-opt's.

// extract_slice only reads: in place whether or not its source is writable.
// CHECK-LABEL: func @extract_slice_fun
// CHECK-SAME: %arg0: tensor<?xf32> {bufferization.access = "read", bufferization.writable = false}
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.extract_slice %arg1{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %extracted_slice, %extracted_slice_0
func.func @extract_slice_fun(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}) -> (tensor<4xf32>, tensor<8xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.extract_slice %B[0][8][1] : tensor<?xf32> to tensor<8xf32>
  return %r0, %r1: tensor<4xf32>, tensor<8xf32>
}
// -----
// insert_slice into a non-writable argument bufferizes out of place; into a
// writable one in place, and the result is equivalent to that argument.
// CHECK-LABEL: func @insert_slice_fun
// CHECK: tensor.insert_slice %arg2 into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "false"]}
// CHECK: tensor.insert_slice %arg2 into %arg1{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: return {__equivalent_func_args__ = [-1, 1]
func.func @insert_slice_fun(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %C : tensor<4xf32> {bufferization.writable = false}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.insert_slice %C into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r1 = tensor.insert_slice %C into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r0, %r1: tensor<?xf32>, tensor<?xf32>
}
// -----
// The first two matmuls write into %B while %B is still read by a later
// matmul: out of place. The last one writes %B in place.
// CHECK-LABEL: func @conflict_on_B
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "false"]} ins(%arg0, %arg1
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "false"]} ins(%arg1, %arg0
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "true"]} ins(%arg0, %arg0
// CHECK: return {__equivalent_func_args__ = [-1, -1, 1]
func.func @conflict_on_B(%A : tensor<4x4xf32> {bufferization.writable = true}, %B : tensor<4x4xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %C = linalg.matmul  ins(%A, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  %D = linalg.matmul  ins(%B, %A: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  %E = linalg.matmul  ins(%A, %A: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B: tensor<4x4xf32>) -> tensor<4x4xf32>
  return %C, %D, %E: tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// Chains of extract_slice are in place, writable source or not.
// CHECK-LABEL: func @extract_slice_extract_slice
// CHECK-COUNT-4: tensor.extract_slice {{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK-NOT: "false"
// CHECK: return
func.func @extract_slice_extract_slice(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = false}) -> (tensor<2xf32>, tensor<2xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.extract_slice %r0[0][2][1] : tensor<4xf32> to tensor<2xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.extract_slice %r2[0][2][1] : tensor<4xf32> to tensor<2xf32>
  return %r1, %r3: tensor<2xf32>, tensor<2xf32>
}
// -----
// Nested insert_slice into writable arguments: all in place, the result is
// equivalent to %A. Into non-writable arguments: both destinations copied.
// CHECK-LABEL: func @insert_slice_insert_slice
// CHECK: tensor.insert_slice %arg2 into %arg1{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: tensor.insert_slice %inserted_slice into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: tensor.insert_slice %arg5 into %arg4{{.*}} {__inplace_operands_attr__ = ["true", "false"]}
// CHECK: tensor.insert_slice %inserted_slice_1 into %arg3{{.*}} {__inplace_operands_attr__ = ["true", "false"]}
// CHECK: return {__equivalent_func_args__ = [0, -1]
func.func @insert_slice_insert_slice(%A : tensor<?xf32> {bufferization.writable = true}, %A2 : tensor<4xf32> {bufferization.writable = true}, %A3 : tensor<2xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = false}, %B2 : tensor<4xf32> {bufferization.writable = false}, %B3 : tensor<2xf32> {bufferization.writable = false}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.insert_slice %A3 into %A2[0][2][1] : tensor<2xf32> into tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.insert_slice %B3 into %B2[0][2][1] : tensor<2xf32> into tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// The slice is inserted back at a different offset: the in-place insert
// would overwrite data the slice still reads, so the extract_slice is copied
// (the insert stays in place).
// CHECK-LABEL: func @extract_slice_nonmatching_insert_slice
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.insert_slice %extracted_slice into %arg0[%arg2]{{.*}} {__inplace_operands_attr__ = ["true", "true", "none"]}
// CHECK: tensor.extract_slice %arg1{{.*}} {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.insert_slice %extracted_slice_0 into %arg1[%arg2]{{.*}} {__inplace_operands_attr__ = ["true", "true", "none"]}
// CHECK: return {__equivalent_func_args__ = [0, 1]
func.func @extract_slice_nonmatching_insert_slice(%A : tensor<?xf32>, %B : tensor<?xf32> {bufferization.writable = true}, %idx: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[%idx][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[%idx][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// The slice is inserted back where it came from: no conflict, everything in
// place.
// CHECK-LABEL: func @extract_slice_matching_insert_slice
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.insert_slice %extracted_slice into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: tensor.extract_slice %arg1{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.insert_slice %extracted_slice_0 into %arg1{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: return {__equivalent_func_args__ = [0, 1]
func.func @extract_slice_matching_insert_slice(%A : tensor<?xf32>, %B : tensor<?xf32> {bufferization.writable = true}) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = tensor.extract_slice %A[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r1 = tensor.insert_slice %r0 into %A[0][4][1] : tensor<4xf32> into tensor<?xf32>
  %r2 = tensor.extract_slice %B[0][4][1] : tensor<?xf32> to tensor<4xf32>
  %r3 = tensor.insert_slice %r2 into %B[0][4][1] : tensor<4xf32> into tensor<?xf32>
  return %r1, %r3: tensor<?xf32>, tensor<?xf32>
}
// -----
// A read of the filled slice after the matching insert_slice is no conflict:
// the insert writes the same values to the same place.
// CHECK-LABEL: func @read_of_matching_insert_slice_source
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "true"]}
// CHECK: tensor.insert_slice %0 into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: vector.transfer_read %0
// CHECK: return {__equivalent_func_args__ = [0, -1]
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
// Same, but a second fill into a slice of the result is interleaved before
// the read of the first fill: that read would see the second fill, so the
// first extract_slice is copied.
// CHECK-LABEL: func @read_of_matching_insert_slice_source_interleaved
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["false", "none", "none"]}
// CHECK: tensor.insert_slice %0 into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: tensor.extract_slice %inserted_slice{{.*}} {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "true"]} {{.*}} outs(%extracted_slice_1
// CHECK: tensor.insert_slice %1 into %inserted_slice{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: return {__equivalent_func_args__ = [0, -1]
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
// The first matmul writes into %B, which the second matmul still reads: out
// of place. The second writes the writable %C in place.
// CHECK-LABEL: func @extract_slice_linalg_readonly_use
// CHECK: tensor.extract_slice %arg0{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "false"]} {{.*}} outs(%arg1
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "true"]} {{.*}} outs(%arg2
// CHECK: return {__equivalent_func_args__ = [-1, 2]
func.func @extract_slice_linalg_readonly_use(%A : tensor<?x?xf32>, %B : tensor<4x4xf32>, %C : tensor<4x4xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %sA = tensor.extract_slice %A[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %D = linalg.matmul ins(%sA, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%B : tensor<4x4xf32>) -> tensor<4x4xf32>
  %E = linalg.matmul ins(%sA, %B: tensor<4x4xf32>, tensor<4x4xf32>) outs(%C : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %D, %E: tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// The first matmul writes into a slice of %B, which the second matmul reads:
// out of place. The second writes into a slice of %C in place.
// CHECK-LABEL: func @extract_slice_to_linalg_write_use
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "false"]} {{.*}} outs(%extracted_slice :
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "true"]} {{.*}} outs(%extracted_slice_0 :
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %0, %1
func.func @extract_slice_to_linalg_write_use(%A : tensor<4x4xf32>, %B : tensor<?x?xf32>, %C : tensor<?x?xf32> {bufferization.writable = true}) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %sB = tensor.extract_slice %B[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %D = linalg.matmul ins(%B, %C: tensor<?x?xf32>, tensor<?x?xf32>) outs(%sB : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sC = tensor.extract_slice %C[0, 0][4, 4][1, 1] : tensor<?x?xf32> to tensor<4x4xf32>
  %E = linalg.matmul ins(%A, %sB: tensor<4x4xf32>, tensor<4x4xf32>) outs(%sC : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %D, %E: tensor<4x4xf32>, tensor<4x4xf32>
}
// -----
// The matmul writes into a slice of %C and a slice of its result goes back
// into %C at the same place: all in place, result equivalent to %C (arg 7);
// the unused %arg2 is accessed "none".
// CHECK-LABEL: func @insert_slice_double_extract
// CHECK-SAME: %arg0: tensor<62x90xf32> {bufferization.access = "none", bufferization.writable = true}
// CHECK: tensor.extract_slice %arg7{{.*}} {__inplace_operands_attr__ = ["true", "none", "none", "none", "none"]}
// CHECK: linalg.matmul {__inplace_operands_attr__ = ["true", "true", "true"]}
// CHECK: tensor.extract_slice %0{{.*}} {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK: tensor.insert_slice %extracted_slice_0 into %arg7{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none", "none", "none"]}
// CHECK: return {__equivalent_func_args__ = [7]
func.func @insert_slice_double_extract(%arg2: tensor<62x90xf32> {bufferization.writable = true}, %s1: index, %s2: index, %s3: index, %s4: index, %A: tensor<8x6xf32>, %B: tensor<6x6xf32>, %C: tensor<30x20xf32> {bufferization.writable = true}) -> tensor<30x20xf32> {
  %15 = tensor.extract_slice %C[%s3, %s4] [%s1, %s2] [1, 1] : tensor<30x20xf32> to tensor<?x?xf32>
  %18 = linalg.matmul ins(%A, %B : tensor<8x6xf32>, tensor<6x6xf32>) outs(%15 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %19 = tensor.extract_slice %18[0, 0] [%s1, %s2] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %20 = tensor.insert_slice %19 into %C[%s3, %s4] [%s1, %s2] [1, 1] : tensor<?x?xf32> into tensor<30x20xf32>
  return %20 : tensor<30x20xf32>
}
// -----
// Nested extract/fill/insert chains that put every slice back where it came
// from are in place. For %C the inner insert uses sizes [%sz2, 4] but the
// extract used [%sz1, 4]: not provably matching, so that inner extract_slice
// is copied.
// CHECK-LABEL: func @nested_extract_slice_and_insert
// CHECK: tensor.extract_slice %extracted_slice[0, 0] [4, 4]{{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.insert_slice %inserted_slice into %arg0{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: tensor.extract_slice %extracted_slice_2[0, 0] [4, %arg3]{{.*}} {__inplace_operands_attr__ = ["true", "none"]}
// CHECK: tensor.insert_slice %inserted_slice_4 into %arg1{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: tensor.extract_slice %extracted_slice_6[0, 0] [%arg4, 4]{{.*}} {__inplace_operands_attr__ = ["false", "none"]}
// CHECK: tensor.insert_slice %2 into %extracted_slice_6[0, 0] [%arg5, 4]{{.*}} {__inplace_operands_attr__ = ["true", "true", "none"]}
// CHECK: tensor.insert_slice %inserted_slice_8 into %arg2{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: return {__equivalent_func_args__ = [0, 1, 2]
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
// Matching slices spelled alike (same SSA offset and size): the extract_slice
// stays in place because the insert_slice writes the subset back.
// CHECK-LABEL: func @slices_spelled_alike
// CHECK: tensor.extract_slice %arg0[%arg1] [%arg2] [1] {__inplace_operands_attr__ = ["true", "none", "none"]}
// CHECK: tensor.insert_slice %0 into %arg0[%arg1] [%arg2] [1] {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
func.func @slices_spelled_alike(%A : tensor<?xf32> {bufferization.writable = true}, %idx : index, %sz : index) -> tensor<?xf32> {
  %f0 = arith.constant 0.0 : f32
  %r0 = tensor.extract_slice %A[%idx] [%sz] [1] : tensor<?xf32> to tensor<?xf32>
  %r1 = linalg.fill ins(%f0 : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
  %r2 = tensor.insert_slice %r1 into %A[%idx] [%sz] [1] : tensor<?xf32> into tensor<?xf32>
  return %r2 : tensor<?xf32>
}
// -----
// Offsets spelled differently but equal by value bounds (an identity
// affine.apply): still a matching pair, in place.
// CHECK-LABEL: func @slices_equal_by_bounds
// CHECK: tensor.extract_slice %arg0[%arg1] [8] [1] {__inplace_operands_attr__ = ["true", "none"]}
func.func @slices_equal_by_bounds(%A : tensor<?xf32> {bufferization.writable = true}, %idx : index) -> tensor<?xf32> {
  %f0 = arith.constant 0.0 : f32
  %j = affine.apply affine_map<(d0) -> (d0)>(%idx)
  %r0 = tensor.extract_slice %A[%idx] [8] [1] : tensor<?xf32> to tensor<8xf32>
  %r1 = linalg.fill ins(%f0 : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %r2 = tensor.insert_slice %r1 into %A[%j] [8] [1] : tensor<8xf32> into tensor<?xf32>
  return %r2 : tensor<?xf32>
}
// -----
// A constant SSA offset against the same static offset: a matching pair.
// CHECK-LABEL: func @slices_constant_and_static
// CHECK: tensor.extract_slice %arg0[%c4] [8] [1] {__inplace_operands_attr__ = ["true", "none"]}
func.func @slices_constant_and_static(%A : tensor<?xf32> {bufferization.writable = true}) -> tensor<?xf32> {
  %f0 = arith.constant 0.0 : f32
  %c4 = arith.constant 4 : index
  %r0 = tensor.extract_slice %A[%c4] [8] [1] : tensor<?xf32> to tensor<8xf32>
  %r1 = linalg.fill ins(%f0 : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %r2 = tensor.insert_slice %r1 into %A[4] [8] [1] : tensor<8xf32> into tensor<?xf32>
  return %r2 : tensor<?xf32>
}
// -----
// Unrelated offsets: the subsets may differ, so the fill must not write into
// %A before the insert_slice reads the rest of it; the extract_slice is
// copied.
// CHECK-LABEL: func @slices_unrelated_offsets
// CHECK: tensor.extract_slice %arg0[%arg1] [8] [1] {__inplace_operands_attr__ = ["false", "none"]}
func.func @slices_unrelated_offsets(%A : tensor<?xf32> {bufferization.writable = true}, %idx : index, %jdx : index) -> tensor<?xf32> {
  %f0 = arith.constant 0.0 : f32
  %r0 = tensor.extract_slice %A[%idx] [8] [1] : tensor<?xf32> to tensor<8xf32>
  %r1 = linalg.fill ins(%f0 : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %r2 = tensor.insert_slice %r1 into %A[%jdx] [8] [1] : tensor<8xf32> into tensor<?xf32>
  return %r2 : tensor<?xf32>
}
// -----
// Slices spelled alike on two tensors that alias but are not equivalent (%B
// is a slice of %A) do not match: the insert_slice reads the rest of %B after
// the fill wrote into %A, so %B's extract_slice is copied.
// CHECK-LABEL: func @slices_alike_aliasing_tensor
// CHECK: tensor.extract_slice %arg0[0] [%arg1] [1] {__inplace_operands_attr__ = ["false", "none"]}
// CHECK: tensor.extract_slice %arg0[%arg2] [8] [1] {__inplace_operands_attr__ = ["true", "none"]}
func.func @slices_alike_aliasing_tensor(%A : tensor<?xf32> {bufferization.writable = true}, %n : index, %idx : index) -> tensor<?xf32> {
  %f0 = arith.constant 0.0 : f32
  %B = tensor.extract_slice %A[0] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  %r0 = tensor.extract_slice %A[%idx] [8] [1] : tensor<?xf32> to tensor<8xf32>
  %r1 = linalg.fill ins(%f0 : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %r2 = tensor.insert_slice %r1 into %B[%idx] [8] [1] : tensor<8xf32> into tensor<?xf32>
  return %r2 : tensor<?xf32>
}
// -----
// parallel_insert_slice writing back the slice its iteration extracted: in
// place.
// CHECK-LABEL: func @parallel_slices_alike
// CHECK: tensor.extract_slice %arg2[%1] [8] [1] {__inplace_operands_attr__ = ["true", "none"]}
// CHECK: tensor.parallel_insert_slice %2 into %arg2[%1] [8] [1] {__inplace_operands_attr__ = ["true", "true", "none"]}
func.func @parallel_slices_alike(%A : tensor<64xf32> {bufferization.writable = true}) -> tensor<64xf32> {
  %f0 = arith.constant 0.0 : f32
  %r = scf.forall (%i) in (8) shared_outs(%o = %A) -> (tensor<64xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 8)>(%i)
    %s = tensor.extract_slice %o[%off] [8] [1] : tensor<64xf32> to tensor<8xf32>
    %f = linalg.fill ins(%f0 : f32) outs(%s : tensor<8xf32>) -> tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %f into %o[%off] [8] [1] : tensor<8xf32> into tensor<64xf32>
    }
  }
  return %r : tensor<64xf32>
}
