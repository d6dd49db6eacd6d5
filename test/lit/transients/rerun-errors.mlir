// RUN: memplan-opt %s --split-input-file -verify-diagnostics --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 | FileCheck %s --check-prefix=REMARK

// Functions planned already, by hand-written IR: what the re-run keeps.

// A planned function that allocates again (a later pass, or an edit): its
// offsets and query stand, the new allocation stays on the heap.
// REMARK: :[[@LINE+11]]:8: remark: allocation stays on the heap: @planned_with_new_alloc was planned already (its size query is @planned_with_new_alloc_transient_size) and is not planned again
// CHECK-LABEL: func.func @planned_with_new_alloc
// CHECK:         memref.alloc() : memref<16xf32>
// CHECK-LABEL: func.func @planned_with_new_alloc_transient_size
// CHECK:         arith.constant 64 : index
func.func @planned_with_new_alloc(%storage: memref<?xi8> {memplan.transients})
    attributes {memplan.transient_size_fn = @planned_with_new_alloc_transient_size} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = memref.view %storage[%c0][] : memref<?xi8> to memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<16xf32>)
  %a = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  memref.dealloc %a : memref<16xf32>
  return
}
func.func @planned_with_new_alloc_transient_size() -> index {
  %c64 = arith.constant 64 : index
  return %c64 : index
}

// -----

// A function that names a size query that does not exist: its storage size
// is unknown, an error rather than a new (too small) query.
// expected-error @below {{@lost_query was planned already, but its size query @gone (memplan.transient_size_fn) does not exist: its storage size is unknown}}
func.func @lost_query(%storage: memref<?xi8> {memplan.transients})
    attributes {memplan.transient_size_fn = @gone} {
  return
}
