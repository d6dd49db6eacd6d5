// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// What an op does with a buffer comes from MLIR's interfaces (memory
// effects, view-like, call, region-branch, parallel-region), not from a table
// of op names: ops of other dialects are classified like memref's own.

// gpu.memcpy and gpu.memset declare read/write effects on their memref
// operands: plain accesses, so both buffers can be pooled.

// CHECK-LABEL: liveness @effects: 2 allocations, 2 eligible
//       CHECK:   %alloc       64  [1, 6)    eligible
//       CHECK:   %alloc_0     64  [3, 7)    eligible
func.func @effects(%src: memref<16xf32>, %out: memref<16xf32>, %v: f32) {
  %a = memref.alloc() : memref<16xf32>
  gpu.memcpy %a, %src : memref<16xf32>, memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  gpu.memset %b, %v : memref<16xf32>, f32
  memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// Conservative where the interfaces say nothing or not enough: an op without
// effects information, a pure op that turns the buffer into an integer (its
// address), and a region that runs asynchronously (async.execute) and that
// no op waits for.

// CHECK-LABEL: liveness @unknown: 3 allocations, 0 eligible
//       CHECK:   %alloc       64  [1, 11)   unknown-user
//       CHECK:   %alloc_0     64  [3, 12)   unknown-user
//       CHECK:   %alloc_1     64  [5, 13)   async-not-awaited
func.func @unknown(%out: memref<16xf32>) -> index {
  %a = memref.alloc() : memref<16xf32>
  "mydialect.use"(%a) : (memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  %p = memref.extract_aligned_pointer_as_index %b : memref<16xf32> -> index
  %c = memref.alloc() : memref<16xf32>
  %c0 = arith.constant 0 : index
  %t = async.execute {
    %x = memref.load %c[%c0] : memref<16xf32>
    async.yield
  }
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  return %p : index
}

// -----

// Region-branch forwarding: the buffer returned by memref.alloca_scope.return
// flows into the scope's result, whose uses keep it live (to point 5). The
// scope's one region only returns to it (exclusive regions), and the result
// is freed once after it: a branch group, poolable from the scope op on.

// CHECK-LABEL: liveness @alloca_scope: 1 allocations, 1 eligible
//       CHECK:   %alloc     64  [1, 6)    eligible (branch group 0)
func.func @alloca_scope(%out: memref<16xf32>) {
  %r = memref.alloca_scope -> (memref<16xf32>) {
    %a = memref.alloc() : memref<16xf32>
    memref.copy %out, %a : memref<16xf32> to memref<16xf32>
    memref.alloca_scope.return %a : memref<16xf32>
  }
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %r : memref<16xf32>
  return
}

// -----

// affine.parallel is neither a region-branch op nor marked as a parallel
// region (HasParallelRegion): an allocation in it is not hoisted anywhere.
// memref.alloca allocates in the automatic allocation scope: never pooled.

// CHECK-LABEL: liveness @affine_parallel: 2 allocations, 0 eligible
//       CHECK:   %alloc      16  [2, 6)    unknown-region
//       CHECK:   %alloca     16  [3, 7)    alloca
func.func @affine_parallel() {
  affine.parallel (%i) = (0) to (4) {
    %q = memref.alloc() : memref<4xf32>
    %s = memref.alloca() : memref<4xf32>
    memref.copy %q, %s : memref<4xf32> to memref<4xf32>
    memref.dealloc %q : memref<4xf32>
  }
  return
}
