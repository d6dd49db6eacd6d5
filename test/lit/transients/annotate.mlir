// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-annotate-transient-storage)' | FileCheck %s

// A single transient: offset 0, the function needs its (aligned) size.

// CHECK-LABEL: func.func @single
// CHECK-SAME:    memplan.transient_storage = {argument = 1 : i64, size = "256"}
// CHECK:         memref.alloc() {memplan.transient = {interval = array<i64: 1, 6>, offset = "0", scope = @single, size = "256", slot = -1 : i64}}
func.func @single(%out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %buf = memref.alloc() : memref<64xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%buf : memref<64xf32>)
  memref.copy %buf, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %buf : memref<64xf32>
  return
}

// -----

// Two transients live at the same time are stacked; a third that starts after
// the first is dead reuses its bytes.

// CHECK-LABEL: func.func @two_live_one_reused
// CHECK-SAME:    size = "2048"
// CHECK:         %[[A:.*]] = memref.alloc() {memplan.transient = {interval = array<i64: 1, 5>, offset = "1024"
// CHECK:         %[[B:.*]] = memref.alloc() {memplan.transient = {interval = array<i64: 3, 8>, offset = "0"
// CHECK:         %[[C:.*]] = memref.alloc() {memplan.transient = {interval = array<i64: 6, 10>, offset = "1024"
func.func @two_live_one_reused(%x: memref<256xf32>, %out: memref<256xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  memref.copy %c, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %c : memref<256xf32>
  return
}

// -----

// No transients: the function needs no storage.

// CHECK-LABEL: func.func @none
// CHECK-SAME:    memplan.transient_storage = {argument = 0 : i64, size = "0"}
func.func @none(%storage: memref<?xi8> {memplan.transients}) {
  return
}

// -----

// Many sequential transients of different sizes share the largest slot.

// CHECK-LABEL: func.func @many
// CHECK-SAME:    size = "4096"
// CHECK-COUNT-5: offset = "0"
func.func @many(%storage: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() : memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() : memref<16xf64>
  memref.dealloc %b : memref<16xf64>
  %c = memref.alloc() : memref<3xi8>
  memref.dealloc %c : memref<3xi8>
  %d = memref.alloc() : memref<4096xi8>
  memref.dealloc %d : memref<4096xi8>
  %e = memref.alloc() : memref<2x2xf32>
  memref.dealloc %e : memref<2x2xf32>
  return
}

// -----

// Allocations in the two branches of an scf.if never live together: they
// share bytes. Static sizes share through the packer; dynamic ones share a
// slot sized with the max of both. A size computed inside a branch is hoisted
// to the entry by cloning its pure slice.

// CHECK-LABEL: func.func @branches
// CHECK-SAME:    size = "512 + align(max(8 * %0, 4 * %arg1), 64)"
// CHECK:         scf.if
// CHECK:           memref.alloc() {memplan.transient = {interval = array<i64: 2, 6>, offset = "0", scope = @branches, size = "512", slot = -1 : i64}}
// CHECK:           memref.alloc(%{{.*}}) {memplan.transient = {interval = array<i64: 8, 9>, offset = "512", scope = @branches, size = "8 * %0", slot = 0 : i64}}
// CHECK:         } else {
// CHECK:           memref.alloc() {memplan.transient = {interval = array<i64: 11, 12>, offset = "0", scope = @branches, size = "256", slot = -1 : i64}}
// CHECK:           memref.alloc(%arg1) {memplan.transient = {interval = array<i64: 13, 14>, offset = "512", scope = @branches, size = "4 * %arg1", slot = 0 : i64}}
func.func @branches(%cond: i1, %n: index, %storage: memref<?xi8> {memplan.transients}) {
  scf.if %cond {
    %a = memref.alloc() : memref<128xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%a : memref<128xf32>)
    memref.dealloc %a : memref<128xf32>
    %m = arith.muli %n, %n : index
    %b = memref.alloc(%m) : memref<?xf64>
    memref.dealloc %b : memref<?xf64>
  } else {
    %c = memref.alloc() : memref<64xf32>
    memref.dealloc %c : memref<64xf32>
    %d = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %d : memref<?xf32>
  }
  return
}

// -----

// An allocation in one branch only.

