// RUN: not memplan-opt %s 2>&1 | FileCheck %s
// RUN: not memplan-opt %s -o %t.out
// RUN: not test -e %t.out

// Unparsable input: MLIR's diagnostic with file:line:col, exit 1, no output file.
// CHECK: parse-error.mlir:[[# @LINE + 2]]:3: error: Dialect `bogus' not found for custom op 'bogus.op'
func.func @f() {
  bogus.op
}
