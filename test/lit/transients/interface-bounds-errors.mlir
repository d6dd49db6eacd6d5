// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 | FileCheck %s

// The closed upper bound upstream's ValueBoundsOpInterface states for
// 2 * %i, with %i below %n, is 2 * %n - 2: negative for %n = 0, so not a
// size. No bound is taken, and the size cannot be computed at the entry.

// CHECK: interface-bounds-errors.mlir:[[# @LINE + 6]]:10: error: transient size depends on a block argument of 'scf.for'; cannot compute it from the function arguments
func.func @negative_term(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %t = memref.alloc(%s) : memref<?xf32>
    memref.dealloc %t : memref<?xf32>
  }
  return
}
