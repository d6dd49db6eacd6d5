// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-test-print-graph)' | FileCheck %s

// Ops are numbered in pre-order from the module (op 0); values follow the same
// walk: results of an op, then the arguments of each block as it is entered.

// CHECK-LABEL: graph @chain
// CHECK-NEXT:  op 1 func.func parent=0 block=0 depth=1 end=4 operands=() results=() regions=1
// CHECK-NEXT:  op 2 memref.alloc parent=1 block=1 depth=2 end=2 operands=() results=(%v1) regions=0
// CHECK-NEXT:  op 3 memref.copy parent=1 block=1 depth=2 end=3 operands=(%v0, %v1) results=() regions=0
// CHECK-NEXT:  op 4 func.return parent=1 block=1 depth=2 end=4 operands=(%v1) results=() regions=0
// CHECK-NEXT:  value %v0 : memref<4x8xf32> = arg 0 of block 1 bytes=128 identity=1 space=0 uses=[op 3#0]
// CHECK-NEXT:  value %v1 : memref<4x8xf32> = result 0 of op 2 bytes=128 identity=1 space=0 uses=[op 3#1, op 4#0]
func.func @chain(%src: memref<4x8xf32>) -> memref<4x8xf32> {
  %buf = memref.alloc() : memref<4x8xf32>
  memref.copy %src, %buf : memref<4x8xf32> to memref<4x8xf32>
  return %buf : memref<4x8xf32>
}

// -----

// Region nesting: the loop's subtree ends at its yield; the body block's
// induction variable and iter_arg are values of block 2.

// CHECK-LABEL: graph @loop
// CHECK:       op 5 scf.for parent=1 block=1 depth=2 end=7 operands=(%v2, %v4, %v3, %v0) results=(%v5) regions=1
// CHECK-NEXT:  op 6 tensor.insert parent=5 block=2 depth=3 end=6 operands=(%v1, %v7, %v6) results=(%v8) regions=0
// CHECK-NEXT:  op 7 scf.yield parent=5 block=2 depth=3 end=7 operands=(%v8) results=() regions=0
// CHECK:       value %v5 : tensor<?xi64> = result 0 of op 5 bytes=-1 uses=[op 8#0]
// CHECK-NEXT:  value %v6 : index = arg 0 of block 2 uses=[op 6#2]
// CHECK-NEXT:  value %v7 : tensor<?xi64> = arg 1 of block 2 bytes=-1 uses=[op 6#1]
func.func @loop(%t: tensor<?xi64>, %x: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %t) -> tensor<?xi64> {
    %n = tensor.insert %x into %acc[%i] : tensor<?xi64>
    scf.yield %n : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}

// -----

// Layout and memory space are recorded for memrefs.

// CHECK-LABEL: graph @layouts
// CHECK: value %v0 : memref<16xi8, strided<[2]>> = arg 0 of block 1 bytes=16 identity=0 space=0
// CHECK: value %v1 : memref<4xf64, 3> = arg 1 of block 1 bytes=32 identity=1 space=3
func.func @layouts(%a: memref<16xi8, strided<[2]>>, %b: memref<4xf64, 3>) {
  return
}
