// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse)' -debug-only=memplan-allocs-to-views 2>&1 >/dev/null | FileCheck %s

// -debug-only=memplan-allocs-to-views prints each allocation the pool rewrite
// replaces and the view of the pool that takes its place. %x and %y are live
// together (%y is allocated before %x is freed): two slots of one pool.

// CHECK: [memplan-allocs-to-views] memref.alloc at loc({{.*}}:[[@LINE+4]]:8) -> %{{.*}} = memref.view %[[POOL:.*]][%{{.*}}][] : memref<128xi8> to memref<16xf32>
// CHECK: [memplan-allocs-to-views] memref.alloc at loc({{.*}}:[[@LINE+4]]:8) -> %{{.*}} = memref.view %[[POOL]][%{{.*}}][] : memref<128xi8> to memref<16xf32>
func.func @two_slots() -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<16xf32>
  %y = memref.alloc() : memref<16xf32>
  %v = memref.load %x[%c0] : memref<16xf32>
  memref.dealloc %x : memref<16xf32>
  memref.store %v, %y[%c0] : memref<16xf32>
  %w = memref.load %y[%c0] : memref<16xf32>
  memref.dealloc %y : memref<16xf32>
  return %w : f32
}
