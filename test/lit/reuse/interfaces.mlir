// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s

// Allocations, frees and the uses between them come from MLIR's interfaces
// (memory effects, AsyncOpInterface, region-branch and loop interfaces), not
// from a table of op names.

// Buffers read and written only by affine ops, which memplan names nowhere:
// affine.load/affine.store declare their effects and affine.for runs its body
// during the op, so the three buffers are pooled; the first and the last do
// not overlap and share an offset.

// CHECK-LABEL: func @affine_users
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128xi8>
//       CHECK:   %[[A:.*]] = memref.view %[[POOL]][%[[OFF:.*]]][]
//       CHECK:   affine.store %{{.*}}, %[[A]]
//       CHECK:   %[[B:.*]] = memref.view %[[POOL]]
//       CHECK:   affine.store %{{.*}}, %[[B]]
//       CHECK:   %[[C:.*]] = memref.view %[[POOL]][%[[OFF]]][]
//       CHECK:   affine.store %{{.*}}, %[[C]]
//   CHECK-NOT:   memref.alloc
//       CHECK:   memref.dealloc %[[POOL]]
func.func @affine_users(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %x[%i] : memref<16xf32>
    affine.store %v, %a[%i] : memref<16xf32>
  }
  %b = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %b[%i] : memref<16xf32>
  }
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %b[%i] : memref<16xf32>
    affine.store %v, %c[%i] : memref<16xf32>
  }
  memref.dealloc %b : memref<16xf32>
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  return
}

// -----

// gpu.alloc allocates (its memory effects say so) but is GPU work
// (gpu::AsyncOpInterface): device memory, freed by gpu.dealloc. It is not an
// allocation memplan pools, even beside a host buffer of the same size.

// CHECK-LABEL: func @device
//   CHECK-NOT:   memref.view
//       CHECK:   gpu.alloc
//       CHECK:   gpu.dealloc
//       CHECK:   memref.alloc() : memref<16xf32>
//       CHECK:   memref.dealloc
func.func @device(%out: memref<16xf32>) {
  %g = gpu.alloc () : memref<16xf32>
  gpu.memcpy %g, %out : memref<16xf32>, memref<16xf32>
  gpu.dealloc %g : memref<16xf32>
  %h = memref.alloc() : memref<16xf32>
  memref.copy %out, %h : memref<16xf32> to memref<16xf32>
  memref.copy %h, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %h : memref<16xf32>
  return
}
