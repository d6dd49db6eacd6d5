// RUN: memplan report %s | FileCheck %s
// RUN: memplan report %s --dim 0:0=10 | FileCheck %s --check-prefix=GIVEN
// RUN: memplan report %s --json | FileCheck %s --check-prefix=JSON

// A function whose buffers are all dynamically sized: its total and its
// eligible peak are expressions over the sizes, as its peak is, not 0; the
// heap line says that it counts the static buffers alone.
// CHECK-LABEL: liveness @all_dynamic: 2 allocations, 2 eligible
//  CHECK-NEXT:   peak_live_bytes = 12 * arg0.dim0 (static buffers alone: 0; --dim/--value give a number)
//  CHECK-NEXT:   total_alloc_bytes = 12 * arg0.dim0 (static buffers alone: 0; --dim/--value give a number)
//  CHECK-NEXT:   eligible_peak_bytes = 12 * arg0.dim0 (static buffers alone: 0; --dim/--value give a number)
//  CHECK-NEXT:   heap peak (64-byte blocks, every buffer) = 0 as is, 0 after memplan-buffer-reuse (static buffers alone)

// GIVEN-LABEL: liveness @all_dynamic: 2 allocations, 2 eligible
//  GIVEN-NEXT:   peak_live_bytes = 120 for arg0.dim0 = 10 (12 * arg0.dim0)
//  GIVEN-NEXT:   total_alloc_bytes = 120 for arg0.dim0 = 10 (12 * arg0.dim0)
//  GIVEN-NEXT:   eligible_peak_bytes = 120 for arg0.dim0 = 10 (12 * arg0.dim0)
//  GIVEN-NEXT:   pool = 144 bytes

// JSON: "total_alloc_bytes": 0,
// JSON: "eligible_peak_bytes": 0,
// JSON: "total_alloc": "12 * arg0.dim0",
// JSON: "eligible_peak": "12 * arg0.dim0",
func.func @all_dynamic(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<?xf32>) outs(%b : memref<?xf64>) {
  ^bb0(%i: f32, %o: f64):
    %e = arith.extf %i : f32 to f64
    linalg.yield %e : f64
  }
  memref.dealloc %a : memref<?xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : memref<?xf64>) outs(%out : memref<?xf32>) {
  ^bb0(%i: f64, %o: f32):
    %e = arith.truncf %i : f64 to f32
    linalg.yield %e : f32
  }
  memref.dealloc %b : memref<?xf64>
  return
}
