// RUN: memplan explain %s | FileCheck %s
// RUN: memplan explain %s --json | FileCheck %s --check-prefix=JSON

// `memplan explain` prints, for every copy, why it is needed with the
// locations of the definition, the conflicting write and the read.

// CHECK: explain.mlir:[[@LINE+11]]:8: operand #1 of linalg.fill (%arg0 : tensor<8xf32>) bufferizes out of place
// CHECK-NEXT: definition:        {{.*}}explain.mlir:[[@LINE+8]]:1: %arg0 (bbArg 0 of func.func)
// CHECK-NEXT: conflicting write: {{.*}}explain.mlir:[[@LINE+9]]:8: operand #1 of linalg.fill
// CHECK-NEXT: read:              {{.*}}explain.mlir:[[@LINE+9]]:8: operand #0 of tensor.extract
// CHECK: explain.mlir:[[@LINE+9]]:9: operand #1 of linalg.fill (%arg1 : tensor<8xf32>) bufferizes out of place
// CHECK-NEXT: not writable: {{.*}}%arg1 (bbArg 1 of func.func)
// CHECK: 2 out-of-place operand(s)
// JSON: "alias_sets"
// JSON: "equivalence_sets"
func.func @f(%A: tensor<8xf32>, %B: tensor<8xf32> {bufferization.writable = false}, %i: index) -> (tensor<8xf32>, tensor<8xf32>, f32) {
  %c = arith.constant 0.0 : f32
  %r = linalg.fill ins(%c : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %x = tensor.extract %A[%i] : tensor<8xf32>
  %r2 = linalg.fill ins(%c : f32) outs(%B : tensor<8xf32>) -> tensor<8xf32>
  return %r, %r2, %x : tensor<8xf32>, tensor<8xf32>, f32
}
