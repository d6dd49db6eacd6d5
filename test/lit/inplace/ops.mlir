// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | FileCheck %s --check-prefix=REWRITE

// Differential test against upstream: to_tensor / to_buffer, reshapes,
// allocating tensor ops, vector transfers, scf.index_switch and
// scf.execute_region, casts. The last RUN pair compares the bufferized memref
// IR of memplan's rewrite mode with upstream's.

// A to_tensor without `writable` gives a read-only buffer: the insert into it
// bufferizes out of place. With `writable` it stays in place.
// CHECK-LABEL: func @to_tensor_ops
// CHECK: tensor.insert {{.*}} into %0
// CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
// CHECK: bufferization.to_tensor %arg1 restrict writable
// CHECK: tensor.insert {{.*}} into %1
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// REWRITE-LABEL: func @to_tensor_ops
// REWRITE: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[ALLOC]] :
// REWRITE: memref.store %arg2, %[[ALLOC]][%arg3]
// REWRITE-NOT: memref.alloc
// REWRITE: memref.store %arg2, %arg1[%arg3]
// REWRITE: return %[[ALLOC]], %arg1
func.func @to_tensor_ops(%m: memref<8xf32>, %m2: memref<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = bufferization.to_tensor %m restrict : memref<8xf32> to tensor<8xf32>
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %t2 = bufferization.to_tensor %m2 restrict writable : memref<8xf32> to tensor<8xf32>
  %w2 = tensor.insert %f into %t2[%i] : tensor<8xf32>
  return %w, %w2 : tensor<8xf32>, tensor<8xf32>
}
// -----
// to_buffer reads its operand (also `read_only`): a write before it into the
// same buffer conflicts.
// CHECK-LABEL: func @to_buffer
// CHECK-SAME: %arg0: tensor<8xf32> {bufferization.access = "read-write"}
// In the bufferized IR each out-of-place insert writes a fresh copy. The
// to_buffer of %t returns an identity-layout memref of the strided argument
// buffer: upstream does not cast to a more static layout, it re-allocates and
// copies (that copy is not an analysis decision).
// REWRITE-LABEL: func @to_buffer
// REWRITE: %[[W:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[W]] :
// REWRITE: memref.store %arg1, %[[W]][%arg2]
// REWRITE: %[[B:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[B]] :
// REWRITE: %[[W2:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %[[W]], %[[W2]] :
// REWRITE: memref.store %arg1, %[[W2]][%arg2]
// REWRITE: return %[[W2]], %[[B]] :
func.func @to_buffer(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, memref<8xf32>) {
  // to_buffer %t reads %t after the insert: the insert goes out of place.
  // CHECK: tensor.insert {{.*}} into %arg0
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
  // CHECK: bufferization.to_buffer %arg0 {__inplace_operands_attr__ = ["true"]}
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %b = bufferization.to_buffer %t : tensor<8xf32> to memref<8xf32>
  // The read_only to_buffer of %w after this insert: out of place.
  // CHECK: tensor.insert {{.*}} into %inserted[
  // CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
  // CHECK: bufferization.to_buffer %inserted read_only {__inplace_operands_attr__ = ["true"]}
  %w2 = tensor.insert %f into %w[%i] : tensor<8xf32>
  %b2 = bufferization.to_buffer %w read_only : tensor<8xf32> to memref<8xf32>
  return %w2, %b : tensor<8xf32>, memref<8xf32>
}
// -----
// collapse_shape aliases its source: the insert through it would be seen by
// the later extract of %t, so the collapse (not the insert) is out of place.
// expand_shape, reshape and the insert stay in place.
// CHECK-LABEL: func @shapes
// CHECK: tensor.collapse_shape %arg0 {{.*}} {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.insert {{.*}} into %collapsed
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: tensor.expand_shape %inserted {{.*}} {__inplace_operands_attr__ = ["true"]}
// CHECK: tensor.reshape %inserted(%arg3) {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %inserted, %expanded, %dim, %reshape
// REWRITE-LABEL: func @shapes
// REWRITE: %[[A:.*]] = memref.alloc() {{.*}} : memref<2x4xf32>
// REWRITE: memref.copy %arg0, %[[A]] :
// REWRITE: %[[C:.*]] = memref.collapse_shape %[[A]] [
// REWRITE: memref.store %arg1, %{{.*}}[%arg2]
// REWRITE: memref.load %arg0[%arg2, %arg2]
func.func @shapes(%t: tensor<2x4xf32>, %f: f32, %i: index, %s: tensor<1xindex>) -> (tensor<8xf32>, tensor<2x4xf32>, index, tensor<?xf32>) {
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %w = tensor.insert %f into %c[%i] : tensor<8xf32>
  %e = tensor.expand_shape %w [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %x = tensor.extract %t[%i, %i] : tensor<2x4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %t, %c0 : tensor<2x4xf32>
  %r = tensor.reshape %w(%s) : (tensor<8xf32>, tensor<1xindex>) -> tensor<?xf32>
  %rk = tensor.rank %e : tensor<2x4xf32>
  return %w, %e, %d, %r : tensor<8xf32>, tensor<2x4xf32>, index, tensor<?xf32>
}
// -----
// pad, generate, from_elements, concat and splat allocate: writes into their
// results are in place; %t is only read (by pad, concat) before the last
// insert, which therefore writes %t in place and returns it (equivalent to
// arg 0).
// CHECK-LABEL: func @allocs
// CHECK: tensor.insert {{.*}} into %padded
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: tensor.concat {{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// CHECK: tensor.insert {{.*}} into %arg0
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: return
// CHECK-SAME: __equivalent_func_args__ = [-1, -1, -1, -1, 0]
// REWRITE-LABEL: func @allocs
// REWRITE: %[[PAD:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.store %arg1, %[[PAD]][%arg2]
// REWRITE: %[[CC:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %{{.*}}
// REWRITE: memref.copy %arg0, %{{.*}}
// REWRITE: memref.store %arg1, %arg0[%arg2]
// REWRITE: return %[[PAD]], %{{.*}}, %{{.*}}, %[[CC]], %arg0
func.func @allocs(%t: tensor<4xf32>, %f: f32, %i: index) -> (tensor<8xf32>, tensor<4xf32>, tensor<2xf32>, tensor<8xf32>, tensor<4xf32>) {
  %p = tensor.pad %t low[2] high[2] { ^bb0(%a: index): tensor.yield %f : f32 } : tensor<4xf32> to tensor<8xf32>
  %w = tensor.insert %f into %p[%i] : tensor<8xf32>
  %g = tensor.generate { ^bb0(%a: index): tensor.yield %f : f32 } : tensor<4xf32>
  %fe = tensor.from_elements %f, %f : tensor<2xf32>
  %cc = tensor.concat dim(0) %t, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  %sp = tensor.splat %f : tensor<4xf32>
  %w3 = tensor.insert %f into %t[%i] : tensor<4xf32>
  %x = tensor.extract %sp[%i] : tensor<4xf32>
  return %w, %g, %fe, %cc, %w3 : tensor<8xf32>, tensor<4xf32>, tensor<2xf32>, tensor<8xf32>, tensor<4xf32>
}
// -----
// transfer_write into %t is read back by the transfer_read of %t after it:
// out of place; the second write into the (fresh) result is in place.
// CHECK-LABEL: func @vec
// CHECK: vector.transfer_write %arg1, %arg0[%arg2] {__inplace_operands_attr__ = ["none", "false", "none"]}
// CHECK: vector.transfer_read %arg0
// CHECK: vector.transfer_write %arg1, %0[%arg2] {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %2, %1
// REWRITE-LABEL: func @vec
// REWRITE: %[[A:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[A]] :
// REWRITE: vector.transfer_write %arg1, %[[A]][%arg2]
// REWRITE: vector.transfer_read %arg0[%arg2]
// REWRITE-NOT: memref.alloc
// REWRITE: vector.transfer_write %arg1, %[[A]][%arg2]
// REWRITE: return %[[A]], %0 :
func.func @vec(%t: tensor<8xf32>, %v: vector<4xf32>, %i: index) -> (tensor<8xf32>, vector<4xf32>) {
  %cst = arith.constant 0.0 : f32
  %w = vector.transfer_write %v, %t[%i] : vector<4xf32>, tensor<8xf32>
  %r = vector.transfer_read %t[%i], %cst : tensor<8xf32>, vector<4xf32>
  %w2 = vector.transfer_write %v, %w[%i] : vector<4xf32>, tensor<8xf32>
  return %w2, %r : tensor<8xf32>, vector<4xf32>
}
// -----
// scf.index_switch: the insert into %t in case 0 would be seen by the extract
// of %t after the switch: out of place. The insert in scf.execute_region
// writes %u in place, and the result is equivalent to arg 1.
// CHECK-LABEL: func @switch
// CHECK: scf.index_switch
// CHECK: tensor.insert {{.*}} into %arg0
// CHECK-SAME: __inplace_operands_attr__ = ["none", "false", "none"]
// CHECK: scf.execute_region
// CHECK: tensor.insert {{.*}} into %arg1
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: return
// CHECK-SAME: __equivalent_func_args__ = [1, -1]
// REWRITE-LABEL: func @switch
// REWRITE: case 0 {
// REWRITE: %[[A:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// REWRITE: memref.copy %arg0, %[[A]] :
// REWRITE: memref.store %arg3, %[[A]][%arg4]
// REWRITE: memref.load %arg0[%arg4]
// REWRITE-NOT: memref.alloc
// REWRITE: memref.store %arg3, %arg1[%arg4]
func.func @switch(%t: tensor<8xf32>, %u: tensor<8xf32>, %k: index, %f: f32, %i: index) -> (tensor<8xf32>, f32) {
  %r = scf.index_switch %k -> tensor<8xf32>
  case 0 {
    %w = tensor.insert %f into %t[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  case 1 {
    scf.yield %u : tensor<8xf32>
  }
  default {
    scf.yield %t : tensor<8xf32>
  }
  %x = tensor.extract %t[%i] : tensor<8xf32>
  %e = scf.execute_region -> tensor<8xf32> {
    %w = tensor.insert %f into %u[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  return %e, %x : tensor<8xf32>, f32
}
// -----
// tensor.cast aliases %t; the insert through it would be seen by the extract
// of %t: the cast is out of place. The later insert into %t itself is in
// place (its only reader, the extract, comes before it).
// CHECK-LABEL: func @cast_chain
// CHECK: tensor.cast %arg0 {__inplace_operands_attr__ = ["false"]}
// CHECK: tensor.insert {{.*}} into %cast
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: tensor.insert %extracted into %arg0
// CHECK-SAME: __inplace_operands_attr__ = ["none", "true", "none"]
// CHECK: return
// CHECK-SAME: __equivalent_func_args__ = [-1, 0]
// REWRITE-LABEL: func @cast_chain
// REWRITE: %[[CAST:.*]] = memref.cast %arg0
// REWRITE: %[[A:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xf32>
// REWRITE: memref.copy %[[CAST]], %[[A]] :
// REWRITE: memref.store %arg1, %[[A]][%arg2]
// REWRITE-NOT: memref.alloc
// REWRITE: memref.store %{{.*}}, %arg0[%arg2]
// REWRITE: return %[[A]], %arg0
func.func @cast_chain(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<?xf32>, tensor<8xf32>) {
  %c = tensor.cast %t : tensor<8xf32> to tensor<?xf32>
  %w = tensor.insert %f into %c[%i] : tensor<?xf32>
  %x = tensor.extract %t[%i] : tensor<8xf32>
  %w2 = tensor.insert %x into %t[%i] : tensor<8xf32>
  return %w, %w2 : tensor<?xf32>, tensor<8xf32>
}
