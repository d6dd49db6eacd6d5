// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts cfg-conflicts-as-upstream})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map cfg-conflicts-as-upstream})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s

// memplan's write conflict across blocks (unstructured-cf.mlir,
// @diamond_entry_arg) is kept only where the write is one and where its copy
// costs least:
// * a loop's iteration argument counts as written (BufferizableOpInterface
//   says so of every one), but a loop whose regions never write the argument
//   nor a value that may share its buffer, whatever they decide, writes
//   nothing into its init operand: no conflict across blocks;
// * a write in a branch into a view of an argument of an earlier block (or
//   into a select of it taken before the branch) goes out of place in its
//   branch (an allocation on the writing path only), rather than the view,
//   decided later, being copied on every path;
// * a read whose data reaches no use (an op without other effects whose
//   results go unused, or only to an scf.if's unused result) is not
//   clobbered.
// With cfg-conflicts-as-upstream (the RUN lines diffed with upstream) memplan
// decides as upstream does. test_inplace_unmodeled.py runs every case here
// on both branch conditions and with zero and two trips against the
// tensor-level interpreter.

// Reduced from generated seed 910: the scf.while's iteration argument counts
// as written, and the function returns a view of %a after the loop. In one
// block upstream copies %a for the view; after a branch it does not (the
// write is not in %a's block), and it is right: the loop writes nothing.
// memplan decides as upstream: the view stays in place.
// CHECK-LABEL: func @while_never_writes_its_argument
func.func @while_never_writes_its_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<2x4xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1
^bb1:
  // CHECK: tensor.expand_shape
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  // CHECK: scf.while
  // CHECK-NOT: CONFL-WRITE
  // CHECK: __inplace_operands_attr__ = ["true", "none"]
  %w:2 = scf.while (%x = %a, %k = %c0) : (tensor<8xf32>, index) -> (tensor<8xf32>, index) {
    %go = arith.cmpi slt, %k, %n : index
    scf.condition(%go) %x, %k : tensor<8xf32>, index
  } do {
  ^bb0(%y: tensor<8xf32>, %k2: index):
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %y, %k3 : tensor<8xf32>, index
  }
  // CHECK: return
  // CHECK-NOT: READ
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "true"]
  return %v, %w#0 : tensor<2x4xf32>, tensor<8xf32>
}
// -----
// The same with an scf.for that reads its iteration argument and yields it
// unchanged: no write, the view stays in place.
// CHECK-LABEL: func @for_reads_its_argument_only
func.func @for_reads_its_argument_only(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<2x4xf32>, tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1
^bb1:
  // CHECK: tensor.expand_shape
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  // CHECK: scf.for
  // CHECK-NOT: CONFL-WRITE
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%it = %a, %acc = %f) -> (tensor<8xf32>, f32) {
    %x = tensor.extract %it[%k] : tensor<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %it, %s : tensor<8xf32>, f32
  }
  // CHECK: return
  // CHECK-NOT: READ
  return %v, %r#0, %r#1 : tensor<2x4xf32>, tensor<8xf32>, f32
}
// -----
// The copy must stay: the loop's body writes its iteration argument, so
// the loop writes %a's buffer on its first trip and the view returned after
// it would show that write. The view is copied.
// CHECK-LABEL: func @while_writes_its_argument
func.func @while_writes_its_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<2x4xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1
^bb1:
  // CHECK: tensor.expand_shape
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  // CHECK: scf.while
  // CHECK: "C_{{[0-9]+}}[CONFL-WRITE: 0]"
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "none"]
  %w:2 = scf.while (%x = %a, %k = %c0) : (tensor<8xf32>, index) -> (tensor<8xf32>, index) {
    %go = arith.cmpi slt, %k, %n : index
    scf.condition(%go) %x, %k : tensor<8xf32>, index
  } do {
  ^bb0(%y: tensor<8xf32>, %k2: index):
    %y2 = tensor.insert %f into %y[%k2] : tensor<8xf32>
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %y2, %k3 : tensor<8xf32>, index
  }
  // CHECK: return
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  return %v, %w#0 : tensor<2x4xf32>, tensor<8xf32>
}
// -----
// The copy must stay: the body writes, in place, a slice of the iteration
// argument (a value that shares its buffer) and inserts it back: the first
// trip writes %a's buffer, which the view returned after the loop shows.
// CHECK-LABEL: func @for_writes_an_alias_of_its_argument
func.func @for_writes_an_alias_of_its_argument(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<2x4xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1
^bb1:
  // CHECK: tensor.expand_shape
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  // CHECK: scf.for
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%it = %a) -> (tensor<8xf32>) {
    %s = tensor.extract_slice %it[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %g = linalg.fill ins(%f : f32) outs(%s : tensor<4xf32>) -> tensor<4xf32>
    %w = tensor.insert_slice %g into %it[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  // CHECK: "C_{{[0-9]+}}[CONFL-WRITE: 3]"
  // CHECK: return
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  return %v, %r : tensor<2x4xf32>, tensor<8xf32>
}
// -----
// The copy must stay: the body writes its iteration argument only through a
// view of it (no use of the argument itself writes) and yields the written
// view: the first trip writes %a's buffer, which the view returned after the
// loop shows. The view is copied.
// CHECK-LABEL: func @for_writes_only_through_a_view
func.func @for_writes_only_through_a_view(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<2x4xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1
^bb1:
  // CHECK: tensor.expand_shape
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  // CHECK: scf.for
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%it = %a) -> (tensor<8xf32>) {
    // CHECK: tensor.expand_shape
    // CHECK-SAME: __inplace_operands_attr__ = ["true"]
    %e = tensor.expand_shape %it [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
    // CHECK: linalg.fill
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
    %g = linalg.fill ins(%f : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
    %w = tensor.collapse_shape %g [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  // CHECK: return
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 0]"
  return %v, %r : tensor<2x4xf32>, tensor<8xf32>
}
// -----
// Reduced from generated seed 1128: the fill in ^bb1 writes a slice of %a,
// which the function returns. Upstream rules the conflict out (the write is
// not in %a's block) and returns %a with %f in its first half on the path
// through ^bb1, a miscompile. memplan puts the write out of place in ^bb1
// (linalg.fill overwrites its destination: an allocation, no copy), not the
// slice in the entry block: nothing is allocated on the path through ^bb2.
// CHECK-LABEL: func @write_into_a_slice_in_a_branch
func.func @write_into_a_slice_in_a_branch(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<4xf32>, tensor<8xf32>) {
  // CHECK: tensor.extract_slice
  // CHECK-SAME: __inplace_operands_attr__ = ["true"]
  %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %t = tensor.extract_slice %b[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // CHECK: linalg.fill
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
  %w = linalg.fill ins(%f : f32) outs(%s : tensor<4xf32>) -> tensor<4xf32>
  cf.br ^bb3(%w : tensor<4xf32>)
^bb2:
  cf.br ^bb3(%t : tensor<4xf32>)
^bb3(%r: tensor<4xf32>):
  // CHECK: return
  // CHECK-SAME: "C_{{[0-9]+}}[READ: 1]"
  return %r, %a : tensor<4xf32>, tensor<8xf32>
}
// -----
// The same in one block: upstream sees the conflict and copies the slice
// (its analysis order decides the write first); memplan decides as upstream.
// CHECK-LABEL: func @write_into_a_slice_in_one_block
func.func @write_into_a_slice_in_one_block(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<4xf32>, tensor<8xf32>) {
  // CHECK: tensor.extract_slice
  // CHECK-SAME: __inplace_operands_attr__ = ["false"]
  %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %t = tensor.extract_slice %b[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
  // CHECK: linalg.fill
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true"]
  %w = linalg.fill ins(%f : f32) outs(%s : tensor<4xf32>) -> tensor<4xf32>
  return %w, %a : tensor<4xf32>, tensor<8xf32>
}
// -----
// Reduced from generated seed 1296: the fill in the scf.if's else branch
// writes a select of %a, taken in the same block before the scf.if, and the
// function returns %a. Upstream writes both in place and returns %a filled
// with %f where %c is false, a miscompile. The select is not decided when
// the fill is (bottom-up): memplan asks the fill about %a's reads then, and
// puts it out of place in its branch (an allocation on that path only), not
// the select's %a later (a copy on every path).
// CHECK-LABEL: func @write_into_a_select_in_a_branch
func.func @write_into_a_select_in_a_branch(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  cf.br ^bb1
^bb1:
  // CHECK: arith.select
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "true"]
  %s = arith.select %c, %b, %a : tensor<8xf32>
  %r = scf.if %c -> (tensor<8xf32>) {
    scf.yield %b : tensor<8xf32>
  } else {
    // CHECK: linalg.fill
    // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
    // CHECK-SAME: __inplace_operands_attr__ = ["none", "false"]
    %w = linalg.fill ins(%f : f32) outs(%s : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  return %r, %a : tensor<8xf32>, tensor<8xf32>
}
// -----
// Reduced from generated seed 1904: the generic in ^bb3 writes %a after the
// branch, and the insert in the scf.if reads %a's old value, but the scf.if's
// result is never used: what the insert reads reaches no use. Upstream rules
// the conflict out (the write is not in %a's block), and is right here.
// memplan decides as upstream: the generic stays in place (no allocation).
// CHECK-LABEL: func @unused_read_after_a_write_in_a_later_block
func.func @unused_read_after_a_write_in_a_later_block(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  // CHECK: linalg.generic
  // CHECK-NOT: CONFL-WRITE
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "true"]
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e = tensor.extract %w[%n] : tensor<8xf32>
  %r = scf.if %c -> (tensor<8xf32>) {
    %i = tensor.insert %f into %a[%n] : tensor<8xf32>
    scf.yield %i : tensor<8xf32>
  } else {
    scf.yield %b : tensor<8xf32>
  }
  return %e : f32
}
// -----
// The same with the scf.if's result returned: the insert's read is used, so
// the generic in ^bb3 would clobber it. Upstream keeps the generic in place
// and returns 2 * %b with %f at %n where the function returns %a with %f at
// %n; memplan keeps the generic out of place.
// CHECK-LABEL: func @used_read_after_a_write_in_a_later_block
func.func @used_read_after_a_write_in_a_later_block(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32, %c: i1, %n: index) -> (f32, tensor<8xf32>) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  // CHECK: linalg.generic
  // CHECK-SAME: "C_{{[0-9]+}}[CONFL-WRITE: 1]"
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "false"]
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e = tensor.extract %w[%n] : tensor<8xf32>
  %r = scf.if %c -> (tensor<8xf32>) {
    %i = tensor.insert %f into %a[%n] : tensor<8xf32>
    scf.yield %i : tensor<8xf32>
  } else {
    scf.yield %b : tensor<8xf32>
  }
  return %e, %r : f32, tensor<8xf32>
}
