// RUN: memplan transients %s --func f --dim '*=50000000' --value 1=1000000 | FileCheck %s
// RUN: not memplan transients %s --func f --dim '*=50000000' --value 1=0 2>&1 | FileCheck %s --check-prefix=ZERO

// The size comes from the shapes alone: no input is allocated (these two
// 50000000 x 50000000 f32 inputs would take 2 x 10^16 bytes) and nothing
// runs. 4 * 50000000 * (50000000 / 1000000) bytes:
// CHECK: @f: 10000000000 bytes of transient storage (for the given shapes)

// A size that divides by zero for the given values is an error, not a signal.
// ZERO: memplan transients: error: the size of @f does not fold for the given shapes and values (a division by zero, or a size that is not pure arithmetic)
func.func @f(%x: memref<?x?xf32>, %k: index, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %q = arith.divui %m, %k : index
  %t = memref.alloc(%n, %q) : memref<?x?xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<?x?xf32>)
  memref.dealloc %t : memref<?x?xf32>
  return
}
