// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline="builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})" > %t.out
// RUN: diff %t.out %t.up
// RUN: FileCheck %s < %t.out

// An op that reads and writes one buffer element by element
// (BufferizableOpInterface::bufferizesToElementwiseAccess) does not conflict
// with itself: each element is read before it is written, so writing its
// result into the buffer it reads is safe, as upstream decides.

// The input is the destination: in place, no conflict.
// CHECK-LABEL: func @add_into_input
//   CHECK-NOT: CONFL
//       CHECK: linalg.add {__inplace_operands_attr__ = ["true", "true", "true"]}
func.func @add_into_input(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.add ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%x : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// The same through a cast chain of equivalent values.
// CHECK-LABEL: func @generic_through_cast
//   CHECK-NOT: CONFL
//       CHECK: linalg.generic {{.*}}__inplace_operands_attr__ = ["true", "true"]
func.func @generic_through_cast(%x: tensor<64xf32>) -> tensor<?xf32> {
  %d = tensor.cast %x : tensor<64xf32> to tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%d : tensor<?xf32>) outs(%d : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Reading another element than it writes (a transposed read) is not
// element-wise access: writing in place would clobber elements still to be
// read, so the destination is copied.
// CHECK-LABEL: func @transposed_read
//       CHECK: linalg.generic {{.*}}CONFL-WRITE{{.*}}__inplace_operands_attr__ = ["true", "false"]
func.func @transposed_read(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%x : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A slice of the destination read at another offset is another value: not
// equivalent to the written one, so the write conflicts with the read, and
// the written slice is copied.
// CHECK-LABEL: func @shifted_slice
//       CHECK: tensor.extract_slice %arg0[0] [32] [1] {__inplace_operands_attr__ = ["false"]}
//       CHECK: tensor.extract_slice %arg0[16] [32] [1] {__inplace_operands_attr__ = ["true"]}
//       CHECK: linalg.add {"C_{{[0-9]+}}[CONFL-WRITE: 2]", "C_{{[0-9]+}}[READ: 0]"
func.func @shifted_slice(%x: tensor<64xf32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %a = tensor.extract_slice %x[0] [32] [1] : tensor<64xf32> to tensor<32xf32>
  %b = tensor.extract_slice %x[16] [32] [1] : tensor<64xf32> to tensor<32xf32>
  %r = linalg.add ins(%b, %y : tensor<32xf32>, tensor<32xf32>) outs(%a : tensor<32xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}
