// Tensor ops in a graph region (the module's body) that use each other's
// results: upstream recurses until the stack overflows (segfault) asking
// whether a result bufferizes to a memory write; memplan stops with a located
// error instead, wherever upstream would ask.
// RUN: not memplan-opt %s -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only allow-unknown-ops})' 2>&1 | FileCheck %s
// RUN: not memplan-opt %s -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{allow-unknown-ops})' 2>&1 | FileCheck %s
// The rewrite with function boundaries bufferizes the module's ops without
// analyzing them, and upstream crashes there too.
// RUN: not memplan-opt %s -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops})' 2>&1 | FileCheck %s
// The analysis with function boundaries analyzes functions only: the module
// is annotated as upstream annotates it.
// RUN: mlir-opt %s -allow-unregistered-dialect -one-shot-bufferize="bufferize-function-boundaries test-analysis-only allow-unknown-ops" > %t.up
// RUN: memplan-opt %s -allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only allow-unknown-ops})' | diff - %t.up

// CHECK: graph-region-errors.mlir:[[@LINE+1]]:6: error: 'tensor.cast' op: upstream One-Shot Analysis recurses without end (stack overflow) asking whether this result bufferizes to a memory write: its reverse use-def chain loops back to it{{$}}
%0 = tensor.cast %1 : tensor<4xf32> to tensor<?xf32>
%1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
%2 = "test.use"(%1) : (tensor<4xf32>) -> tensor<4xf32>
