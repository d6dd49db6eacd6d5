// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' -debug-only=memplan-inplace-analysis 2>&1 >/dev/null | FileCheck %s

// -debug-only=memplan-inplace-analysis prints each decision of the in-place
// analysis, in its order (the last op of a block first). The destination of
// the first add is %a, which the second add reads afterwards: out of place.

// CHECK: [memplan-inplace-analysis] operand #0 of func.return at loc({{.*}}:[[@LINE+9]]:3): in place
// CHECK: [memplan-inplace-analysis] operand #2 of linalg.add at loc({{.*}}:[[@LINE+6]]:8): in place
// CHECK: [memplan-inplace-analysis] operand #0 of linalg.add at loc({{.*}}:[[@LINE+3]]:8): in place
// CHECK: [memplan-inplace-analysis] operand #2 of linalg.add at loc({{.*}}:[[@LINE+2]]:8): out of place
func.func @read_after_write(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>)
         outs(%a : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.add ins(%r, %a : tensor<8xf32>, tensor<8xf32>)
         outs(%b : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
