// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation)' | FileCheck %s
// RUN: memplan-opt %S/inputs/deallocated-already.mlir --pass-pipeline='builtin.module(memplan-buffer-deallocation)' -verify-diagnostics -o /dev/null
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation{remarks})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// memplan-buffer-deallocation frees every buffer whose lifetime memplan
// understands right after its last use, and runs upstream's
// buffer-deallocation-pipeline (and optimize-allocation-liveness) only for
// what it leaves: here, nothing.

// %a is last used through a view inside the loop: its dealloc goes right
// after the loop. %b dies when it is copied into %a. The returned %r needs no dealloc (the
// caller owns it), and upstream's passes do not run (no attribute marks
// memplan's deallocs).

// CHECK-LABEL: func @freed_after_last_use
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   memref.copy %[[B]], %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<64xf32>
//       CHECK:   scf.for
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<64xf32>
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @freed_after_last_use(%x: memref<64xf32>, %n: index) -> memref<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %x, %b : memref<64xf32> to memref<64xf32>
  memref.copy %b, %a : memref<64xf32> to memref<64xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %r = memref.alloc() : memref<8x8xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %v, %r : memref<8x8xf32> to memref<8x8xf32>
  }
  return %r : memref<8x8xf32>
}

// -----

// A buffer passed to a call: memplan does not follow it, upstream's
// ownership-based deallocation frees it (after the call). memplan's own
// dealloc of %t then carries bufferization.manual_deallocation, as does %t,
// so that upstream's pass leaves them alone.

// CHECK-LABEL: func @call_left_to_upstream
//       CHECK:   %[[T:.*]] = memref.alloc() {bufferization.manual_deallocation} : memref<16xf32>
//       CHECK:   memref.copy %{{.*}}, %[[T]]
//  CHECK-NEXT:   memref.dealloc %[[T]] {bufferization.manual_deallocation} : memref<16xf32>
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   call @use(%[[P]])
//       CHECK:   memref.dealloc %[[P]] : memref<16xf32>
//  CHECK-NEXT:   return

// REMARK: remark: left to upstream's deallocation: an allocation memplan does not free (escapes-call)
func.func private @use(memref<16xf32>)
func.func @call_left_to_upstream(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  memref.copy %x, %p : memref<16xf32> to memref<16xf32>
  func.call @use(%p) : (memref<16xf32>) -> ()
  return
}

// -----

// One buffer returned twice (itself and a view): memplan does not decide
// who frees it and leaves it to upstream's ownership-based deallocation,
// which returns both and frees nothing.

// CHECK-LABEL: func @returned_twice
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
// REMARK: remark: left to upstream's deallocation: an allocation memplan does not free (escapes-return)
func.func @returned_twice(%x: memref<64xf32>) -> (memref<8x8xf32>, memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  return %v, %a : memref<8x8xf32>, memref<64xf32>
}
