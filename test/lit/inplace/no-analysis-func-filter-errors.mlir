// RUN: not mlir-opt %s -one-shot-bufferize="test-analysis-only no-analysis-func-filter=skipped" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only no-analysis-func-filter=skipped})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{no-analysis-func-filter=skipped})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries no-analysis-func-filter=skipped})' 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries test-analysis-only no-analysis-func-filter=skipped" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only no-analysis-func-filter=skipped})' | diff - %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only no-analysis-func-filter=skipped})' | FileCheck %s

// no-analysis-func-filter needs bufferize-function-boundaries: upstream
// rejects the option before any analysis; memplan with the same message
// (located at the module).
// OPTION: error: Invalid option: 'no-analysis-func-filter' requires 'bufferize-function-boundaries'

// In rewrite mode upstream bufferizes a skipped function with a plain
// AnalysisState that its func.call model casts to a OneShotAnalysisState: a
// call with tensor operands in a skipped function crashes mlir-opt
// (segfault). memplan refuses with a located error instead; with
// test-analysis-only the module is analyzed exactly like upstream.

// With test-analysis-only, @callee is analyzed (its result is equivalent to
// its argument, which is only read) while @skipped is not: no decision
// inside it and no bufferization.access on its argument.
// CHECK-LABEL: func @callee
// CHECK-SAME: %arg0: tensor<4xf32> {bufferization.access = "read"}
// CHECK: return {__equivalent_func_args__ = [0], __inplace_operands_attr__ = ["true"]}
// CHECK-LABEL: func @skipped
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = call @callee(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %0 : tensor<4xf32>
func.func @callee(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}

func.func @skipped(%t: tensor<4xf32>) -> tensor<4xf32> {
  // CALL: no-analysis-func-filter-errors.mlir:[[@LINE+1]]:8: error: 'func.call' op memplan-one-shot-bufferize: a func.call with tensor operands in a function named in no-analysis-func-filter crashes upstream's rewrite (MLIR 22); only test-analysis-only supports it
  %r = call @callee(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
