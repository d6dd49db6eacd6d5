// RUN: memplan-opt %s -verify-diagnostics -memplan-one-shot-bufferize='analysis-heuristic=fuzzer' -o %t

// The fuzzer heuristic without a seed (upstream aborts on it) is an error on
// the module, reported before upstream is called.
// expected-error @+1 {{analysis-heuristic=fuzzer needs a non-zero analysis-fuzzer-seed}}
module {
  func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
    return %t : tensor<4xf32>
  }
}
