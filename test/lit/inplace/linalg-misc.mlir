// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts allow-unknown-ops" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts allow-unknown-ops})" | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only dump-alias-sets allow-unknown-ops" > %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{test-analysis-only dump-alias-sets allow-unknown-ops})" | diff - %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts allow-unknown-ops})" | FileCheck %s

// linalg.softmax (input read, output written but not read), and ops of
// bufferizable dialects that upstream does not bufferize (linalg.pack,
// linalg.unpack, tensor.bitcast): unknown ops, as upstream treats them.

// linalg.softmax reads its input and writes its output without reading it.
// The first softmax writes %u, which is read afterwards: out of place (the
// conflict is on bbArg 1). The second reads and writes the same buffer, and
// softmax is not element-wise: writing in place would clobber its own input,
// so its output operand is out of place too.
// CHECK-LABEL: func @sm
// CHECK-SAME: attributes {"C_[[C1:[0-9]+]][DEF: bbArg 1]"}
// CHECK: linalg.softmax {"C_[[C0:[0-9]+]][DEF: result 0]", "C_[[C1]][CONFL-WRITE: 1]", __inplace_operands_attr__ = ["true", "false"]} {{.*}} outs(%arg1
// CHECK: tensor.extract %arg1{{.*}} {"C_[[C1]][READ: 0]", __inplace_operands_attr__ = ["true", "none"]}
// CHECK: linalg.softmax {"C_[[C0]][CONFL-WRITE: 1]", "C_[[C0]][READ: 0]", __inplace_operands_attr__ = ["true", "false"]} {{.*}} ins(%0 {{.*}} outs(%0
func.func @sm(%t: tensor<4xf32>, %u: tensor<4xf32>, %i: index) -> (tensor<4xf32>, f32) {
  %b = linalg.softmax dimension(0) ins(%t : tensor<4xf32>) outs(%u : tensor<4xf32>) -> tensor<4xf32>
  %x = tensor.extract %u[%i] : tensor<4xf32>
  %c = linalg.softmax dimension(0) ins(%b : tensor<4xf32>) outs(%b : tensor<4xf32>) -> tensor<4xf32>
  return %c, %x : tensor<4xf32>, f32
}
// -----
// linalg.pack / linalg.unpack are unknown ops: each operand is assumed to be
// written and to alias the (not writable) results, so every tensor operand
// is copied; no __equivalent_func_args__ and every argument only read.
// CHECK-LABEL: func @pack
// CHECK-SAME: %arg0: tensor<8x8xf32> {bufferization.access = "read"}, %arg1: tensor<2x2x4x4xf32> {bufferization.access = "read"}, %arg2: tensor<8x8xf32> {bufferization.access = "read"}
// CHECK: linalg.pack %arg0 {{.*}} into %arg1 {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}, __inplace_operands_attr__ = ["false", "false"]}
// CHECK: linalg.unpack %pack {{.*}} into %arg2 {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}, __inplace_operands_attr__ = ["false", "false"]}
// CHECK: linalg.unpack %arg1 {{.*}} into %arg0 {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}, __inplace_operands_attr__ = ["false", "false"]}
// CHECK: return
// CHECK-NOT: __equivalent_func_args__
// CHECK-SAME: %pack, %unpack
func.func @pack(%t: tensor<8x8xf32>, %d: tensor<2x2x4x4xf32>, %u: tensor<8x8xf32>) -> (tensor<2x2x4x4xf32>, tensor<8x8xf32>) {
  %p = linalg.pack %t inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<8x8xf32> -> tensor<2x2x4x4xf32>
  %q = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %u : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  %r = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %t : tensor<2x2x4x4xf32> -> tensor<8x8xf32>
  return %p, %q : tensor<2x2x4x4xf32>, tensor<8x8xf32>
}
// -----
// tensor.bitcast is an unknown op too: its operand is copied, and its result
// is not writable, so the insert into it is out of place as well.
// CHECK-LABEL: func @bc
// CHECK: tensor.bitcast %arg0 {{.*}}"W_{{[0-9]+}}[NOT-WRITABLE: result 0]"{{.*}}, __inplace_operands_attr__ = ["false"]}
// CHECK: tensor.insert {{.*}} into %0{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
func.func @bc(%t: tensor<4xi32>, %f: f32, %i: index) -> tensor<4xf32> {
  %b = tensor.bitcast %t : tensor<4xi32> to tensor<4xf32>
  %w = tensor.insert %f into %b[%i] : tensor<4xf32>
  return %w : tensor<4xf32>
}
