// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-emplace-transients)' 2>&1 | FileCheck %s --check-prefix=EMPLACE

// Recursion: the storage of a recursive call graph that allocates cannot be
// bounded.
// CHECK: errors.mlir:[[# @LINE + 2]]:1: error: recursive call graph (@rec -> @rec) needs transient storage: its size cannot be bounded
// EMPLACE: errors.mlir:[[# @LINE + 1]]:1: error: recursive call graph
func.func @rec(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() : memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  call @rec(%n, %storage) : (index, memref<?xi8>) -> ()
  return
}

// -----

// Only public functions take caller storage.
// CHECK: errors.mlir:[[# @LINE + 1]]:1: error: memplan.transients on private function @hidden: only public functions take caller storage
func.func private @hidden(%storage: memref<?xi8> {memplan.transients}) {
  return
}

// -----

// The storage must be memref<?xi8>.
// CHECK: errors.mlir:[[# @LINE + 1]]:1: error: transient storage argument #0 of @typed must be memref<?xi8>, not memref<16xf32>
func.func @typed(%storage: memref<16xf32> {memplan.transients}) {
  return
}

// -----

// One storage argument at most.
// CHECK: errors.mlir:[[# @LINE + 1]]:1: error: @twice marks 2 arguments (#0, #1) with memplan.transients; expected one
func.func @twice(%s0: memref<?xi8> {memplan.transients}, %s1: memref<?xi8> {memplan.transients}) {
  return
}

// -----

// A size read from memory cannot be computed before the call.
func.func @loaded(%sizes: memref<4xindex>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %n = memref.load %sizes[%c0] : memref<4xindex>
  // CHECK: errors.mlir:[[# @LINE + 1]]:8: error: transient size depends on a memory load ('memref.load'); cannot compute it from the function arguments
  %t = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}

// -----

// A size produced by a call (which may have side effects).
func.func private @ask() -> index
func.func @called(%storage: memref<?xi8> {memplan.transients}) {
  %n = call @ask() : () -> index
  // CHECK: errors.mlir:[[# @LINE + 1]]:8: error: transient size depends on the result of 'func.call', a call with side effects
  %t = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}

// -----

// A size loaded from a mutable global.
memref.global "private" @limit : memref<index> = dense<8>
func.func @global(%storage: memref<?xi8> {memplan.transients}) {
  %g = memref.get_global @limit : memref<index>
  %n = memref.load %g[] : memref<index>
  // CHECK: errors.mlir:[[# @LINE + 1]]:8: error: transient size depends on a load of the mutable global @limit
  %t = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}

// -----

// A size that is neither hoistable nor bounded: a while loop's value.
func.func @unbounded(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %r = scf.while (%i = %n) : (index) -> index {
    %c = arith.cmpi ugt, %i, %n : index
    scf.condition(%c) %i : index
  } do {
  ^bb0(%j: index):
    scf.yield %j : index
  }
  // CHECK: errors.mlir:[[# @LINE + 1]]:8: error: transient size depends on 'scf.while', which cannot be hoisted
  %t = memref.alloc(%r) : memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}
