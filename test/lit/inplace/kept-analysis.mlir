// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs, memplan-one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' -debug-only=memplan-kept-analysis 2>%t.taken >%t.kept
// RUN: FileCheck %s < %t.kept
// RUN: FileCheck %s --check-prefix=TAKEN < %t.taken
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs, strip-debuginfo, memplan-one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map})' -debug-only=memplan-kept-analysis 2>%t.changed >%t.fresh
// RUN: FileCheck %s --check-prefix=CHANGED < %t.changed
// RUN: diff %t.kept %t.fresh
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-reuse-dying-inputs, memplan-one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' -debug-only=memplan-kept-analysis 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTIONS

// memplan-reuse-dying-inputs ends on an in-place analysis of the module it
// leaves; memplan-one-shot-bufferize takes that analysis instead of making
// it again, but only for the same IR (strip-debuginfo in between changes
// every location) analyzed with options that decide alike
// (allow-return-allocs-from-loops differs), and never when ops outside
// functions need the rewrite's own checks. What it bufferizes is the same
// either way (the diff of the two outputs).

// TAKEN: kept analysis taken
// CHANGED: kept analysis dropped: the IR changed
// OPTIONS: kept analysis dropped: options decide otherwise

// The add writes into %a, which dies there: one buffer.

// CHECK-LABEL: func @dying_input
//       CHECK:   %[[A:.*]] = memref.alloc() {{.*}} : memref<64xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
//  CHECK-NEXT:   linalg.add ins(%[[A]], %{{.*}} : memref<64xf32>, memref<64xf32>) outs(%[[A]] : memref<64xf32>)
//  CHECK-NEXT:   return %[[A]]
func.func @dying_input(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%a, %y : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A global beside the function: bufferization analyzes the module again.

// TAKEN: kept analysis dropped: ops outside functions
// CHANGED: kept analysis dropped: ops outside functions
// OPTIONS: kept analysis dropped: ops outside functions

// CHECK-LABEL: func @beside_a_global
//       CHECK:   %[[A:.*]] = memref.alloc() {{.*}} : memref<64xf32>
//       CHECK:   linalg.exp ins(%{{.*}} : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
//  CHECK-NEXT:   linalg.add ins(%[[A]], %{{.*}} : memref<64xf32>, memref<64xf32>) outs(%[[A]] : memref<64xf32>)
memref.global "private" constant @g : memref<4xf32> = dense<0.0>
func.func @beside_a_global(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.exp ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %s = linalg.add ins(%a, %y : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}
