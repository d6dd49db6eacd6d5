// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// The allocations the liveness report lists are the ops whose memory effects
// allocate their memref result, found through MemoryEffectOpInterface (the
// heap, or the automatic allocation scope for an alloca), not by name. An
// allocation that is GPU work (gpu.alloc, a gpu::AsyncOpInterface op) holds
// device memory: it is not listed. Uses through affine ops, which memplan
// names nowhere, end each interval at the last affine.for that touches it.

// CHECK-LABEL: liveness @device: 1 allocations, 0 eligible
//       CHECK:   %alloca     64  [2, 7)    alloca
func.func @device(%out: memref<16xf32>) {
  %g = gpu.alloc () : memref<16xf32>
  %s = memref.alloca() : memref<16xf32>
  gpu.memcpy %g, %out : memref<16xf32>, memref<16xf32>
  memref.copy %s, %out : memref<16xf32> to memref<16xf32>
  gpu.dealloc %g : memref<16xf32>
  return
}

// -----

// CHECK-LABEL: liveness @affine_users: 2 allocations, 2 eligible
//       CHECK:   %alloc       64  [1, 11)   eligible
//       CHECK:   %alloc_0     64  [6, 13)   eligible
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
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  return
}
