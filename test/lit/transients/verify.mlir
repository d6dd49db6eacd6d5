// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage{remarks=false})' 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty

// QUIET-NOT: remark

// Remarks name each allocation that stays on the heap, and why.
func.func @kept(%storage: memref<?xi8> {memplan.transients}) -> memref<4xf32> {
  // CHECK: verify.mlir:[[# @LINE + 1]]:8: remark: allocation stays on the heap: escapes-return
  %r = memref.alloc() : memref<4xf32>
  // CHECK: verify.mlir:[[# @LINE + 1]]:8: remark: allocation stays on the heap: memory-space
  %s = memref.alloc() : memref<4xf32, 1>
  memref.dealloc %s : memref<4xf32, 1>
  return %r : memref<4xf32>
}

// -----

// A size bounded by a loop's upper bound is over-allocated, with a remark.
func.func @bounded(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // CHECK: verify.mlir:[[# @LINE + 1]]:10: remark: size over-allocated to its bound: %arg2 <= %arg0
    %t = memref.alloc(%i) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  }
  return
}

// -----

// A call from a function without storage: its callee's storage comes from the heap.
func.func private @needs(%n: index) {
  %t = memref.alloc(%n) : memref<?xi8>
  memref.dealloc %t : memref<?xi8>
  return
}
func.func @root(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  call @needs(%n) : (index) -> ()
  return
}
func.func @plain(%n: index) {
  // CHECK: verify.mlir:[[# @LINE + 1]]:3: remark: @plain has no transient storage: the storage of @needs is heap-allocated around this call
  call @needs(%n) : (index) -> ()
  return
}
