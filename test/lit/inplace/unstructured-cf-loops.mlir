// Loops through block arguments: reads and definitions found around a CFG
// cycle. Upstream cannot bufferize such loops (it cannot infer the buffer
// type of a block argument on a cycle), so only the analysis is compared.
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts cfg-conflicts-as-upstream})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only dump-alias-sets analysis-heuristic=top-down" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only dump-alias-sets analysis-heuristic=top-down cfg-conflicts-as-upstream})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' 2>&1 | FileCheck %s --check-prefix=REWRITE

// %p is read only through the back edge (the cf.br to ^bb1, whose argument
// is read in ^bb3): the branch reads %p, and the write into %p conflicts
// with it.
// CHECK-LABEL: func @read_through_back_edge
// REWRITE: error: 'func.func' op could not infer buffer type of block argument
func.func @read_through_back_edge(%t: tensor<5xf32>, %c: i1, %i: index, %f: f32) -> f32 {
  cf.br ^bb1(%t : tensor<5xf32>)
^bb1(%a: tensor<5xf32>):
  // CHECK: cf.cond_br
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
  cf.cond_br %c, ^bb2(%a : tensor<5xf32>), ^bb3
^bb2(%p: tensor<5xf32>):
  // CHECK: tensor.insert
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
  %w = tensor.insert %f into %p[%i] : tensor<5xf32>
  // CHECK: cf.br ^bb1
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  cf.br ^bb1(%p : tensor<5xf32>)
^bb3:
  %e = tensor.extract %a[%i] : tensor<5xf32>
  return %e : f32
}

// -----

// The same loop with no read after it: nothing reads %p, so the write into
// it stays in place.
// CHECK-LABEL: func @no_read_around_the_loop
func.func @no_read_around_the_loop(%t: tensor<5xf32>, %c: i1, %i: index, %f: f32) -> tensor<5xf32> {
  cf.br ^bb1(%t : tensor<5xf32>)
^bb1(%a: tensor<5xf32>):
  cf.cond_br %c, ^bb2(%a : tensor<5xf32>), ^bb3
^bb2(%p: tensor<5xf32>):
  // CHECK: tensor.insert
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %p[%i] : tensor<5xf32>
  cf.br ^bb1(%w : tensor<5xf32>)
^bb3:
  return %a : tensor<5xf32>
}

// -----

// %p's only use is the back edge: it is read because ^bb1's argument is read
// in ^bb3, around the cycle ^bb1 -> ^bb2 -> ^bb1.
// CHECK-LABEL: func @read_only_around_the_cycle
func.func @read_only_around_the_cycle(%t: tensor<5xf32>, %c: i1, %i: index) -> f32 {
  // CHECK: cf.br ^bb1
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  cf.br ^bb1(%t : tensor<5xf32>)
^bb1(%a: tensor<5xf32>):
  // CHECK: cf.cond_br
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
  cf.cond_br %c, ^bb2(%a : tensor<5xf32>), ^bb3
^bb2(%p: tensor<5xf32>):
  // CHECK: cf.br ^bb1
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  cf.br ^bb1(%p : tensor<5xf32>)
^bb3:
  %e = tensor.extract %a[%i] : tensor<5xf32>
  return %e : f32
}
