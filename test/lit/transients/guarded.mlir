// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// A size computed under a guard is never hoisted out of it: with %d = 0 the
// division would trap at the function entry (and in the size query). An
// unsigned quotient is at most its dividend: the buffer is over-allocated to
// 64 elements.

// REMARK: guarded.mlir:[[# @LINE + 15]]:10: remark: size over-allocated to its bound: %{{.*}} <= 64
// CHECK-LABEL: func @guarded_divui
//   CHECK-NOT:   arith.divui
//       CHECK:   cf.assert
//       CHECK:   scf.if
//       CHECK:     arith.divui
//       CHECK:     memref.view
// CHECK-LABEL: func @guarded_divui_transient_size
//   CHECK-NOT:   arith.divui
func.func @guarded_divui(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %nz = arith.cmpi ne, %d, %c0 : index
  scf.if %nz {
    %n = arith.divui %c64, %d : index
    %a = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %a : memref<?xf32>
  }
  return
}

// -----

// A signed quotient has no bound the IR states: the allocation stays on the
// heap, with the reason.

// REMARK: guarded.mlir:[[# @LINE + 11]]:10: remark: allocation stays on the heap: its size depends on 'arith.divsi' inside 'scf.if', which may trap (division by zero) if computed outside its guard, and no bound is known
// CHECK-LABEL: func @guarded_divsi
//   CHECK-NOT:   memref.view
//       CHECK:   arith.divsi
//  CHECK-NEXT:   memref.alloc
func.func @guarded_divsi(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %nz = arith.cmpi ne, %d, %c0 : index
  scf.if %nz {
    %n = arith.divsi %c64, %d : index
    %a = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %a : memref<?xf32>
  }
  return
}

// -----

// A loop that may run zero times guards its body the same way.

// REMARK: guarded.mlir:[[# @LINE + 11]]:10: remark: allocation stays on the heap: its size depends on 'arith.remsi' inside 'scf.for'
// CHECK-LABEL: func @zero_trip
//       CHECK:   scf.for
//       CHECK:     arith.remsi
//  CHECK-NEXT:     memref.alloc
func.func @zero_trip(%d: index, %trips: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %trips step %c1 {
    %n = arith.remsi %c64, %d : index
    %a = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %a : memref<?xf32>
  }
  return
}

// -----

// A division by a constant other than 0 and -1 cannot trap: it is hoisted.

// CHECK-LABEL: func @constant_divisor
//       CHECK:   arith.divsi
//       CHECK:   cf.assert
//       CHECK:   memref.view
func.func @constant_divisor(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %nz = arith.cmpi ne, %d, %c0 : index
  scf.if %nz {
    %n = arith.divsi %d, %c4 : index
    %a = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %a : memref<?xf32>
  }
  return
}
