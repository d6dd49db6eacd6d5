// RUN: not memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' 2>&1 | FileCheck %s
// RUN: mlir-opt %s --split-input-file -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries allow-unknown-ops" > %t.up
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops})' 2> %t.err | diff - %t.up
// RUN: FileCheck %s --check-prefix=REMARK < %t.err

// Unstructured control flow that memplan does not model: multi-block regions
// outside func.func bodies (upstream analyzes a multi-block
// scf.execute_region) and branches other than cf.br / cf.cond_br forwarding
// tensors (upstream treats cf.switch as an unknown op whose forwarded
// operands still alias the successor's block arguments). With
// test-analysis-only a located error naming the construct; in rewrite mode a
// remark, and upstream's own analysis bufferizes the module.

func.func @execute_region(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  // CHECK: unstructured-cf-unmodeled.mlir:[[@LINE+2]]:8: error: memplan-one-shot-bufferize: unstructured control flow (a multi-block region) in 'scf.execute_region' is not modeled; memplan models multi-block regions only in func.func bodies
  // REMARK: unstructured-cf-unmodeled.mlir:[[@LINE+1]]:8: remark: memplan-one-shot-bufferize: unstructured control flow (a multi-block region) in 'scf.execute_region' is not modeled; memplan models multi-block regions only in func.func bodies; falling back to upstream's analysis
  %r = scf.execute_region -> tensor<8xf32> {
    cf.br ^bb1
  ^bb1:
    %w = tensor.insert %f into %t[%c0] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
// -----
func.func @switch(%t: tensor<8xf32>, %f: f32, %v: i32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  // CHECK: unstructured-cf-unmodeled.mlir:[[@LINE+2]]:3: error: memplan-one-shot-bufferize: 'cf.switch' forwarding tensors to a block (unstructured control flow) is not modeled; memplan models cf.br and cf.cond_br
  // REMARK: unstructured-cf-unmodeled.mlir:[[@LINE+1]]:3: remark: memplan-one-shot-bufferize: 'cf.switch' forwarding tensors to a block
  cf.switch %v : i32, [
    default: ^bb1(%t : tensor<8xf32>),
    42: ^bb2
  ]
^bb1(%a: tensor<8xf32>):
  %w = tensor.insert %f into %a[%c0] : tensor<8xf32>
  return %w : tensor<8xf32>
^bb2:
  return %t : tensor<8xf32>
}
