// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-liveness{format=none remarks})' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// memplan-buffer-liveness prints, per function, every allocation with its
// size, its live interval [start, end) over pre-order program points (the
// function op is point 0) and whether it can be pooled. The IR is unchanged.

// Sequential buffers: %a dies at its last use (point 2) before %b is
// allocated (point 4), so the peak is one buffer.

// CHECK-LABEL: liveness @sequential: 2 allocations, 2 eligible, 8 program points
//  CHECK-NEXT:   peak_live_bytes = 4096
//  CHECK-NEXT:   total_alloc_bytes = 8192
//  CHECK-NEXT:   eligible_peak_bytes = 4096
//  CHECK-NEXT:   pool = 4096 bytes ({{.*}}, alignment 64), lower bound 4096
//  CHECK-NEXT:   heap peak (64-byte blocks, every buffer) = 4096 as is, 4096 after memplan-buffer-reuse
//  CHECK-NEXT:   bounds: 4096 for the given lifetimes (poolable buffers from allocation to last use), dataflow bound 4096 (each buffer only while its contents are needed)
//  CHECK-NEXT:   peak at point 1, memref.alloc ({{.*}}liveness.mlir:[[# @LINE + 5]]:8): %alloc 4096
//  CHECK-NEXT:   name      bytes  interval  status    location
//  CHECK-NEXT:   %alloc     4096  [1, 3)    eligible  {{.*}}liveness.mlir:[[# @LINE + 3]]:8
//  CHECK-NEXT:   %alloc_0   4096  [4, 6)    eligible  {{.*}}liveness.mlir:[[# @LINE + 5]]:8
func.func @sequential(%x: memref<1024xf32>, %y: memref<512xf64>) {
  %a = memref.alloc() : memref<1024xf32>
  memref.copy %x, %a : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() : memref<512xf64>
  memref.copy %y, %b : memref<512xf64> to memref<512xf64>
  memref.dealloc %b : memref<512xf64>
  return
}

// -----

// Lifetimes extend through aliases: %a is last used through a cast of a
// subview at point 5, after %b is allocated, so both are live at once.

// CHECK-LABEL: liveness @aliases: 2 allocations, 2 eligible
//       CHECK:   peak_live_bytes = 96
//       CHECK:   %alloc       64  [1, 6)    eligible
//       CHECK:   %alloc_0     32  [2, 7)    eligible
func.func @aliases(%out: memref<8xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<8xf32>
  %sub = memref.subview %a[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  %cast = memref.cast %sub : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32, strided<[1], offset: ?>>
  memref.copy %cast, %b : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// Nesting: %outer is used inside the loop, so it is live across the whole
// loop, up to point 8 (the loop's yield); %inner lives inside the body. The
// buffers of the two scf.if branches get disjoint intervals.

// CHECK-LABEL: liveness @regions: 4 allocations, 4 eligible
//       CHECK:   peak_live_bytes = 64
//       CHECK:   %alloc       32  [1, 9)    eligible
//       CHECK:   %alloc_0     32  [5, 7)    eligible
//       CHECK:   %alloc_0     16  [11, 12)  eligible
//       CHECK:   %alloc_0     16  [14, 15)  eligible
func.func @regions(%n: index, %c: i1) {
  %outer = memref.alloc() : memref<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %inner = memref.alloc() : memref<8xf32>
    memref.copy %outer, %inner : memref<8xf32> to memref<8xf32>
    memref.dealloc %inner : memref<8xf32>
  }
  memref.dealloc %outer : memref<8xf32>
  scf.if %c {
    %t = memref.alloc() : memref<4xf32>
    memref.dealloc %t : memref<4xf32>
  } else {
    %e = memref.alloc() : memref<4xf32>
    memref.dealloc %e : memref<4xf32>
  }
  return
}

// -----

// A buffer used by an unknown op is not poolable and stays live until its
// dealloc; allocas are listed but never pooled; a dynamic size is shown as an
// expression of the function's arguments (here the index argument #0).

// CHECK-LABEL: liveness @mixed: 3 allocations, 1 eligible
//       CHECK:   %alloc           32  [1, 4)    unknown-user
//       CHECK:   %alloca          16  [4, 8)    alloca
//       CHECK:   %alloc_0  4 * arg0  [5, 6)    eligible
//       CHECK:   not pooled: alloca=1, unknown-user=1
// REMARK: liveness.mlir:[[# @LINE + 4]]:8: remark: not poolable: unknown-user
// REMARK: liveness.mlir:[[# @LINE + 6]]:8: remark: not poolable: alloca
// REMARK-NOT: remark
func.func @mixed(%n: index) {
  %a = memref.alloc() : memref<8xf32>
  "test.use"(%a) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  %s = memref.alloca() : memref<4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
