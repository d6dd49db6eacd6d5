// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>/dev/null | FileCheck %s
// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Allocations the pass cannot prove safe to pool are left exactly as they
// were, with a remark naming the reason (and a skipped-<reason> statistic).
// Each case pairs the rejected buffer with an eligible one, %ok, which is
// then alone in its scope and left alone as well.

// A returned buffer escapes the function.

// CHECK-LABEL: func @escapes_return
//   CHECK-NOT:   memref.view
//       CHECK:   %[[R:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   return %[[R]]
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: escapes-return
func.func @escapes_return(%x: memref<8xf32>) -> memref<8xf32> {
  %r = memref.alloc() : memref<8xf32>
  memref.copy %x, %r : memref<8xf32> to memref<8xf32>
  return %r : memref<8xf32>
}

// -----

// A buffer passed to a call escapes (the callee may keep it).

// CHECK-LABEL: func @escapes_call
//   CHECK-NOT:   memref.view
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   call @consume(%[[A]])
//       CHECK:   memref.dealloc %[[A]]
// REMARK: skip.mlir:[[# @LINE + 3]]:8: remark: not pooled: escapes-call
func.func private @consume(memref<8xf32>)
func.func @escapes_call(%x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  call @consume(%a) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A buffer stored into memory escapes.

// CHECK-LABEL: func @escapes_store
//   CHECK-NOT:   memref.view
//       CHECK:   memref.store %{{.*}}, %{{.*}}[] : memref<memref<8xf32>>
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: escapes-store
func.func @escapes_store(%slot: memref<memref<8xf32>>) {
  %a = memref.alloc() : memref<8xf32>
  memref.store %a, %slot[] : memref<memref<8xf32>>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A buffer used by an op whose memory effects are unknown is not pooled (it
// stays live until its dealloc).

// CHECK-LABEL: func @unknown_user
//   CHECK-NOT:   memref.view
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   "test.opaque"(%[[A]])
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: unknown-user
func.func @unknown_user() {
  %a = memref.alloc() : memref<8xf32>
  "test.opaque"(%a) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A buffer used inside the region of an op we do not understand is captured.

// CHECK-LABEL: func @captured
//   CHECK-NOT:   memref.view
//       CHECK:   test.region
//       CHECK:     memref.load
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: captured-by-unknown-region
func.func @captured(%out: memref<f32>) {
  %a = memref.alloc() : memref<8xf32>
  "test.region"() ({
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<8xf32>
    memref.store %v, %out[] : memref<f32>
    "test.terminator"() : () -> ()
  }) : () -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// An allocation inside the region of an op we do not understand cannot be
// hoisted into a pool outside it.

// CHECK-LABEL: func @unknown_region
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 4]]:10: remark: not pooled: unknown-region
// REMARK: skip.mlir:[[# @LINE + 5]]:10: remark: not pooled: unknown-region
func.func @unknown_region() {
  "test.region"() ({
    %a = memref.alloc() : memref<8xf32>
    memref.dealloc %a : memref<8xf32>
    %b = memref.alloc() : memref<8xf32>
    memref.dealloc %b : memref<8xf32>
    "test.terminator"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Buffers in other memory spaces are never pooled with default-space ones.
// (Not runnable: the JIT has no allocator for memory space 3.)

// CHECK-LABEL: func @memory_space
//   CHECK-NOT:   memref.view
//       CHECK:   memref.alloc() : memref<8xf32, 3>
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: memory-space
func.func @memory_space() {
  %a = memref.alloc() : memref<8xf32, 3>
  memref.dealloc %a : memref<8xf32, 3>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// An allocation with a non-identity layout is not a contiguous byte range of
// its own size. (Not runnable: lowering keeps the layout's strides.)

// CHECK-LABEL: func @layout
//   CHECK-NOT:   memref.view
//       CHECK:   memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: non-identity-layout
func.func @layout() {
  %a = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  memref.dealloc %a : memref<4x4xf32, strided<[8, 1]>>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// Stack allocations are listed by the analysis but never pooled.

// CHECK-LABEL: func @alloca
//   CHECK-NOT:   memref.view
//       CHECK:   memref.alloca() : memref<8xf32>
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: alloca
func.func @alloca() {
  %a = memref.alloca() : memref<8xf32>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// A buffer that is never freed (the pass only moves frees it can see).

// CHECK-LABEL: func @no_dealloc
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: no-dealloc
func.func @no_dealloc() {
  %a = memref.alloc() : memref<8xf32>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// Freed in another block than the one that allocates it.

// CHECK-LABEL: func @dealloc_other_block
//   CHECK-NOT:   memref.view
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.dealloc
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: dealloc-in-other-block
func.func @dealloc_other_block(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  scf.if %c {
    memref.dealloc %a : memref<8xf32>
  }
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// Freed through an alias (here the base buffer of extract_strided_metadata,
// as the deallocation pipeline emits for buffers yielded from regions).

// CHECK-LABEL: func @dealloc_through_alias
//   CHECK-NOT:   memref.view
//       CHECK:   memref.dealloc %{{.*}} : memref<f32>
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: dealloc-through-alias
func.func @dealloc_through_alias() {
  %a = memref.alloc() : memref<8xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %a : memref<8xf32> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// A buffer allocated in a branch and yielded out of it outlives its block.

// CHECK-LABEL: func @escapes_block
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 3]]:10: remark: not pooled: escapes-block
func.func @escapes_block(%c: i1, %x: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  %ok = memref.alloc() : memref<8xf32>
  memref.copy %r, %ok : memref<8xf32> to memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// Unstructured control flow: program order is not pre-order across blocks.

// CHECK-LABEL: func @unstructured
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: unstructured-control-flow
func.func @unstructured(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  cf.br ^next
^next:
  %b = memref.alloc() : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// Sizes computed from an argument of a block that is not an entry block:
// upstream's ValueBoundsOpInterface asserts on such an argument, so the sizes
// of %a and %b are not compared through it (the pass used to abort here),
// and the function is left as it was.

// CHECK-LABEL: func @size_from_successor_block_argument
//       CHECK:   ^bb1(%[[M:.*]]: memref<8xf32>):
//       CHECK:     %[[CAST:.*]] = memref.cast %[[M]]
//       CHECK:     %[[N:.*]] = memref.dim %[[CAST]]
//       CHECK:     memref.alloc(%[[N]])
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         memref.alloc() : memref<8xf32>
// REMARK: skip.mlir:[[# @LINE + 9]]:8: remark: not pooled: unstructured-control-flow
func.func @size_from_successor_block_argument(%x: memref<8xf32>, %y: memref<8xf32>,
                                              %c: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.cond_br %c, ^bb1(%x : memref<8xf32>), ^bb1(%y : memref<8xf32>)
^bb1(%m: memref<8xf32>):
  %cast = memref.cast %m : memref<8xf32> to memref<?xf32>
  %d = memref.dim %cast, %c0 : memref<?xf32>
  %a = memref.alloc(%d) : memref<?xf32>
  %a_static = memref.cast %a : memref<?xf32> to memref<8xf32>
  %a_dynamic = memref.cast %a_static : memref<8xf32> to memref<?xf32>
  %e = memref.dim %a_dynamic, %c0 : memref<?xf32>
  %b = memref.alloc(%e) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %t = memref.alloc() : memref<8xf32>
      memref.dealloc %t : memref<8xf32>
    }
  }
  memref.dealloc %b : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// Elements whose LLVM layout memplan does not model (a scalable vector's
// size is only known at run time) stay on the heap, with the reason.
// (Not runnable: the JIT cannot select scalable vectors on x86-64.)

// CHECK-LABEL: func @element_type
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: unsupported-element-type (scalable vector element type 'vector<[4]xf32>': its size is only known at run time)
func.func @element_type() {
  %a = memref.alloc() : memref<8xvector<[4]xf32>>
  memref.dealloc %a : memref<8xvector<[4]xf32>>
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// A dynamic size computed inside a loop (that runs, so its buffers are
// hoisted into the function's pool) is not available before it.

// CHECK-LABEL: func @dynamic_not_hoistable
//   CHECK-NOT:   memref.view
// REMARK: skip.mlir:[[# @LINE + 6]]:10: remark: not pooled: dynamic-size-not-hoistable
func.func @dynamic_not_hoistable() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc(%i) : memref<?xf32>
    memref.dealloc %a : memref<?xf32>
  }
  %ok = memref.alloc() : memref<8xf32>
  memref.dealloc %ok : memref<8xf32>
  return
}

// -----

// A heap copy (bufferization.clone, as memplan-buffer-deallocation makes of
// a returned buffer it does not own) is never pooled but is on the heap: a
// pool of %a and %b would hold %b's bytes next to the copy, above the
// input's peak of two blocks, so both stay alone.

// CHECK-LABEL: func @copy_next_to_a_pool
//   CHECK-NOT:   memref.view
//       CHECK:   bufferization.clone
// REMARK: skip.mlir:[[# @LINE + 2]]:8: remark: not pooled: pooling it would not lower the heap peak
func.func @copy_next_to_a_pool(%x: memref<8xf32>, %out: memref<8xf32>) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  %r = bufferization.clone %x : memref<8xf32> to memref<8xf32>
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return %r : memref<8xf32>
}
