// RUN: not memplan-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-no-such-pass)' 2>&1 | FileCheck %s --check-prefix=MEMPLAN
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-test-print-graph{colour=red})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-test-print-graph{stream=file})' 2>&1 | FileCheck %s --check-prefix=VALUE

// Unknown passes and options are named, as mlir-opt names them (exit code 1).
// UPSTREAM: 'no-such-pass' does not refer to a registered pass or pass pipeline
// MEMPLAN: 'memplan-no-such-pass' does not refer to a registered pass or pass pipeline
// OPTION: error: <Pass-Options-Parser>: no such option colour
// OPTION: failed to add `memplan-test-print-graph` with options `colour=red`
// VALUE: option 'stream' must be one of stdout, stderr; got 'file'
func.func @f() {
  return
}
