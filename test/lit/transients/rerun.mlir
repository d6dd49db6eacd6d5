// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' -o %t.once
// RUN: memplan-opt %t.once --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | diff - %t.once
// RUN: memplan-opt %t.once --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memplan transients %s --func scale --dim 0:0=100 | FileCheck %s --check-prefix=SIZE
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-transients)' -o %t.whole
// RUN: memplan transients %t.whole --func scale --dim 0:0=100 | FileCheck %s --check-prefix=SIZE
// RUN: memplan transients %t.whole --func caller | FileCheck %s --check-prefix=CONSTANT

// memplan-transients on its own output: a function that names its size
// query (memplan.transient_size_fn) was planned already and is left as it
// is, so a second run changes nothing, and `memplan transients` on planned
// IR reads the existing query.

// REMARK: remark: @scale was planned already (its size query is @scale_transient_size): it is left as it is
// SIZE: @scale: 448 bytes of transient storage (for the given shapes)
func.func @scale(%x: memref<?xf32>, %out: memref<?xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %tmp : memref<?xf32> to memref<?xf32>
  memref.copy %tmp, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %tmp : memref<?xf32>
  return
}

// -----

// With a callee that got a storage argument: the callee is not planned again
// either (it has no allocation left and is reached only through the planned
// caller).

// REMARK: remark: @caller was planned already (its size query is @caller_transient_size): it is left as it is
// CONSTANT: @caller: 512 bytes of transient storage (constant)
func.func private @callee() {
  %t = memref.alloc() : memref<128xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<128xf32>)
  memref.dealloc %t : memref<128xf32>
  return
}
func.func @caller(%storage: memref<?xi8> {memplan.transients}) {
  call @callee() : () -> ()
  return
}
