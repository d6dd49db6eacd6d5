// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-transient-edit)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-transient-edit{assert-size=false})' | FileCheck %s --check-prefix=NOASSERT

// Transient emplacement's rewrite alone (memplan._core.apply_transient_edit),
// its plan given as memplan.test_offset attributes instead of
// memplan-emplace-transients' planner.

// Each member a view of the storage at its offset, its dealloc gone; at the
// entry the offsets, the required bytes (the largest end, marked) and, with
// assert-size, the check against the storage.

// CHECK-LABEL: func @members
//  CHECK-SAME:   (%{{.*}}: memref<16xf32>, %[[S:arg[0-9]+]]: memref<?xi8> {memplan.transients})
//  CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[C64:.*]] = arith.constant 64 : index
//  CHECK-NEXT:   %[[SIZE:.*]] = arith.constant {memplan.transient_size} 128 : index
//  CHECK-NEXT:   %[[DIM:.*]] = memref.dim %[[S]], %[[C0]] : memref<?xi8>
//  CHECK-NEXT:   %[[FITS:.*]] = arith.cmpi ule, %[[SIZE]], %[[DIM]] : index
//  CHECK-NEXT:   cf.assert %[[FITS]], "memplan: transient storage is smaller than the required size"
//  CHECK-NEXT:   %[[A:.*]] = memref.view %[[S]][%[[C0]]][] : memref<?xi8> to memref<16xf32>
//  CHECK-NEXT:   memref.copy %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.view %[[S]][%[[C64]]][] : memref<?xi8> to memref<8xf64>
//  CHECK-NEXT:   return
// NOASSERT-LABEL: func @members
//   NOASSERT-NOT:   cf.assert
//       NOASSERT:   return
func.func @members(%x: memref<16xf32>, %s: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  %b = memref.alloc() {memplan.test_offset = 64 : i64} : memref<8xf64>
  memref.dealloc %b : memref<8xf64>
  return
}

// -----

// A callee given a storage argument; a call passing it bytes of the caller's
// storage; a caller without storage passing a heap buffer, freed after the
// call.

// CHECK-LABEL: func private @callee
//  CHECK-SAME:   (%{{.*}}: memref<16xf32>, %{{.*}}: memref<?xi8>)
// CHECK-LABEL: func @caller
//  CHECK-SAME:   %[[S:arg[0-9]+]]: memref<?xi8> {memplan.transients})
//       CHECK:   %[[C64:.*]] = arith.constant 64 : index
//  CHECK-NEXT:   arith.constant {memplan.transient_size} 320 : index
//       CHECK:   cf.assert
//  CHECK-NEXT:   %[[C256:.*]] = arith.constant 256 : index
//  CHECK-NEXT:   %[[VIEW:.*]] = memref.view %[[S]][%[[C64]]][%[[C256]]] : memref<?xi8> to memref<?xi8>
//  CHECK-NEXT:   call @callee(%{{.*}}, %[[VIEW]]) {{.*}} : (memref<16xf32>, memref<?xi8>) -> ()
//  CHECK-NEXT:   return
// CHECK-LABEL: func @heap
//  CHECK-NEXT:   %[[C256:.*]] = arith.constant 256 : index
//  CHECK-NEXT:   %[[BUF:.*]] = memref.alloc(%[[C256]]) {alignment = 64 : i64} : memref<?xi8>
//  CHECK-NEXT:   call @callee(%{{.*}}, %[[BUF]])
//  CHECK-NEXT:   memref.dealloc %[[BUF]] : memref<?xi8>
//  CHECK-NEXT:   return
func.func private @callee(%m: memref<16xf32>) attributes {memplan.test_add_storage} {
  return
}
func.func @caller(%x: memref<16xf32>, %s: memref<?xi8> {memplan.transients}) {
  call @callee(%x) {memplan.test_offset = 64 : i64, memplan.test_size = 256 : i64} : (memref<16xf32>) -> ()
  return
}
func.func @heap(%x: memref<16xf32>) {
  call @callee(%x) {memplan.test_size = 256 : i64} : (memref<16xf32>) -> ()
  return
}

// -----

// A dynamic member: a located error, nothing changed.
func.func @dynamic(%n: index, %s: memref<?xi8> {memplan.transients}) {
  // expected-error@+1 {{memplan-test-apply-transient-edit: a member must have a static size}}
  %a = memref.alloc(%n) {memplan.test_offset = 0 : i64} : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// A negative offset: a located error, nothing changed.
func.func @negative_offset(%s: memref<?xi8> {memplan.transients}) {
  // expected-error@+1 {{memplan-test-apply-transient-edit: a member's offset must not be negative}}
  %a = memref.alloc() {memplan.test_offset = -64 : i64} : memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// An offset in a function without storage: a located error.
// expected-error@+1 {{memplan-test-apply-transient-edit: memplan.test_offset in a function without storage}}
func.func @no_storage() {
  %a = memref.alloc() {memplan.test_offset = 0 : i64} : memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  return
}
