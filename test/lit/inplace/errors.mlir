// RUN: not mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" 2> %t.uperr > %t.up
// RUN: not memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" 2> %t.err > %t.out
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s < %t.uperr
// RUN: grep -v -e "-\{5\}" %t.up > %t.up.nosep
// RUN: grep -v -e "-\{5\}" %t.out | diff - %t.up.nosep

// Upstream's pre-analysis checks, with its messages: to_tensor without
// restrict, and materialize_in_destination that must write in place into a
// read-only buffer. materialize_in_destination is a subset insertion of the
// whole destination: copying a value onto an equivalent buffer is no
// conflict (@materialize_raw bufferizes in place).

// CHECK: errors.mlir:[[@LINE+2]]:8: error: 'bufferization.to_tensor' op to_tensor ops without `restrict` are not supported by One-Shot Analysis
func.func @no_restrict(%m: memref<8xf32>, %f: f32, %i: index) -> tensor<8xf32> {
  %t = bufferization.to_tensor %m : memref<8xf32> to tensor<8xf32>
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  return %w : tensor<8xf32>
}
// -----
// CHECK-NOT: cannot avoid RaW conflict
func.func @materialize_raw(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, f32) {
  %d = tensor.empty() : tensor<8xf32>
  %0 = bufferization.materialize_in_destination %t in %d : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = bufferization.materialize_in_destination %0 in %d : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %x = tensor.extract %0[%i] : tensor<8xf32>
  return %1, %x : tensor<8xf32>, f32
}
// -----
// CHECK: errors.mlir:[[@LINE+3]]:8: error: 'bufferization.materialize_in_destination' op not bufferizable under the given constraints: would write to read-only buffer
func.func @materialize_ro(%t: tensor<8xf32>, %f: f32, %i: index) -> tensor<8xf32> {
  %d = arith.constant dense<1.0> : tensor<8xf32>
  %0 = bufferization.materialize_in_destination %t in %d : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
