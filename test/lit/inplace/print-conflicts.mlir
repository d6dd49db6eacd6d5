// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only print-conflicts" > %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only print-conflicts})' | diff - %t.up2

// print-conflicts: the C_i[DEF/CONFL-WRITE/READ] and W_i[NOT-WRITABLE]
// annotations, numbered across the whole run as upstream does. (Each case has
// a single conflicting triple, so the attribution is unique.)

#id = affine_map<(d0) -> (d0)>
func.func @f(%A: tensor<8xf32>, %B: tensor<8xf32> {bufferization.writable = false}, %s: tensor<4xf32>, %i: index) -> (tensor<8xf32>, tensor<8xf32>, f32) {
  %c = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.fill ins(%c : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %x = tensor.extract %A[%i] : tensor<8xf32>
  %r2 = linalg.fill ins(%c : f32) outs(%B : tensor<8xf32>) -> tensor<8xf32>
  %sl = tensor.extract_slice %r[0][4][1] : tensor<8xf32> to tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%sl : tensor<4xf32>) -> tensor<4xf32>
  %ins = tensor.insert_slice %f into %r[0][4][1] : tensor<4xf32> into tensor<8xf32>
  return %ins, %r2, %x : tensor<8xf32>, tensor<8xf32>, f32
}

// -----

func.func @loop_read_after_write(%t: tensor<8xf32>, %lb: index, %ub: index, %st: index, %f: f32) -> (tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant dense<2.0> : tensor<8xf32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %t) -> (tensor<8xf32>) {
    %w = tensor.insert %f into %a[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  %x = tensor.extract %t[%c0] : tensor<8xf32>
  %k = tensor.insert %f into %cst[%c0] : tensor<8xf32>
  %y = tensor.extract %k[%c0] : tensor<8xf32>
  %z = arith.addf %x, %y : f32
  return %r, %z : tensor<8xf32>, f32
}
