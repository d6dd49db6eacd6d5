// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops dump-alias-sets" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops dump-alias-sets})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets allow-return-allocs-from-loops})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops})' | diff - %t.up

// Differential test against upstream: scf.while (condition/yield
// equivalence, repetitive before/after regions).

func.func @while1(%t: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, f32) {
  %r = scf.while (%a = %t) : (tensor<8xf32>) -> tensor<8xf32> {
    %x = tensor.extract %a[%i] : tensor<8xf32>
    scf.condition(%c) %a : tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>):
    %w = tensor.insert %f into %b[%i] : tensor<8xf32>
    scf.yield %w : tensor<8xf32>
  }
  %y = tensor.extract %t[%i] : tensor<8xf32>
  return %r, %y : tensor<8xf32>, f32
}
// -----
func.func @while2(%t: tensor<8xf32>, %u: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = scf.while (%a = %t, %a2 = %u) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    scf.condition(%c) %a, %a2 : tensor<8xf32>, tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>, %b2: tensor<8xf32>):
    %w = tensor.insert %f into %b[%i] : tensor<8xf32>
    scf.yield %w, %b2 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
// -----
func.func @while_swap(%t: tensor<8xf32>, %u: tensor<8xf32>, %f: f32, %i: index, %c: i1) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = scf.while (%a = %t, %a2 = %u) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %w = tensor.insert %f into %a[%i] : tensor<8xf32>
    scf.condition(%c) %a2, %w : tensor<8xf32>, tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>, %b2: tensor<8xf32>):
    scf.yield %b2, %b : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
// RUN: not mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only" 2> %t.uperr
// RUN: not memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only})" 2> %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: FileCheck %s --check-prefix=ERR < %t.uperr
// ERR: error: Condition arg #0 is not equivalent to the corresponding iter bbArg
