// RUN: memplan-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries}, memplan-test-print-graph, func.func(canonicalize))' | FileCheck %s
// RUN: memplan-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries}, func.func(canonicalize))' > %t.upstream.mlir
// RUN: mlir-opt %s --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries}, func.func(canonicalize))' | diff - %t.upstream.mlir

// Upstream and memplan passes mix in one pipeline: the graph is printed after
// bufferization (memrefs, not tensors), then the IR continues through
// canonicalize. Without memplan passes the output equals mlir-opt's.

// CHECK-LABEL: graph @scale
// CHECK:       memref.alloc
// CHECK:       linalg.generic
// CHECK:       value %v0 : memref<8xf32, strided<[?], offset: ?>> = arg 0 of block 1
// CHECK-LABEL: func.func @scale
// CHECK:       memref.alloc() {alignment = 64 : i64} : memref<8xf32>
#id = affine_map<(d0) -> (d0)>
func.func @scale(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
