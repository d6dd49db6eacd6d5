// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-liveness{format=json output=%t.json})' --mlir-pass-statistics 2>%t.stats | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t.json
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: memplan report %t.json | FileCheck %s --check-prefix=TEXT

// The JSON report holds the same table as the text one, plus where a single
// pool would place each eligible buffer; the statistics count allocations,
// bytes and rejections per reason. `memplan report` reads the JSON back.

// IR-LABEL: func.func @stages
//       IR:   memref.alloc() : memref<64xf32>

// CHECK: "version": 1
// CHECK: "name": "stages"
// CHECK: "peak_live_bytes": 512
// CHECK: "total_alloc_bytes": 768
// CHECK: "eligible_peak_bytes": 512
// CHECK: "pool": {
// CHECK:   "size": 512
// CHECK: "reasons": {
// CHECK-NEXT: "escapes-return": 1
// CHECK: "allocations": [
// CHECK:   "name": "%alloc"
// CHECK:   "bytes": 256
// CHECK:   "start": 1
// CHECK:   "end": 9
// CHECK:   "eligible": true
// CHECK:   "offset": {{[0-9]+}}
// CHECK:   "name": "%alloc_1"
// CHECK:   "eligible": false
// CHECK:   "reason": "escapes-return"
// CHECK:   "offset": null

// STATS: MemplanBufferLivenessPass
// STATS-DAG: (S) 3 allocations
// STATS-DAG: (S) 2 eligible
// STATS-DAG: (S) 512 peak-live-bytes
// STATS-DAG: (S) 768 total-alloc-bytes
// STATS-DAG: (S) 1 skipped-escapes-return

// TEXT: liveness @stages: 3 allocations, 2 eligible
// TEXT: %alloc_1    256  [10, 16)  escapes-return
func.func @stages(%x: memref<64xf32>) -> memref<64xf32> {
  %a = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.exp ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  linalg.exp ins(%b : memref<64xf32>) outs(%c : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  return %c : memref<64xf32>
}
