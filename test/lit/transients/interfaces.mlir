// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// Whether a size can be recomputed at the function entry comes from MLIR's
// interfaces, not from a table of op names: an op without memory effects
// (MemoryEffectOpInterface) is recomputed, and outside the entry block only
// if it is speculatable (ConditionallySpeculatable).

// math.absi and affine.min, ops memplan names nowhere, declare no memory
// effects: the size is recomputed at the entry and in the size query, and
// the buffer is placed in the storage.

// CHECK-LABEL: func @effect_free
//       CHECK:   math.absi
//       CHECK:   affine.min
//       CHECK:   cf.assert
//       CHECK:   memref.view
//   CHECK-NOT:   memref.alloc
// CHECK-LABEL: func @effect_free_transient_size
//       CHECK:   math.absi
//       CHECK:   affine.min
func.func @effect_free(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %abs = math.absi %d : index
  %n = affine.min affine_map<(d0) -> (d0, 64)>(%abs)
  %a = memref.alloc(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
  %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// index.divu declares no speculatability (index ops do not implement
// ConditionallySpeculatable): even by a constant it stays in its guard. The
// size's bound (an unsigned quotient is at most its dividend, %d) is placed.

// REMARK: interfaces.mlir:[[# @LINE + 14]]:10: remark: size over-allocated to its bound: %{{.*}} <= %{{.*}}
// CHECK-LABEL: func @not_speculatable
//       CHECK:   cf.assert
//       CHECK:   scf.if
//       CHECK:     index.divu
//       CHECK:     memref.view
// CHECK-LABEL: func @not_speculatable_transient_size
//   CHECK-NOT:   index.divu
func.func @not_speculatable(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c4 = index.constant 4
  %c64 = arith.constant 64 : index
  %nz = arith.cmpi ne, %d, %c64 : index
  scf.if %nz {
    %n = index.divu %d, %c4
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

// arith.remui is declared always speculatable by MLIR 22, but a zero divisor
// traps like a division's: memplan asks it what it asks arith.divui. By a
// constant other than 0 it is hoisted out of its guard.

// CHECK-LABEL: func @remainder_by_constant
//       CHECK:   arith.remui
//       CHECK:   cf.assert
//       CHECK:   scf.if
//       CHECK:     memref.view
func.func @remainder_by_constant(%d: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %nz = arith.cmpi ne, %d, %c0 : index
  scf.if %nz {
    %n = arith.remui %d, %c8 : index
    %a = memref.alloc(%n) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    %v = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %a, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %a : memref<?xf32>
  }
  return
}
