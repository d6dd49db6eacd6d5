// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="bufferize-function-boundaries test-analysis-only print-conflicts" > %t.up
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | diff - %t.up
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="test-analysis-only print-conflicts" > %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only print-conflicts})' | diff - %t.up2
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries test-analysis-only print-conflicts})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-one-shot-bufferize{test-analysis-only print-conflicts})' | FileCheck %s --check-prefix=NOFB

// print-conflicts: the C_i[DEF/CONFL-WRITE/READ] and W_i[NOT-WRITABLE]
// annotations, numbered across the whole run as upstream does. (Each case has
// a single conflicting triple, so the attribution is unique.)

// The fill into %A would be seen by the extract of %A after it: a
// read-after-write conflict C_0 (DEF: bbArg 0, CONFL-WRITE on the fill's
// operand 1, READ on the extract's operand 0); the fill goes out of place.
// The fill into the non-writable %B is out of place with W_0 on the function
// (bbArg 1). The slice fill / insert_slice pair is in place. Without
// bufferize-function-boundaries no argument is writable, so both fills of
// arguments are NOT-WRITABLE conflicts (W_0 on bbArg 1, W_1 on bbArg 0) and
// no C_ triple is printed.
// CHECK-LABEL: func @f
// CHECK-SAME: attributes {"C_0[DEF: bbArg 0]", "W_0[NOT-WRITABLE: bbArg 1]"}
// CHECK: linalg.fill {"C_0[CONFL-WRITE: 1]", __inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg0
// CHECK: tensor.extract %arg0{{.*}} {"C_0[READ: 0]", __inplace_operands_attr__ = ["true", "none"]}
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg1
// CHECK: linalg.fill {__inplace_operands_attr__ = ["none", "true"]} {{.*}} outs(%extracted_slice
// CHECK: tensor.insert_slice {{.*}} {__inplace_operands_attr__ = ["true", "true"]}
// NOFB-LABEL: func @f
// NOFB-SAME: attributes {"W_0[NOT-WRITABLE: bbArg 1]", "W_1[NOT-WRITABLE: bbArg 0]"}
// NOFB-NOT: C_
// NOFB: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg0
// NOFB: linalg.fill {__inplace_operands_attr__ = ["none", "false"]} {{.*}} outs(%arg1
// NOFB-NOT: C_
// NOFB: return
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

// The loop writes its iter_arg, initialized with %t, and %t is read after the
// loop: conflict C_1 (numbering continues across the split), CONFL-WRITE on
// the loop's init operand 3. The insert into a constant is a NOT-WRITABLE
// conflict W_1 on the constant. Without function boundaries: W_2 on the
// constant and W_3 on bbArg 0 instead of the C_ triple.
// CHECK-LABEL: func @loop_read_after_write
// CHECK-SAME: attributes {"C_1[DEF: bbArg 0]"}
// CHECK: arith.constant {"W_1[NOT-WRITABLE: result 0]"} dense<2.000000e+00>
// CHECK: tensor.insert {{.*}} into %arg6{{.*}} {__inplace_operands_attr__ = ["none", "true", "none"]}
// CHECK: } {"C_1[CONFL-WRITE: 3]", __inplace_operands_attr__ = ["none", "none", "none", "false"]}
// CHECK: tensor.extract %arg0{{.*}} {"C_1[READ: 0]", __inplace_operands_attr__ = ["true", "none"]}
// CHECK: tensor.insert {{.*}} into %cst{{.*}} {__inplace_operands_attr__ = ["none", "false", "none"]}
// NOFB-LABEL: func @loop_read_after_write
// NOFB-SAME: attributes {"W_3[NOT-WRITABLE: bbArg 0]"}
// NOFB: arith.constant {"W_2[NOT-WRITABLE: result 0]"} dense<2.000000e+00>
// NOFB: } {__inplace_operands_attr__ = ["none", "none", "none", "false"]}
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
