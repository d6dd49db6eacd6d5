// RUN: not memplan-opt %s --split-input-file | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-test-print-graph)' 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// Each chunk is its own module; outputs are joined with the split marker and
// diagnostics keep the line numbers of the whole file.

// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-LABEL: func.func @third
func.func @first() {
  return
}

// -----

// ERR: split-input-file.mlir:[[# @LINE + 2]]:3: error: custom op 'oops' is unknown
func.func @second() {
  oops
}

// -----

func.func @third() {
  return
}