// CHECK-LABEL: func.func @one_branch
// CHECK-SAME:    size = "128"
// CHECK:         memref.alloc() {memplan.transient = {interval = array<i64: 2, 6>, offset = "0"
func.func @one_branch(%cond: i1, %storage: memref<?xi8> {memplan.transients}) {
  scf.if %cond {
    %a = memref.alloc() : memref<32xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<32xf32>)
    memref.dealloc %a : memref<32xf32>
  }
  return
}

// -----

// An allocation in a loop body reuses its slot in every iteration. A size
// that depends on the induction variable is over-allocated to the loop's
// upper bound (a remark says so, see verify.mlir).

// CHECK-LABEL: func.func @loop
// CHECK-SAME:    size = "64 + align(4 * %arg0, 64)"
// CHECK:         scf.for %[[IV:.*]] = 
// CHECK:           memref.alloc() {memplan.transient = {interval = array<i64: 4, 5>, offset = "0", scope = @loop, size = "64", slot = -1 : i64}}
// CHECK:           memref.alloc(%[[IV]]) {memplan.transient = {bound = "%arg2 <= %arg0", interval = array<i64: 5, 6>, offset = "64", scope = @loop, size = "4 * %arg0", slot = 0 : i64}}
func.func @loop(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<16xf32>
    %u = memref.alloc(%i) : memref<?xf32>
    memref.dealloc %u : memref<?xf32>
    memref.dealloc %t : memref<16xf32>
  }
  return
}

// -----

// A size bounded by arith.minui is hoistable as is: the bound is the value.

// CHECK-LABEL: func.func @clamped
// CHECK-SAME:    size = "align(%0, 64)"
// CHECK:         memref.alloc(%0) {memplan.transient = {interval = array<i64: 3, 4>, offset = "0", scope = @clamped, size = "%0", slot = 0 : i64}}
func.func @clamped(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %cap = arith.constant 1024 : index
  %m = arith.minui %n, %cap : index
  %buf = memref.alloc(%m) : memref<?xi8>
  memref.dealloc %buf : memref<?xi8>
  return
}

// -----

// Nested control flow: a buffer defined outside a loop and used inside it is
// live across the whole loop; allocations nested two levels deep are placed
// against it.

// CHECK-LABEL: func.func @nested
// CHECK-SAME:    size = "2048"
// CHECK:         memref.alloc() {memplan.transient = {interval = array<i64: 3, 16>, offset = "0", scope = @nested, size = "1024"
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             memref.alloc() {memplan.transient = {interval = array<i64: 7, 10>, offset = "1024", scope = @nested, size = "1024"
// CHECK:             memref.alloc() {memplan.transient = {interval = array<i64: 12, 13>, offset = "1024", scope = @nested, size = "512"
func.func @nested(%n: index, %cond: i1, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloc() : memref<256xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.if %cond {
      %zero = arith.constant 0.0 : f32
      %t = memref.alloc() : memref<256xf32>
      memref.copy %acc, %t : memref<256xf32> to memref<256xf32>
      memref.copy %t, %acc : memref<256xf32> to memref<256xf32>
      memref.dealloc %t : memref<256xf32>
    } else {
      %u = memref.alloc() : memref<128xf32>
      memref.dealloc %u : memref<128xf32>
    }
  }
  memref.dealloc %acc : memref<256xf32>
  return
}

// -----

// Dynamic sizes from the arguments' shapes; a size computed in a region from
// outer values is hoisted by cloning its slice.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    size = "align(4 * %dim, 64) + align(8 * %0, 64)"
// CHECK:         memref.alloc(%dim) {memplan.transient = {interval = array<i64: 3, 13>, offset = "0", scope = @dynamic, size = "4 * %dim", slot = 0 : i64}}
// CHECK:         memref.alloc(%{{.*}}) {memplan.transient = {interval = array<i64: 7, 8>, offset = "align(4 * %dim, 64)", scope = @dynamic, size = "8 * %0", slot = 1 : i64}}
func.func @dynamic(%x: memref<?x8xf32>, %cond: i1, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %x, %c0 : memref<?x8xf32>
  %a = memref.alloc(%d) : memref<?xf32>
  scf.if %cond {
    %c3 = arith.constant 3 : index
    %e = arith.addi %d, %c3 : index
    %b = memref.alloc(%e) : memref<?xf64>
    memref.dealloc %b : memref<?xf64>
  }
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  return
}
