// RUN: not memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' 2>&1 | FileCheck %s
// RUN: not memplan-opt %s --split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops})' 2>&1 | FileCheck %s --check-prefixes=CHECK,REWRITE

// Unstructured control flow on which upstream's mlir-opt (MLIR 22, the
// assertion-enabled build of the PyPI wheel) crashes: memplan stops with a
// located error where upstream would crash (in rewrite mode it does not hand
// the module to upstream's rewrite).

// A select in a CFG loop: the reverse use-def chain of its result leads back
// to the result through the block argument, and upstream recurses until the
// stack overflows (segfault) when it asks whether the result bufferizes to a
// memory write (gatherUndefinedTensorUses, after the analysis).
func.func @select_cycle(%t: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  cf.br ^bb1(%t : tensor<8xf32>)
^bb1(%a: tensor<8xf32>):
  // CHECK: unstructured-cf-errors.mlir:[[@LINE+1]]:8: error: 'arith.select' op: upstream One-Shot Analysis recurses without end (stack overflow) asking whether this result bufferizes to a memory write: its reverse use-def chain loops back to it{{$}}
  %s = arith.select %c, %a, %t : tensor<8xf32>
  cf.cond_br %c, ^bb1(%s : tensor<8xf32>), ^bb2
^bb2:
  return %t : tensor<8xf32>
}
// -----
// The callee returns %u on every path (equivalent to argument 1), but a block
// argument merges %t and %u, so the returned value also aliases argument 0:
// upstream's func.call model asserts ("inconsistent analysis state") when the
// caller is analyzed.
func.func @callee(%t: tensor<8xf32>, %u: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  cf.cond_br %c, ^bb1(%t : tensor<8xf32>), ^bb1(%u : tensor<8xf32>)
^bb1(%a: tensor<8xf32>):
  return %u : tensor<8xf32>
}

func.func @caller(%t: tensor<8xf32>, %u: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  // CHECK: unstructured-cf-errors.mlir:[[@LINE+1]]:8: error: 'func.call' op operand #0: the callee's result #0 aliases argument #0 but is equivalent to argument #1; upstream One-Shot Analysis aborts here (assertion: inconsistent analysis state)
  %r = call @callee(%t, %u, %c) : (tensor<8xf32>, tensor<8xf32>, i1) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// -----
// An unregistered terminator forwarding a tensor to a block: not a
// BranchOpInterface op. Upstream's rewrite asserts on it ("expected that all
// callers implement BranchOpInterface"); its analysis only when a query
// walks through the block argument (not here: with test-analysis-only
// upstream annotates this function, and so does memplan).
func.func @unregistered_branch(%t: tensor<8xf32>, %f: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  // REWRITE: unstructured-cf-errors.mlir:[[@LINE+1]]:3: error: memplan-one-shot-bufferize: 'test.br' forwarding tensors to a block (unstructured control flow) is not modeled: it is not a branch op (BranchOpInterface), which upstream's bufferization asserts on
  "test.br"(%t)[^bb1] : (tensor<8xf32>) -> ()
^bb1(%a: tensor<8xf32>):
  %w = tensor.insert %f into %a[%c0] : tensor<8xf32>
  return %w : tensor<8xf32>
}
