// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only analysis-heuristic=top-down" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only analysis-heuristic=top-down})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=fuzzer analysis-fuzzer-seed=7" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=fuzzer analysis-fuzzer-seed=7})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=bottom-up-from-terminators})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s

// The in-place engine under upstream's four analysis orders: each split
// matches upstream byte for byte in every order.

// CHECK-LABEL: func @shared_read
func.func @shared_read(%arg: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "true", "true"]
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%arg, %arg : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // The second write into %arg would clobber what the first generic reads
  // later on: out of place.
  // CHECK: linalg.generic
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "false"]
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%arg : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%b, %arg : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @insert_slice_chain
func.func @insert_slice_chain(%t: tensor<4x4xf32>, %s: tensor<1x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  // CHECK: tensor.insert_slice
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "false"]
  %0 = tensor.insert_slice %s into %t[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
  // CHECK: tensor.insert_slice
  // CHECK-SAME: __inplace_operands_attr__ = ["true", "true"]
  %1 = tensor.insert_slice %s into %0[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<4x4xf32>
  return %1, %t : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func @tiled_loop
func.func @tiled_loop(%t: tensor<32xf32>, %f: f32) -> tensor<32xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  // CHECK: scf.for
  %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%acc = %t) -> (tensor<32xf32>) {
    // CHECK: tensor.extract_slice
    // CHECK-SAME: __inplace_operands_attr__ = ["true", "none"]
    %tile = tensor.extract_slice %acc[%i] [8] [1] : tensor<32xf32> to tensor<8xf32>
    %filled = linalg.fill ins(%f : f32) outs(%tile : tensor<8xf32>) -> tensor<8xf32>
    // CHECK: tensor.insert_slice
    // CHECK-SAME: __inplace_operands_attr__ = ["true", "true", "none"]
    %ins = tensor.insert_slice %filled into %acc[%i] [8] [1] : tensor<8xf32> into tensor<32xf32>
    scf.yield %ins : tensor<32xf32>
  }
  return %r : tensor<32xf32>
}

// -----

// CHECK-LABEL: func @callee
func.func @callee(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %w = tensor.insert %f into %t[%c0] : tensor<8xf32>
  return %w : tensor<8xf32>
}
// CHECK-LABEL: func @caller
func.func @caller(%t: tensor<8xf32> {bufferization.writable = false}, %f: f32, %b: i1) -> (tensor<8xf32>, f32) {
  %c1 = arith.constant 1 : index
  // Writing into a read-only argument: out of place.
  // CHECK: call @callee
  // CHECK-SAME: __inplace_operands_attr__ = ["false", "none"]
  %r = func.call @callee(%t, %f) : (tensor<8xf32>, f32) -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // CHECK: arith.select
  %s = arith.select %b, %r, %e : tensor<8xf32>
  %x = tensor.extract %t[%c1] : tensor<8xf32>
  %y = scf.if %b -> (tensor<8xf32>) {
    scf.yield %s : tensor<8xf32>
  } else {
    %g = tensor.insert %f into %s[%c1] : tensor<8xf32>
    scf.yield %g : tensor<8xf32>
  }
  return %y, %x : tensor<8xf32>, f32
}

// -----

// CHECK-LABEL: func @while_loop
func.func @while_loop(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  // The loop carries %t's buffer through: in place.
  // CHECK: scf.while
  // CHECK: scf.condition
  // CHECK: tensor.insert
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
  // CHECK: } attributes {__inplace_operands_attr__ = ["true"]}
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

// -----

// CHECK-LABEL: func @forall_tiles
func.func @forall_tiles(%t: tensor<32xf32>, %f: f32) -> (tensor<32xf32>, f32) {
  %c0 = arith.constant 0 : index
  // %t is read after the loop: the shared output is copied.
  // CHECK: scf.forall
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<32xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 8)>(%i)
    %tile = tensor.extract_slice %o[%off] [8] [1] : tensor<32xf32> to tensor<8xf32>
    %filled = linalg.fill ins(%f : f32) outs(%tile : tensor<8xf32>) -> tensor<8xf32>
    scf.forall.in_parallel {
      // CHECK: tensor.parallel_insert_slice
      // CHECK-SAME: __inplace_operands_attr__ = ["true", "true", "none"]
      tensor.parallel_insert_slice %filled into %o[%off] [8] [1] : tensor<8xf32> into tensor<32xf32>
    }
  // CHECK: } {__inplace_operands_attr__ = ["false"]}
  }
  %x = tensor.extract %t[%c0] : tensor<32xf32>
  return %r, %x : tensor<32xf32>, f32
}
