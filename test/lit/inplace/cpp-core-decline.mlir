// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-engine=cpp})' 2>&1 | FileCheck %s --check-prefix=CPP
// RUN: mlir-opt %s -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' --mlir-pass-statistics 2> %t.stats | diff - %t.up
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts analysis-engine=cpp})' 2>&1 | FileCheck %s --check-prefix=OPTS

// The C++ core leaves scf.while to the Python analysis. With
// analysis-engine=cpp that is a located error; by default (auto) the Python
// reference runs and the output still matches upstream.

// CPP: cpp-core-decline.mlir:[[@LINE+3]]:8: error: memplan-one-shot-bufferize: the C++ core does not handle this input: 'scf.while' is left to the Python analysis
// STATS: (S) 1 python-reference - modules the C++ core declined
func.func @loop(%t: tensor<8xf32>, %f: f32, %n: index) -> tensor<8xf32> {
  %r = scf.while (%a = %t) : (tensor<8xf32>) -> tensor<8xf32> {
    %c0 = arith.constant 0 : index
    %x = tensor.extract %a[%c0] : tensor<8xf32>
    %cond = arith.cmpf olt, %x, %f : f32
    scf.condition(%cond) %a : tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %w = tensor.insert %f into %b[%c0] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
// Options the core leaves to the reference are named, at the module.
// OPTS: error: memplan-one-shot-bufferize: the C++ core does not handle this input: print-conflicts
