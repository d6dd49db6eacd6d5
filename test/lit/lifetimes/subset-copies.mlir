// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// memplan-buffer-liveness lists, among the buffers stored at the heap peak
// that a rewrite could leave out, those whose last read is a copy into a
// view of another buffer live there (a pad, concat or insert_slice as
// upstream bufferizes it), with the bytes that saves at the peak: had their
// producers written into the view (memplan-eliminate-subset-copies), they
// would not be held there.

// A tensor.pad as upstream bufferizes it: at the peak (the padded buffer's
// allocation) the 1024-byte source and its padded copy are both live; the
// source dies at its copy into the interior.

// CHECK-LABEL: liveness @padded_copy
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc_0 1600, %alloc 1024
//  CHECK-NEXT:     %alloc is copied into a subset of %alloc_0 at {{.*}}subset-copies.mlir:[[# @LINE + 10]]:3 and dies there: computing it in place frees 1024 B at the peak
//  CHECK-NEXT:   stored at the peak that a rewrite could leave out: 1 buffers, 1024 B
//  CHECK-NEXT:     %alloc (subset copy, saves 1024 B): read last by memref.copy ({{.*}}subset-copies.mlir:[[# @LINE + 8]]:3) into a view of another buffer live at the peak; its producers could write into that view
func.func @padded_copy(%x: memref<1x4x8x8xf32>, %out: memref<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.exp ins(%x : memref<1x4x8x8xf32>) outs(%a : memref<1x4x8x8xf32>)
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  return
}

// -----

// The source is read again after its copy (a pad whose source is also
// used): computing it in the padded buffer would not free it. Not listed.

// CHECK-LABEL: liveness @source_read_after_copy
//       CHECK:   peak at point
//   CHECK-NOT:   {{subset copy|copied into a subset}}
func.func @source_read_after_copy(%x: memref<1x4x8x8xf32>, %out: memref<1x4x10x10xf32>, %out2: memref<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.exp ins(%x : memref<1x4x8x8xf32>) outs(%a : memref<1x4x8x8xf32>)
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  linalg.exp ins(%a : memref<1x4x8x8xf32>) outs(%out2 : memref<1x4x8x8xf32>)
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  return
}
