// RUN: memplan report %s | FileCheck %s
// RUN: memplan report %s --dim 0:0=10 --value 1=3 | FileCheck %s --check-prefix=GIVEN
// RUN: memplan report %s --dim %%arg0:0=10 --value arg1=3 | FileCheck %s --check-prefix=GIVEN
// RUN: memplan report %s --dim 0:0=10 --value 1=3 --json | FileCheck %s --check-prefix=JSON
// RUN: memplan report %s --dim 0:0=10 --value 1=3 --plot %t.png 2>&1 | FileCheck %s --check-prefix=PLOT
// RUN: test -s %t.png
// RUN: not memplan report %s --dim 0:0=10 2>&1 | FileCheck %s --check-prefix=MISSING

// Dynamic sizes in `memplan report`: each size over the function's named
// argument dimensions (arg0.dim0) and index arguments (arg1), the peak as an
// expression over them (the maximum of the live sums no other one
// dominates), and numbers for the sizes given with --dim/--value: then the
// pool, the peaks and the plot are that instance's.

// %a (4 * n) and %b (8 * m) never live together; %c (64) lives with each.
// CHECK-LABEL: liveness @dyn: 3 allocations, 3 eligible
//  CHECK-NEXT:   peak_live_bytes = max(4 * arg0.dim0 + 64, 8 * arg1 + 64) (static buffers alone: 64; --dim/--value give a number)
//       CHECK:   %alloc    4 * arg0.dim0
//       CHECK:   %alloc_0             64
//       CHECK:   %alloc_1      8 * arg1

// GIVEN-LABEL: liveness @dyn: 3 allocations, 3 eligible
//  GIVEN-NEXT:   peak_live_bytes = 104 for arg0.dim0 = 10, arg1 = 3 (max(4 * arg0.dim0 + 64, 8 * arg1 + 64))
//  GIVEN-NEXT:   total_alloc_bytes = 128
//       GIVEN:   %alloc    4 * arg0.dim0 = 40

// JSON: "peak_live_bytes": 104,
// JSON: "peak_live": "max(4 * arg0.dim0 + 64, 8 * arg1 + 64)",
// JSON: "sizes": {
// JSON-NEXT: "arg0.dim0": 10,
// JSON-NEXT: "arg1": 3

// PLOT: wrote {{.*}}.png

// MISSING: memplan report: error: @dyn: no value for arg1 (give --dim ARG:DIM=SIZE or --value ARG=N)
func.func @dyn(%x: memref<?xf32>, %m: index, %out: memref<?xf32>, %out2: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %out2, %c : memref<16xf32> to memref<16xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  %b = memref.alloc(%m) : memref<?xf64>
  linalg.fill ins(%zero : f64) outs(%b : memref<?xf64>)
  memref.dealloc %b : memref<?xf64>
  memref.copy %c, %out2 : memref<16xf32> to memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  return
}
