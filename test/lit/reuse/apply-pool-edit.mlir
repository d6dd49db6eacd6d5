// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-pool-edit)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-pool-edit{alignment=256})' | FileCheck %s --check-prefix=ALIGN

// The pool rewrite alone (memplan._core.apply_pool_edit), its plan given as
// memplan.test_offset attributes instead of memplan-buffer-reuse's planner.

// Two members at offset 0: one pool of the larger member's bytes, rounded up
// to the alignment, created before the first member with the offset's
// constant after it, and freed where the last member's dealloc was.

// CHECK-LABEL: func @shared_offset
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
//  CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<4096xi8> to memref<1000xf32>
//  CHECK-NEXT:   linalg.exp ins(%{{.*}} : memref<1000xf32>) outs(%[[A]] : memref<1000xf32>)
//   CHECK-NOT:   memref.dealloc
//       CHECK:   %[[B:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<4096xi8> to memref<512xf64>
//  CHECK-NEXT:   linalg.exp ins(%{{.*}} : memref<512xf64>) outs(%[[B]] : memref<512xf64>)
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<4096xi8>
//  CHECK-NEXT:   return
// ALIGN-LABEL: func @shared_offset
//       ALIGN:   memref.alloc() {alignment = 256 : i64} : memref<4096xi8>
func.func @shared_offset(%x: memref<1000xf32>, %y: memref<512xf64>) {
  %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<1000xf32>
  linalg.exp ins(%x : memref<1000xf32>) outs(%a : memref<1000xf32>)
  memref.dealloc %a : memref<1000xf32>
  %b = memref.alloc() {memplan.test_offset = 0 : i64} : memref<512xf64>
  linalg.exp ins(%y : memref<512xf64>) outs(%b : memref<512xf64>)
  memref.dealloc %b : memref<512xf64>
  return
}

// -----

// Distinct offsets get one constant each, in member order; a member without
// the attribute is left alone.

// CHECK-LABEL: func @two_offsets
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<192xi8>
//  CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[C128:.*]] = arith.constant 128 : index
//  CHECK-NEXT:   memref.view %[[POOL]][%[[C0]]][] : memref<192xi8> to memref<32xf32>
//  CHECK-NEXT:   memref.view %[[POOL]][%[[C128]]][] : memref<192xi8> to memref<16xf32>
//  CHECK-NEXT:   %[[C:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.dealloc %[[C]] : memref<8xf32>
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<192xi8>
//  CHECK-NEXT:   return
// ALIGN-LABEL: func @two_offsets
//       ALIGN:   memref.alloc() {alignment = 256 : i64} : memref<256xi8>
func.func @two_offsets(%x: f32) {
  %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<32xf32>
  %b = memref.alloc() {memplan.test_offset = 128 : i64} : memref<16xf32>
  %c = memref.alloc() : memref<8xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<32xf32>)
  linalg.fill ins(%x : f32) outs(%b : memref<16xf32>)
  linalg.fill ins(%x : f32) outs(%c : memref<8xf32>)
  memref.dealloc %a : memref<32xf32>
  memref.dealloc %c : memref<8xf32>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// Members in a nested block form that block's pool, freed in that block.

// CHECK-LABEL: func @nested_block
//       CHECK:   scf.for
//  CHECK-NEXT:     %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi8>
//  CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
//  CHECK-NEXT:     %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<64xi8> to memref<4xf32>
//  CHECK-NEXT:     linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<4xf32>)
//  CHECK-NEXT:     memref.dealloc %[[POOL]] : memref<64xi8>
//  CHECK-NEXT:   }
func.func @nested_block(%x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<4xf32>
    linalg.fill ins(%x : f32) outs(%a : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
  }
  return
}

// -----

// A member with a dynamic size is an error; nothing changes.

func.func @dynamic_member(%n: index) {
  // expected-error @+1 {{memplan-test-apply-pool-edit: a member must have a static size}}
  %a = memref.alloc(%n) {memplan.test_offset = 0 : i64} : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A member without a dealloc in its block is an error; nothing changes.

func.func @no_dealloc() -> memref<4xf32> {
  // expected-error @+1 {{memplan-test-apply-pool-edit: a member must have one memref.dealloc in its block}}
  %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<4xf32>
  return %a : memref<4xf32>
}

// -----

// A negative offset is an error; nothing changes.

func.func @negative_offset() {
  // expected-error @+1 {{memplan-test-apply-pool-edit: a member's offset must not be negative}}
  %a = memref.alloc() {memplan.test_offset = -64 : i64} : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
