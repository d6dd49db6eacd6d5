// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only analysis-heuristic=top-down dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries})' | diff - %t.up

// Differential test against upstream: to_tensor / to_buffer, reshapes,
// allocating tensor ops, vector transfers, scf.index_switch and
// scf.execute_region, casts. The last RUN pair compares the bufferized memref
// IR of memplan's rewrite mode with upstream's.

func.func @to_tensor_ops(%m: memref<8xf32>, %m2: memref<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = bufferization.to_tensor %m restrict : memref<8xf32> to tensor<8xf32>
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %t2 = bufferization.to_tensor %m2 restrict writable : memref<8xf32> to tensor<8xf32>
  %w2 = tensor.insert %f into %t2[%i] : tensor<8xf32>
  return %w, %w2 : tensor<8xf32>, tensor<8xf32>
}
// -----
func.func @to_buffer(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<8xf32>, memref<8xf32>) {
  %w = tensor.insert %f into %t[%i] : tensor<8xf32>
  %b = bufferization.to_buffer %t : tensor<8xf32> to memref<8xf32>
  %w2 = tensor.insert %f into %w[%i] : tensor<8xf32>
  %b2 = bufferization.to_buffer %w read_only : tensor<8xf32> to memref<8xf32>
  return %w2, %b : tensor<8xf32>, memref<8xf32>
}
// -----
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
func.func @vec(%t: tensor<8xf32>, %v: vector<4xf32>, %i: index) -> (tensor<8xf32>, vector<4xf32>) {
  %cst = arith.constant 0.0 : f32
  %w = vector.transfer_write %v, %t[%i] : vector<4xf32>, tensor<8xf32>
  %r = vector.transfer_read %t[%i], %cst : tensor<8xf32>, vector<4xf32>
  %w2 = vector.transfer_write %v, %w[%i] : vector<4xf32>, tensor<8xf32>
  return %w2, %r : tensor<8xf32>, vector<4xf32>
}
// -----
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
func.func @cast_chain(%t: tensor<8xf32>, %f: f32, %i: index) -> (tensor<?xf32>, tensor<8xf32>) {
  %c = tensor.cast %t : tensor<8xf32> to tensor<?xf32>
  %w = tensor.insert %f into %c[%i] : tensor<?xf32>
  %x = tensor.extract %t[%i] : tensor<8xf32>
  %w2 = tensor.insert %x into %t[%i] : tensor<8xf32>
  return %w, %w2 : tensor<?xf32>, tensor<8xf32>
}
