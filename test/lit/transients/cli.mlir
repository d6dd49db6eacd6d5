// RUN: memplan transients %s --func scale --dim 0:0=100 | FileCheck %s
// RUN: not memplan transients %s --func scale 2>&1 | FileCheck %s --check-prefix=MISSING

// The storage for given shapes: align(4 * 100, 64) = 448 bytes for %tmp.
// CHECK: @scale: 448 bytes of transient storage (for the given shapes)
// MISSING: argument #0 dimension 0 is dynamic: give --dim 0:0=SIZE
func.func @scale(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %tmp : memref<?xf32> to memref<?xf32>
  memref.copy %tmp, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %tmp : memref<?xf32>
  return
}
