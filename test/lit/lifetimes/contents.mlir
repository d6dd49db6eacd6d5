// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness{format=none})' --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// memplan-buffer-liveness reports, next to the heap peak, the dataflow bound
// (every buffer held only while its contents are needed), the op at the peak
// with the buffers live there, and every stretch where a buffer is held
// without contents it needs.

// A buffer reused across a full overwrite (one shared destination written by
// two layers): %a's first contents die at the first copy out; the fill
// overwrites it whole (7 program points later: linalg ops count their
// bodies). In between, %b is allocated and
// written: upstream holds both (8 KiB), the dataflow bound only one.

// CHECK-LABEL: liveness @reused_across_overwrite
//       CHECK:   heap peak (64-byte blocks, every buffer) = 8192 as is
//  CHECK-NEXT:   bounds: 8192 for the given lifetimes (poolable buffers from allocation to last use), dataflow bound 4096 (each buffer only while its contents are needed)
//  CHECK-NEXT:   peak at point 7, memref.alloc ({{.*}}contents.mlir:[[# @LINE + 8]]:8): %alloc 4096, %alloc_0 4096
//  CHECK-NEXT:   held without contents: 1 stretches
//  CHECK-NEXT:     %alloc (4096 B): contents die at memref.copy ({{.*}}contents.mlir:[[# @LINE + 5]]:3), next written at linalg.fill ({{.*}}contents.mlir:[[# @LINE + 10]]:3), 7 points later
func.func @reused_across_overwrite(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  linalg.negf ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>)
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<1024xf32>)
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  return
}

// STATS: MemplanBufferLivenessPass
// STATS-DAG: (S) 8192 heap-peak-input
// STATS-DAG: (S) 4096 heap-peak-dataflow-bound
// STATS-DAG: (S) 1 held-without-contents

// -----

// A write that reads the buffer (an accumulation) or only covers part of it
// (through a subview) is no full overwrite: the contents are still needed,
// and nothing is held without them.

// CHECK-LABEL: liveness @partial_and_accumulating
//       CHECK:   bounds: 8192 for the given lifetimes (poolable buffers from allocation to last use), dataflow bound 8192
//   CHECK-NOT:   held without contents
#id = affine_map<(d0) -> (d0)>
func.func @partial_and_accumulating(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
  %b = memref.alloc() : memref<1024xf32>
  linalg.negf ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>)
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }
  %half = memref.subview %a[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
  %xs = memref.subview %x[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>
  memref.copy %xs, %half : memref<512xf32, strided<[1]>> to memref<512xf32, strided<[1]>>
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  return
}

// -----

// An allocation far above its first write: %early is allocated at the top,
// but written only after %t has been written and read.

// CHECK-LABEL: liveness @allocated_early
//       CHECK:   dataflow bound 4096
//       CHECK:   held without contents: 1 stretches
//  CHECK-NEXT:     %alloc (4096 B): allocated at memref.alloc ({{.*}}contents.mlir:[[# @LINE + 2]]:12), next written at linalg.exp ({{.*}}contents.mlir:[[# @LINE + 7]]:3), 7 points later
func.func @allocated_early(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %early = memref.alloc() : memref<1024xf32>
  %t = memref.alloc() : memref<1024xf32>
  linalg.negf ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>)
  memref.copy %t, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %t : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%early : memref<1024xf32>)
  memref.copy %early, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %early : memref<1024xf32>
  return
}
