// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 | FileCheck %s

// ValueBoundsOpInterface states no constant upper bound for 2 * %i with %i
// below %n: the size cannot be computed at the entry.

// CHECK: interface-bounds-errors.mlir:[[# @LINE + 6]]:10: error: transient size depends on a block argument of 'scf.for'; cannot compute it from the function arguments
func.func @no_constant_bound(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %t = memref.alloc(%s) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  }
  return
}

// -----

// Two symbolic upper bounds (%i below %n, and %d): upstream's symbolic
// computeBound asserts on more than one, so only a constant bound is asked,
// and there is none. An error, not an abort.

// CHECK: interface-bounds-errors.mlir:[[# @LINE + 6]]:10: error: transient size depends on a block argument of 'scf.for'; cannot compute it from the function arguments
func.func @two_symbolic_bounds(%n: index, %d: index, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%i)[%d]
    %t = memref.alloc(%s) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  }
  return
}
