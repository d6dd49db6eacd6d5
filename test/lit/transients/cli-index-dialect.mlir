// RUN: memplan transients %s --func index_dimension --dim 0:1=3000 --value 1=10 | FileCheck %s --check-prefix=DIM
// RUN: memplan transients %s --func index_arithmetic --dim 0:1=3000 --value 1=10 | FileCheck %s --check-prefix=ARITH

// The size query keeps the function's own arithmetic: an index.constant
// dimension and index.divu/index.mul steps. Constants are ConstantLike ops
// and a dimension is read by a ShapedDimOpInterface op, whatever their
// dialect (index ops fold to index.constant, not arith.constant).

// Only the dimension is an index.constant.
// align(4 * (3000 / 10), 64) bytes:
// DIM: @index_dimension: 1216 bytes of transient storage (for the given shapes)
func.func @index_dimension(%x: memref<?x?xf32>, %k: index, %out: memref<?x?xf32>) {
  %c1 = index.constant 1
  %one = arith.constant 1.0 : f32
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %q = arith.divui %m, %k : index
  %t = memref.alloc(%q) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<?xf32>)
  memref.dealloc %t : memref<?xf32>
  return
}

// Only the arithmetic is index ops (they fold to index.constant).
// align(4 * (3000 / 10) * 2, 64) bytes:
// ARITH: @index_arithmetic: 2432 bytes of transient storage (for the given shapes)
func.func @index_arithmetic(%x: memref<?x?xf32>, %k: index, %out: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %q = index.divu %m, %k
  %r = index.mul %q, %c2
  %t = memref.alloc(%r) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<?xf32>)
  memref.dealloc %t : memref<?xf32>
  return
}
