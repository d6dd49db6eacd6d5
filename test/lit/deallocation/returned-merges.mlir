// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation,memplan-verify-deallocation)' -verify-diagnostics -o /dev/null

// A returned select or merge that may be, at run time, a buffer the function
// owns and frees at the return (still used after the select or merge, so it
// did not take the buffer over) is compared with that buffer at the return:
// where it is the buffer (same aligned pointer, owned), the buffer itself is
// handed to the caller and not freed; only where it is not is the value
// copied and the buffer freed, as upstream's run-time ownership does. A
// copy on every path would hold the buffer and its copy at once. Every
// output is proven by memplan-verify-deallocation (the second RUN line).

// A select of an argument and an owned buffer read after the select.

// CHECK-LABEL: func @select_returned
//       CHECK:   %[[TRUE:.*]] = arith.constant true
//       CHECK:   %[[A:.*]] = memref.alloc()
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %{{.*}}, %[[A]]
//       CHECK:   memref.load %[[A]]
//       CHECK:   %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//       CHECK:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//       CHECK:   %[[SAME:.*]] = arith.cmpi eq, %[[PA]], %[[PS]]
//       CHECK:   %[[R:.*]] = scf.if %[[SAME]]
//  CHECK-NEXT:     scf.yield %[[S]]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[C:.*]] = bufferization.clone %[[S]]
//  CHECK-NEXT:     scf.yield %[[C]]
//       CHECK:   %[[NOT:.*]] = arith.xori %[[SAME]], %[[TRUE]]
//  CHECK-NEXT:   scf.if %[[NOT]] {
//  CHECK-NEXT:     memref.dealloc %[[A]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[R]],
func.func @select_returned(%c: i1, %x: memref<8xf32>, %i: index) -> (memref<8xf32>, f32) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %x, %a : memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  return %s, %v : memref<8xf32>, f32
}

// -----

// The same buffer may be returned at two positions (a select of one value
// and that value): the first position that is it takes it, the other one
// gets a copy, and the buffer is freed only where neither took it.

// CHECK-LABEL: func @select_returned_twice
//       CHECK:   %[[TRUE:.*]] = arith.constant true
//       CHECK:   %[[A:.*]] = memref.alloc()
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %{{.*}}, %[[A]]
//       CHECK:   %[[T:.*]] = arith.select %{{.*}}, %[[S]], %[[S]]
//       CHECK:   %[[PT:.*]] = memref.extract_aligned_pointer_as_index %[[T]]
//       CHECK:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//       CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[PA]], %[[PT]]
//       CHECK:   %[[R0:.*]] = scf.if %[[FIRST]]
//       CHECK:     bufferization.clone %[[T]]
//       CHECK:   %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//       CHECK:   %[[PA2:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//       CHECK:   %[[IS:.*]] = arith.cmpi eq, %[[PA2]], %[[PS]]
//       CHECK:   %[[NOTFIRST:.*]] = arith.xori %[[FIRST]], %[[TRUE]]
//       CHECK:   %[[SECOND:.*]] = arith.andi %[[IS]], %[[NOTFIRST]]
//       CHECK:   %[[TAKEN:.*]] = arith.ori %[[FIRST]], %[[SECOND]]
//       CHECK:   %[[R1:.*]] = scf.if %[[SECOND]]
//       CHECK:     bufferization.clone %[[S]]
//       CHECK:   %[[NOT:.*]] = arith.xori %[[TAKEN]], %[[TRUE]]
//  CHECK-NEXT:   scf.if %[[NOT]] {
//  CHECK-NEXT:     memref.dealloc %[[A]]
//       CHECK:   return %[[R0]], %[[R1]]
func.func @select_returned_twice(%c: i1, %d: i1, %x: memref<8xf32>, %i: index) -> (memref<8xf32>, memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %x, %a : memref<8xf32>
  %t = arith.select %d, %s, %s : memref<8xf32>
  %cst = arith.constant 1.0 : f32
  memref.store %cst, %a[%i] : memref<8xf32>
  return %t, %s : memref<8xf32>, memref<8xf32>
}

// -----

// An scf.if result that no branch hands ownership to (the buffer is
// written after it): compared with the buffer at the return.

// CHECK-LABEL: func @if_returned
//       CHECK:   %[[A:.*]] = memref.alloc()
//       CHECK:   %[[M:.*]] = scf.if
//       CHECK:   memref.store %{{.*}}, %[[A]]
//       CHECK:   %[[PM:.*]] = memref.extract_aligned_pointer_as_index %[[M]]
//       CHECK:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//       CHECK:   %[[SAME:.*]] = arith.cmpi eq, %[[PA]], %[[PM]]
//       CHECK:   %[[R:.*]] = scf.if %[[SAME]]
//       CHECK:     bufferization.clone %[[M]]
//       CHECK:   %[[NOT:.*]] = arith.xori %[[SAME]]
//  CHECK-NEXT:   scf.if %[[NOT]] {
//  CHECK-NEXT:     memref.dealloc %[[A]]
//       CHECK:   return %[[R]]
func.func @if_returned(%c: i1, %x: memref<8xf32>, %i: index) -> memref<8xf32> {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    scf.yield %a : memref<8xf32>
  }
  %cst = arith.constant 1.0 : f32
  memref.store %cst, %a[%i] : memref<8xf32>
  return %r : memref<8xf32>
}

// -----

// The buffer is itself a merge whose ownership a flag carries: the select
// is handed over as is only where the flag says the function owns it.

// CHECK-LABEL: func @dynamic_returned
//       CHECK:   %[[M:.*]]:2 = scf.if
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %[[M]]#0, %{{.*}}
//       CHECK:   %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//       CHECK:   %[[PM:.*]] = memref.extract_aligned_pointer_as_index %[[M]]#0
//       CHECK:   %[[SAME:.*]] = arith.cmpi eq, %[[PM]], %[[PS]]
//       CHECK:   %[[OWNED:.*]] = arith.andi %[[SAME]], %[[M]]#1
//       CHECK:   %[[R:.*]] = scf.if %[[OWNED]]
//       CHECK:     bufferization.clone %[[S]]
//       CHECK:   %[[NOT:.*]] = arith.xori %[[OWNED]]
//       CHECK:   %[[FREE:.*]] = arith.andi %[[M]]#1, %[[NOT]]
//  CHECK-NEXT:   scf.if %[[FREE]] {
//  CHECK-NEXT:     memref.dealloc %[[M]]#0
//       CHECK:   return %[[R]]
func.func @dynamic_returned(%c: i1, %d: i1, %x: memref<8xf32>, %y: memref<8xf32>, %i: index) -> (memref<8xf32>, f32) {
  %m = scf.if %c -> memref<8xf32> {
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    scf.yield %b : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  %s = arith.select %d, %m, %y : memref<8xf32>
  %v = memref.load %m[%i] : memref<8xf32>
  return %s, %v : memref<8xf32>, f32
}
