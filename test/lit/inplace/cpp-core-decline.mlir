// RUN: not memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-engine=cpp})' 2>&1 | FileCheck %s --check-prefix=CPP
// RUN: mlir-opt %s --allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops dump-alias-sets" > %t.up
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops dump-alias-sets})' --mlir-pass-statistics 2> %t.stats | diff - %t.up
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: not memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops print-conflicts analysis-engine=cpp})' 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops dump-alias-sets})' | FileCheck %s --check-prefixes=CHECK,ALIAS
// RUN: memplan-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops analysis-engine=cpp})' | FileCheck %s

// Where the C++ core declines: with analysis-engine=cpp that is a located
// error (here: an unknown op without allow-unknown-ops); options it leaves to
// the Python reference (dump-alias-sets, print-conflicts) are named. By
// default (auto) the reference runs and the output matches upstream.

// With allow-unknown-ops both engines decide the same: test.opaque's operand
// is copied (an unknown op's result is not writable), so %t is only read;
// the insert into test.opaque's result is copied as well. In the alias sets
// the unknown op's result aliases nothing else.
// CHECK-LABEL: func @opaque
// CHECK-SAME: %arg0: tensor<8xf32> {bufferization.access = "read"}
// CHECK: "test.opaque"(%arg0) {__inplace_operands_attr__ = ["false"]
// ALIAS-SAME: __opresult_alias_set_attr__ = {{\[}}["%0"]]
// CHECK: tensor.insert {{.*}} into %0{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]
// CHECK: return {__inplace_operands_attr__ = ["true"]}
// CPP: cpp-core-decline.mlir:[[@LINE+5]]:8: error: memplan-one-shot-bufferize: the C++ core does not handle this input: op 'test.opaque' is not bufferizable
// STATS: (S) 1 python-reference - modules the C++ core declined
// OPTS: error: memplan-one-shot-bufferize: the C++ core does not handle this input: print-conflicts
func.func @opaque(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %u = "test.opaque"(%t) : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor.insert %f into %u[%c0] : tensor<8xf32>
  return %w : tensor<8xf32>
}
