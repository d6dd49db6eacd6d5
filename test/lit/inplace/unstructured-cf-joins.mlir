// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts cfg-conflicts-as-upstream})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s

// memplan's write conflict across blocks (a write to a block argument in a
// block after the argument's, with a read after it; see
// unstructured-cf.mlir, @diamond_entry_arg) asks whether the written buffer
// may be the argument's buffer, walking the aliasing operands back from both:
// not whether their alias sets were merged. A join merges the sets of what
// its predecessors forward, and a select or a call merges those of its
// operands, without one buffer being the other. Where the written buffer
// cannot be the argument's, memplan decides as upstream does; where it may
// be, it keeps the conflict upstream misses.

// Reduced from a generated program: the select merges %b with the scf.if's
// result, so the read of %s (the return's) is read through the definition
// %b, and the insert into %a in ^bb3 would count as a write to %b (one copy
// of %a too many). It writes only %a's buffer: in place, as upstream. The
// forwarded %a then conflicts with it in ^bb3's own block (upstream's rule).
// CHECK-LABEL: func @select_of_another_argument
func.func @select_of_another_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %i: index) -> (tensor<8xf32>, tensor<8xf32>) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // CHECK: cf.br
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  cf.br ^bb3(%a : tensor<8xf32>)
^bb2:
  // CHECK: cf.br
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  cf.br ^bb3(%a : tensor<8xf32>)
^bb3(%m: tensor<8xf32>):
  %r = scf.if %c -> (tensor<8xf32>) {
    scf.yield %a : tensor<8xf32>
  } else {
    // CHECK: tensor.insert
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
    %w = tensor.insert %f into %a[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  %s = arith.select %c, %b, %r : tensor<8xf32>
  return %m, %s : tensor<8xf32>, tensor<8xf32>
}

// -----

// The join's argument merges %b's set (written in ^bb1) with %a's (read in
// ^bb3), but the insert writes %b's buffer, never %a's: in place, as
// upstream.
// CHECK-LABEL: func @join_of_another_argument
func.func @join_of_another_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // CHECK: tensor.insert
  // CHECK-NOT: CONFL
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %b[%c0] : tensor<8xf32>
  cf.br ^bb3(%w : tensor<8xf32>)
^bb2:
  cf.br ^bb3(%a : tensor<8xf32>)
^bb3(%m: tensor<8xf32>):
  %x = tensor.extract %a[%c0] : tensor<8xf32>
  return %m, %x : tensor<8xf32>, f32
}

// -----

// The same through a call whose result is its operand (@id returns its
// argument): the walk goes from the call's result to its operand, %b, not
// %a. In place, as upstream.
func.func private @id(%t: tensor<8xf32>) -> tensor<8xf32> {
  return %t : tensor<8xf32>
}
// CHECK-LABEL: func @join_of_a_call_on_another_argument
func.func @join_of_a_call_on_another_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // CHECK: call @id
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  %r = call @id(%b) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: tensor.insert
  // CHECK-NOT: CONFL
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %r[%c0] : tensor<8xf32>
  cf.br ^bb3(%w : tensor<8xf32>)
^bb2:
  cf.br ^bb3(%a : tensor<8xf32>)
^bb3(%m: tensor<8xf32>):
  %x = tensor.extract %a[%c0] : tensor<8xf32>
  return %m, %x : tensor<8xf32>, f32
}

// -----

// Must still conflict: the call's result is %a's buffer when its operand is
// in place, so the insert in ^bb1 would overwrite %a before ^bb3 reads it.
// Upstream puts the call's operand in place (the write is outside %a's
// block) and the extract reads %f; memplan copies %a for the call.
func.func private @id(%t: tensor<8xf32>) -> tensor<8xf32> {
  return %t : tensor<8xf32>
}
// CHECK-LABEL: func @join_of_a_call_on_the_argument
func.func @join_of_a_call_on_the_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // CHECK: call @id
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %r = call @id(%a) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: tensor.insert
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %r[%c0] : tensor<8xf32>
  cf.br ^bb3(%w : tensor<8xf32>)
^bb2:
  cf.br ^bb3(%b : tensor<8xf32>)
^bb3(%m: tensor<8xf32>):
  // CHECK: tensor.extract
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  %x = tensor.extract %a[%c0] : tensor<8xf32>
  return %m, %x : tensor<8xf32>, f32
}

// -----

// Must still conflict: after the join, %m is %a's buffer on the path through
// ^bb2, so the insert into %m in ^bb4 may overwrite %a before the extract
// reads it. Upstream forwards %a in place (the write is outside %a's block)
// and the extract reads %f on that path; memplan copies %a into the join.
// CHECK-LABEL: func @write_after_the_join
func.func @write_after_the_join(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%b : tensor<8xf32>)
^bb2:
  // CHECK: cf.br ^bb3(%arg0
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  cf.br ^bb3(%a : tensor<8xf32>)
^bb3(%m: tensor<8xf32>):
  cf.br ^bb4
^bb4:
  // CHECK: tensor.insert
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  %w = tensor.insert %f into %m[%c0] : tensor<8xf32>
  // CHECK: tensor.extract
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  %x = tensor.extract %a[%c0] : tensor<8xf32>
  return %w, %x : tensor<8xf32>, f32
}
