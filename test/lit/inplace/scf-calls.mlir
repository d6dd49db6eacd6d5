// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets allow-return-allocs-from-loops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops analysis-heuristic=fuzzer analysis-fuzzer-seed=7" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops analysis-heuristic=fuzzer analysis-fuzzer-seed=7})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s

// Differential test against upstream: scf.for / scf.if / scf.execute_region,
// arith.select, materialize_in_destination, alloc_tensor, constants,
// element-wise linalg ops and function calls (module analysis).

// A loop that only yields its iter_arg: the init operand of a non-writable
// argument is copied (the loop's buffer may be written), that of a writable
// one is in place and the result is equivalent to it.
// CHECK-LABEL: func @scf_for_yield_only
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg0)
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "false"]}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg1)
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "true"]}
// CHECK: return {__equivalent_func_args__ = [-1, 1]
func.func @scf_for_yield_only(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    scf.yield %t : tensor<?xf32>
  }
  %r1 = scf.for %i = %lb to %ub step %step iter_args(%t = %B) -> (tensor<?xf32>) {
    scf.yield %t : tensor<?xf32>
  }
  return %r0, %r1: tensor<?xf32>, tensor<?xf32>
}
// -----
// Inside the loop both inserts are in place into the iter_args; the init of
// the non-writable %A is copied once at the loop entry.
// CHECK-LABEL: func @scf_for_with_tensor.insert_slice
// CHECK: tensor.insert_slice %arg2 into %arg7{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: tensor.insert_slice %arg2 into %arg8{{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "false", "true"]}
// CHECK: return {__equivalent_func_args__ = [-1, 1]
func.func @scf_for_with_tensor.insert_slice(%A : tensor<?xf32> {bufferization.writable = false}, %B : tensor<?xf32> {bufferization.writable = true}, %C : tensor<4xf32> {bufferization.writable = false}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r0:2 = scf.for %i = %lb to %ub step %step iter_args(%tA = %A, %tB = %B) -> (tensor<?xf32>, tensor<?xf32>) {
    %ttA = tensor.insert_slice %C into %tA[0][4][1] : tensor<4xf32> into tensor<?xf32>
    %ttB = tensor.insert_slice %C into %tB[0][4][1] : tensor<4xf32> into tensor<?xf32>
    scf.yield %ttA, %ttB : tensor<?xf32>, tensor<?xf32>
  }
  return %r0#0, %r0#1: tensor<?xf32>, tensor<?xf32>
}
// -----
// The external @some_use may read and write its operand, so each call copies
// it (its operand is read again in the next iteration). scf.for counts as
// writing its init operand, so the first loop's init is copied (%A is read
// again by the second loop); the second loop is in place and its result is
// equivalent to %A. %B is unused.
// CHECK-LABEL: func private @some_use(tensor<?xf32> {bufferization.access = "read-write"})
// CHECK-LABEL: func @scf_for_deps
// CHECK-SAME: %arg1: tensor<?xf32> {bufferization.access = "none", bufferization.writable = true}
// CHECK: func.call @some_use(%arg6) {__inplace_operands_attr__ = ["false"]}
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "false"]}
// CHECK: func.call @some_use(%arg6) {__inplace_operands_attr__ = ["false"]}
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "true"]}
// CHECK: return {__equivalent_func_args__ = [0]
func.func private @some_use(tensor<?xf32>) -> ()
func.func @scf_for_deps(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index) -> (tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    func.call @some_use(%t) : (tensor<?xf32>) -> ()
    scf.yield %t : tensor<?xf32>
  }
  %r1 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    func.call @some_use(%t) : (tensor<?xf32>) -> ()
    scf.yield %t : tensor<?xf32>
  }
  return %r1: tensor<?xf32>
}
// -----
// scf.if whose branches yield %t1 or a write into %t1: the write is in place
// and the result is equivalent to %t1.
// CHECK-LABEL: func @scf_if_inplace
// CHECK: vector.transfer_write %arg2, %arg1[%arg3] {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: return {__equivalent_func_args__ = [1]
func.func @scf_if_inplace(%cond: i1, %t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index) -> tensor<?xf32> {
  %r = scf.if %cond -> (tensor<?xf32>) {
    scf.yield %t1 : tensor<?xf32>
  } else {
    %t2 = vector.transfer_write %v, %t1[%idx] : vector<5xf32>, tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
// -----
// The same scf.if inside scf.for over an iter_arg: still in place, loop init
// in place, result equivalent to %t1.
// CHECK-LABEL: func @scf_if_inside_scf_for
// CHECK: vector.transfer_write %arg1, %arg5[%arg2] {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: } {__inplace_operands_attr__ = ["none", "none", "none", "true"]}
// CHECK: return {__equivalent_func_args__ = [0]
func.func @scf_if_inside_scf_for(%t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index, %cond: i1) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %iv = %c0 to %c10 step %c1 iter_args(%bb = %t1) -> (tensor<?xf32>) {
    %r2 = scf.if %cond -> (tensor<?xf32>) {
      scf.yield %bb : tensor<?xf32>
    } else {
      %t2 = vector.transfer_write %v, %bb[%idx] : vector<5xf32>, tensor<?xf32>
      scf.yield %t2 : tensor<?xf32>
    }
    scf.yield %r2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
// -----
// Branches yield different arguments: the yields are in place, but the
// result is equivalent to neither argument (no __equivalent_func_args__).
// CHECK-LABEL: func @scf_if_non_equiv_yields
// CHECK-COUNT-2: scf.yield {__inplace_operands_attr__ = ["true"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %0 : tensor<4xf32>
func.func @scf_if_non_equiv_yields(%b : i1, %A : tensor<4xf32> {bufferization.writable = false}, %B : tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %r = scf.if %b -> (tensor<4xf32>) {
    scf.yield %A : tensor<4xf32>
  } else {
    scf.yield %B : tensor<4xf32>
  }
  return %r: tensor<4xf32>
}
// -----
// scf.execute_region yielding a tensor.empty: in-place yield, only read.
// CHECK-LABEL: func @scf_execute_region_yield_non_equivalent
// CHECK: scf.execute_region
// CHECK: scf.yield {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.extract %0{{.*}} {__inplace_operands_attr__ = ["true", "none"]}
func.func @scf_execute_region_yield_non_equivalent(%i: index, %j: index) -> f32 {
  %r = scf.execute_region -> (tensor<?xf32>) {
    %t2 = tensor.empty(%i) : tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  }
  %f = tensor.extract %r[%j] : tensor<?xf32>
  return %f : f32
}
// -----
// Both branches write %t1, which is read after the scf.if: both writes go
// out of place.
// CHECK-LABEL: func @scf_if_out_of_place1b
// CHECK: vector.transfer_write %arg1, %arg0[%arg2] {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: vector.transfer_write %arg1, %arg0[%arg3] {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: vector.transfer_read %arg0
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %0, %1
func.func @scf_if_out_of_place1b(%t1: tensor<?xf32> {bufferization.writable = true}, %v: vector<5xf32>, %idx: index, %idx2: index, %idx3: index, %cond: i1) -> (tensor<?xf32>, vector<10xf32>) {
  %cst = arith.constant 0.0 : f32
  %r = scf.if %cond -> (tensor<?xf32>) {
    %t2 = vector.transfer_write %v, %t1[%idx] : vector<5xf32>, tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  } else {
    %t3 = vector.transfer_write %v, %t1[%idx2] : vector<5xf32>, tensor<?xf32>
    scf.yield %t3 : tensor<?xf32>
  }
  %v2 = vector.transfer_read %t1[%idx3], %cst : tensor<?xf32>, vector<10xf32>
  return %r, %v2 : tensor<?xf32>, vector<10xf32>
}
// -----
// The insert into %B, defined outside the loop, would accumulate across
// iterations (each iteration must see the original %B): out of place. The
// insert_slice into the iter_arg is in place.
// CHECK-LABEL: func @write_to_same_tensor_in_loop_out_of_place
// CHECK: tensor.insert {{.*}} into %arg1[%arg6] {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: tensor.insert_slice %inserted into %arg7{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: return {__equivalent_func_args__ = [0]
func.func @write_to_same_tensor_in_loop_out_of_place(%A : tensor<?xf32> {bufferization.writable = true}, %B : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index, %sz: index) -> (tensor<?xf32>) {
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    %i2 = arith.index_cast %i : index to i32
    %i3 = arith.sitofp %i2 : i32 to f32
    %B2 = tensor.insert %i3 into %B[%i] : tensor<?xf32>
    %A2 = tensor.insert_slice %B2 into %t[%i][%sz][1] : tensor<?xf32> into tensor<?xf32>
    scf.yield %A2 : tensor<?xf32>
  }
  return %r0 : tensor<?xf32>
}
// -----
// The same with a tensor.empty instead of %B: its contents are undefined, so
// the insert into it is in place.
// CHECK-LABEL: func @write_to_same_alloc_tensor_in_place
// CHECK: tensor.insert {{.*}} into %0[%arg6] {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: tensor.insert_slice %inserted into %arg7{{.*}} {__inplace_operands_attr__ = ["true", "true", "none", "none"]}
// CHECK: return {__equivalent_func_args__ = [0]
func.func @write_to_same_alloc_tensor_in_place(%A : tensor<?xf32> {bufferization.writable = true}, %lb : index, %ub : index, %step : index, %sz: index, %sz2: index) -> (tensor<?xf32>) {
  %B = tensor.empty(%sz2) : tensor<?xf32>
  %r0 = scf.for %i = %lb to %ub step %step iter_args(%t = %A) -> (tensor<?xf32>) {
    %i2 = arith.index_cast %i : index to i32
    %i3 = arith.sitofp %i2 : i32 to f32
    %B2 = tensor.insert %i3 into %B[%i] : tensor<?xf32>
    %A2 = tensor.insert_slice %B2 into %t[%i][%sz][1] : tensor<?xf32> into tensor<?xf32>
    scf.yield %A2 : tensor<?xf32>
  }
  return %r0 : tensor<?xf32>
}
// -----
// arith.select may alias either operand: the insert into the selection would
// be seen by the later extract of %t1, so the %t1 operand of the select is
// copied; %t2 and the insert are in place.
// CHECK-LABEL: func @select_1
// CHECK: arith.select %arg2, %arg0, %arg1 {__inplace_operands_attr__ = ["none", "false", "true"]}
// CHECK: tensor.insert {{.*}} into %0{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %inserted, %extracted
func.func @select_1(%t1 : tensor<?xf32> {bufferization.writable = true}, %t2 : tensor<?xf32> {bufferization.writable = true}, %c: i1, %idx: index, %f: f32) -> (tensor<?xf32>, f32) {
  %s = arith.select %c, %t1, %t2 : tensor<?xf32>
  %w = tensor.insert %f into %s[%idx] : tensor<?xf32>
  %r = tensor.extract %t1[%idx] : tensor<?xf32>
  return %w, %r : tensor<?xf32>, f32
}
// -----
// %t is returned unchanged, so the insert into it is out of place;
// materialize_in_destination writes into the tensor.empty in place.
// CHECK-LABEL: func @materialize
// CHECK: tensor.insert {{.*}} into %arg0{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: bufferization.materialize_in_destination %inserted in %0 {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: return {__equivalent_func_args__ = [-1, 0]
func.func @materialize(%t: tensor<?xf32>, %f: f32, %i: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %d = tensor.empty(%i) : tensor<?xf32>
  %0 = tensor.insert %f into %t[%i] : tensor<?xf32>
  %1 = bufferization.materialize_in_destination %0 in %d : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %1, %t : tensor<?xf32>, tensor<?xf32>
}
// -----
// alloc_tensor copy(%t) is a new buffer: the insert into it is in place. A
// constant is read-only: the insert into it is out of place.
// CHECK-LABEL: func @alloc_tensor
// CHECK: bufferization.alloc_tensor() copy(%arg0) {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.insert {{.*}} into %0{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: tensor.insert {{.*}} into %cst{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
func.func @alloc_tensor(%t: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = bufferization.alloc_tensor() copy(%t) : tensor<8xf32>
  %c = arith.constant 0 : index
  %1 = tensor.insert %f into %0[%c] : tensor<8xf32>
  %cst = arith.constant dense<1.0> : tensor<8xf32>
  %2 = tensor.insert %f into %cst[%c] : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
// -----
// Element-wise linalg ops may write their output in place even where an
// input aliases the output with the same indexing map (each element is read
// before it is written), so
// the whole chain is in place and the result is equivalent to %b.
// CHECK-LABEL: func @ew
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}} outs(%arg0 : {{.*}} {__inplace_operands_attr__ = ["true", "true", "true"]}
// CHECK: linalg.generic {{.*}} ins(%0 : {{.*}} outs(%0 : {{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: linalg.copy {__inplace_operands_attr__ = ["true", "true"]} ins(%1 {{.*}} outs(%arg1
// CHECK: linalg.map {{.*}} outs(%2 : tensor<8xf32>) {__inplace_operands_attr__ = ["true", "true", "true"]}
// CHECK: return {__equivalent_func_args__ = [1]
#id = affine_map<(d0) -> (d0)>
func.func @ew(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.copy ins(%1 : tensor<8xf32>) outs(%b : tensor<8xf32>) -> tensor<8xf32>
  %3 = linalg.map ins(%2, %1 : tensor<8xf32>, tensor<8xf32>) outs(%2 : tensor<8xf32>) (%x: f32, %y: f32, %z: f32) { %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32 }
  return %3 : tensor<8xf32>
}
// -----
// Module analysis: @callee writes %a in place and returns %b, which it must
// not write (the insert into %b goes out of place): both results are
// equivalent to arguments. In @caller, %a is read after the first call,
// which writes it: that operand is copied; the second call passes results
// equivalent to %b and %a's copy and stays in place, so the first result is
// equivalent to %b.
// CHECK-LABEL: func @callee
// CHECK-SAME: %arg0: tensor<8xf32> {bufferization.access = "read-write"}, %arg1: tensor<8xf32> {bufferization.access = "read"}
// CHECK: tensor.insert {{.*}} into %arg0{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: tensor.insert {{.*}} into %arg1{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: return {__equivalent_func_args__ = [0, 1]
// CHECK-LABEL: func @caller
// CHECK-SAME: %arg0: tensor<8xf32> {bufferization.access = "read"}, %arg1: tensor<8xf32> {bufferization.access = "read-write"}
// CHECK: call @callee(%arg0, %arg1, %arg2) {__inplace_operands_attr__ = ["false", "true", "none"]}
// CHECK: call @callee(%0#1, %0#0, %extracted) {__inplace_operands_attr__ = ["true", "true", "none"]}
// CHECK: return {__equivalent_func_args__ = [1, -1]
func.func @callee(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant 0 : index
  %0 = tensor.insert %f into %a[%c] : tensor<8xf32>
  %x = tensor.extract %b[%c] : tensor<8xf32>
  %1 = tensor.insert %x into %b[%c] : tensor<8xf32>
  return %0, %b : tensor<8xf32>, tensor<8xf32>
}
func.func @caller(%a: tensor<8xf32>, %b: tensor<8xf32>, %f: f32) -> (tensor<8xf32>, f32) {
  %0:2 = call @callee(%a, %b, %f) : (tensor<8xf32>, tensor<8xf32>, f32) -> (tensor<8xf32>, tensor<8xf32>)
  %c = arith.constant 0 : index
  %x = tensor.extract %a[%c] : tensor<8xf32>
  %1:2 = call @callee(%0#1, %0#0, %x) : (tensor<8xf32>, tensor<8xf32>, f32) -> (tensor<8xf32>, tensor<8xf32>)
  return %1#0, %x : tensor<8xf32>, f32
}
