// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | FileCheck %s
// RUN: mlir-opt %s --split-input-file -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops})' | diff - %t.up2

// Unstructured control flow outside the cf.br / cf.cond_br of function
// bodies: a multi-block scf.execute_region, and cf.switch forwarding a
// tensor (an unknown op upstream whose forwarded operands still alias the
// successor's block arguments). memplan analyzes both through the
// interfaces, as upstream does.

// The insert into the function argument inside the multi-block region is in
// place, and the region's result is equivalent to the argument.
// CHECK-LABEL: func.func @execute_region
//  CHECK-SAME:   bufferization.access = "read-write"
//       CHECK:   tensor.insert {{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
//       CHECK:   return {__equivalent_func_args__ = [0], __inplace_operands_attr__ = ["true"]}
func.func @execute_region(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %r = scf.execute_region -> tensor<8xf32> {
    cf.br ^bb1
  ^bb1:
    %w = tensor.insert %f into %t[%c0] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
// -----

// cf.switch is an unknown op: the tensor it forwards is copied (it may be
// written through the block argument), so the argument is only read.
// CHECK-LABEL: func.func @switch
//  CHECK-SAME:   bufferization.access = "read"
//       CHECK:   cf.switch
//       CHECK:   ] {__inplace_operands_attr__ = ["none", "false"]}
//       CHECK:   tensor.insert {{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
func.func @switch(%t: tensor<8xf32>, %f: f32, %v: i32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
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
