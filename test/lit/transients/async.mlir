// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-annotate-transient-storage)' | FileCheck %s --check-prefix=PLAN
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Transient storage follows async work like buffer reuse: buffers of copies
// that run concurrently until a gpu.wait get disjoint bytes, and a buffer
// whose copy no op of its block waits for stays on the heap (remark).

// PLAN-LABEL: func.func @copies
//  PLAN-SAME:   size = "8192"
// %a and %b are live together until the gpu.wait (their intervals overlap),
// so they get disjoint bytes of the 8192.
//       PLAN:   memref.alloc() {memplan.transient = {interval = array<i64: 1, 7>, offset = "0", {{.*}}size = "4096"
//       PLAN:   memref.alloc() {memplan.transient = {interval = array<i64: 3, 7>, offset = "4096", {{.*}}size = "4096"
//       PLAN:   memref.alloc() {memplan.transient = "heap: async-not-awaited"}
// REMARK: :[[@LINE+10]]:8: remark: allocation stays on the heap: async-not-awaited
func.func @copies(%x: memref<1024xf32>, %c: f32, %out: memref<1024xf32>, %storage: memref<?xi8> {memplan.transients}) -> !gpu.async.token {
  %a = memref.alloc() : memref<1024xf32>
  %t1 = gpu.memcpy async %a, %x : memref<1024xf32>, memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %t2 = gpu.memset async %b, %c : memref<1024xf32>, f32
  %t3 = gpu.memcpy async [%t2] %out, %b : memref<1024xf32>, memref<1024xf32>
  gpu.wait [%t1, %t3]
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  %d = memref.alloc() : memref<1024xf32>
  %t4 = gpu.memcpy async %d, %x : memref<1024xf32>, memref<1024xf32>
  memref.dealloc %d : memref<1024xf32>
  return %t4 : !gpu.async.token
}
