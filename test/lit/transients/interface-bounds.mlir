// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// Bounds stated by interfaces, not by op names: sizes that are not hoistable
// but bounded are over-allocated to their bound.

// The induction variable of any loop (LoopLikeOpInterface), here affine.for,
// is below the loop's upper bound: 64 floats.

// REMARK: interface-bounds.mlir:[[# @LINE + 7]]:10: remark: size over-allocated to its bound: %{{.*}} <= 64
// CHECK-LABEL: func.func @affine_loop
//  CHECK-SAME:   memplan.transient_size = 256 : index
//       CHECK:   affine.for
//       CHECK:     memref.view
func.func @affine_loop(%out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  affine.for %i = 0 to 64 {
    %t = memref.alloc(%i) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%t : memref<?xf32>)
    %v = memref.subview %out[0] [%i] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %t, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %t : memref<?xf32>
  }
  return
}

// -----

// affine.min bounds its result by each of its expressions
// (ValueBoundsOpInterface): at most 32 floats, whatever %n.

// REMARK: interface-bounds.mlir:[[# @LINE + 11]]:10: remark: size over-allocated to its bound: %{{.*}} <= 32
// CHECK-LABEL: func.func @affine_min
//  CHECK-SAME:   memplan.transient_size = 128 : index
//       CHECK:   scf.for
//       CHECK:     affine.min
//       CHECK:     memref.view
func.func @affine_min(%n: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = affine.min affine_map<(d0) -> (d0, 32)>(%i)
    %t = memref.alloc(%s) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%t : memref<?xf32>)
    %v = memref.subview %out[0] [%s] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %t, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %t : memref<?xf32>
  }
  return
}

// -----

// arith.subi of a non-negative induction variable from 16 is at most 16
// (ValueBoundsOpInterface).

// REMARK: interface-bounds.mlir:[[# @LINE + 12]]:10: remark: size over-allocated to its bound: %{{.*}} <= 16
// CHECK-LABEL: func.func @subtraction
//  CHECK-SAME:   memplan.transient_size = 64 : index
//       CHECK:   scf.for
//       CHECK:     arith.subi
//       CHECK:     memref.view
func.func @subtraction(%n: index, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = arith.subi %c16, %i : index
    %t = memref.alloc(%s) : memref<?xf32>
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%t : memref<?xf32>)
    %v = memref.subview %out[0] [%s] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
    memref.copy %t, %v : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %t : memref<?xf32>
  }
  return
}
