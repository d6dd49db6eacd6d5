// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s --check-prefix=LIVENESS
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Asynchronous work is a use: a buffer used by an op that returns an async
// token (gpu::AsyncOpInterface, async.execute) is live until the op of its
// block that waits for that token, followed through the ops that chain
// tokens. Where no op of the block waits for it, the buffer is left alone.

// Two buffers used by async copies that run concurrently until the gpu.wait:
// their lifetimes overlap, so they do not share bytes (they did: the first
// copy's buffer was dead after its last use and the second took its bytes).
// LIVENESS-LABEL: liveness @concurrent_copies: 2 allocations, 2 eligible
//  LIVENESS-NEXT:   peak_live_bytes = 8192
// CHECK-LABEL: func.func @concurrent_copies
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
//       CHECK:   gpu.wait [%{{.*}}, %{{.*}}]
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<8192xi8>
func.func @concurrent_copies(%x: memref<1024xf32>, %c: f32, %out: memref<1024xf32>, %out2: memref<1024xf32>) {
  %t0 = gpu.wait async
  %a = memref.alloc() : memref<1024xf32>
  %t1 = gpu.memcpy async [%t0] %a, %x : memref<1024xf32>, memref<1024xf32>
  %t2 = gpu.memcpy async [%t1] %out, %a : memref<1024xf32>, memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %t3 = gpu.memset async [%t0] %b, %c : memref<1024xf32>, f32
  %t4 = gpu.memcpy async [%t3] %out2, %b : memref<1024xf32>, memref<1024xf32>
  gpu.wait [%t2, %t4]
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return
}

// -----

// Awaited before the next buffer is made (through a chain: a gpu.wait async
// then a blocking gpu.wait): the bytes are shared.
// LIVENESS-LABEL: liveness @awaited_then_reused: 2 allocations, 2 eligible
//  LIVENESS-NEXT:   peak_live_bytes = 4096
// CHECK-LABEL: func.func @awaited_then_reused
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
func.func @awaited_then_reused(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  %t1 = gpu.memcpy async %a, %x : memref<1024xf32>, memref<1024xf32>
  %t2 = gpu.wait async [%t1]
  gpu.wait [%t2]
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %t3 = gpu.memcpy async %b, %x : memref<1024xf32>, memref<1024xf32>
  gpu.wait [%t3]
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return
}

// -----

// A token that is returned, or awaited only in one branch of an scf.if:
// memplan cannot tell when the copy is done, and leaves the buffer alone.
// REMARK: :[[@LINE+6]]:8: remark: not pooled: async-not-awaited (used by asynchronous work that no op of its block waits for
// REMARK: :[[@LINE+11]]:8: remark: not pooled: async-not-awaited
// CHECK-LABEL: func.func @not_awaited
//       CHECK:   memref.alloc() : memref<1024xf32>
//       CHECK:   memref.alloc() : memref<1024xf32>
func.func @not_awaited(%x: memref<1024xf32>, %c: i1) -> !gpu.async.token {
  %a = memref.alloc() : memref<1024xf32>
  %t1 = gpu.memcpy async %a, %x : memref<1024xf32>, memref<1024xf32>
  scf.if %c {
    gpu.wait [%t1]
  }
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %t2 = gpu.memcpy async %b, %x : memref<1024xf32>, memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return %t2 : !gpu.async.token
}

// -----

// async.execute: a buffer its body uses is live until async.await of its
// token (its uses in the body count from the execute op).
// LIVENESS-LABEL: liveness @execute_awaited: 2 allocations, 2 eligible
//  LIVENESS-NEXT:   peak_live_bytes = 8192
// CHECK-LABEL: func.func @execute_awaited
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<8192xi8>
func.func @execute_awaited(%x: memref<1024xf32>, %out: memref<1024xf32>, %out2: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  %token = async.execute {
    memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
    memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
    async.yield
  }
  %b = memref.alloc() : memref<1024xf32>
  memref.copy %x, %b : memref<1024xf32> to memref<1024xf32>
  memref.copy %b, %out2 : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  async.await %token : !async.token
  memref.dealloc %a : memref<1024xf32>
  return
}

// -----

// Through a group: the token goes into a group with async.add_to_group, and
// async.await_all waits for the group; a synchronous gpu.memcpy that depends
// on a token waits for it too. Until then the buffers stay live: no sharing.
// LIVENESS-LABEL: liveness @group_awaited: 3 allocations, 3 eligible
//  LIVENESS-NEXT:   peak_live_bytes = 12288
// CHECK-LABEL: func.func @group_awaited
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<12288xi8>
func.func @group_awaited(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %group = async.create_group %c1 : !async.group
  %a = memref.alloc() : memref<1024xf32>
  %token = async.execute {
    memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
    async.yield
  }
  %rank = async.add_to_group %token, %group : !async.token
  %b = memref.alloc() : memref<1024xf32>
  %t1 = gpu.memcpy async %b, %x : memref<1024xf32>, memref<1024xf32>
  %c = memref.alloc() : memref<1024xf32>
  memref.copy %x, %c : memref<1024xf32> to memref<1024xf32>
  gpu.memcpy [%t1] %out, %c : memref<1024xf32>, memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  memref.dealloc %c : memref<1024xf32>
  async.await_all %group
  memref.dealloc %a : memref<1024xf32>
  return
}
