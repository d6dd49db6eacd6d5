// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-add-transient-storage{func=entry})' | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-add-transient-storage{func=entry})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-add-transient-storage{func=missing})' 2>&1 >/dev/null | FileCheck %s --check-prefix=MISSING

// MISSING: error: memplan-add-transient-storage: no function @missing

// The named function gets a marked storage argument after its own.
// CHECK-LABEL: func.func @entry
// CHECK-SAME:    (%{{.*}}: memref<8xf32>, %{{.*}}: memref<?xi8> {memplan.transients})
func.func @entry(%x: memref<8xf32>) {
  return
}

// -----

// A function called in the module keeps its signature: the call would break.
func.func @entry(%n: index) {
  return
}
func.func @other(%n: index) {
  // ERR: add-storage.mlir:[[# @LINE + 1]]:3: error: cannot add transient storage to @entry: it is called here
  call @entry(%n) : (index) -> ()
  return
}
