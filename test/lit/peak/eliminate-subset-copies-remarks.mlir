// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-eliminate-subset-copies{remarks})' -o /dev/null
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-eliminate-subset-copies{remarks=maybe})' 2>&1 | FileCheck %s --check-prefix=OPTION

// With `remarks`, memplan-eliminate-subset-copies says per candidate value
// whether its producers now write into the subset, or why it stays a copy.

// OPTION: error: option 'remarks' expects true or false, got 'maybe'
// OPTION: failed to add `memplan-eliminate-subset-copies` with options `remarks=maybe`

func.func @decisions(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> (tensor<6x10xf32>, tensor<4x16xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark@+1 {{memplan-eliminate-subset-copies: the padded value is now computed in the padded tensor: no copy, 128 bytes saved}}
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  %lo = tensor.extract_slice %y[0, 0] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %hi = tensor.extract_slice %y[0, 8] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.negf ins(%hi : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark@+2 {{operand #0 of the concat is now computed in the concatenated tensor: no copy, 128 bytes saved}}
  // expected-remark@+1 {{operand #1 of the concat stays a copy: it is not made by a destination-style op of this block writing a fresh destination}}
  %c = tensor.concat dim(1) %n, %lo : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark@+1 {{the padded value stays a copy: it, or a tensor its producers write into, has other uses (the value must exist on its own)}}
  %q = tensor.pad %b low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x8xf32> to tensor<6x10xf32>
  %s = linalg.add ins(%b, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%b : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %p, %c, %s : tensor<6x10xf32>, tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// Bad input: One-Shot Analysis rejects the module (a to_tensor without
// `restrict`). Nothing is rewritten, and each candidate says why.

func.func @analysis_fails(%x: tensor<4x4xf32>, %m: memref<4x4xf32>) -> (tensor<6x6xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.exp ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{the padded value stays a copy: the in-place analysis fails on this module (nothing is rewritten)}}
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %t = bufferization.to_tensor %m : memref<4x4xf32> to tensor<4x4xf32>
  %c0 = arith.constant 0 : index
  %w = tensor.insert %zero into %t[%c0, %c0] : tensor<4x4xf32>
  return %p, %w : tensor<6x6xf32>, tensor<4x4xf32>
}

// -----

// A module without candidates: no remark, nothing changed.

func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
