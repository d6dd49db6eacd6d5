// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-deallocation-plan)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-test-apply-deallocation-plan,memplan-verify-deallocation)' --verify-diagnostics -o /dev/null

// The rewrite of memplan-buffer-deallocation alone: its plan (handles, flags,
// frees, copies at returns) stated by memplan.test_ attributes instead of
// the ownership analysis (include/memplan/Deallocation/PlanAttributes.h).
// The second run proves each applied plan frees every buffer once.

// An owned allocation freed right after the op stated: its last use.

// CHECK-LABEL: func @free_after
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//  CHECK-NEXT:   memref.copy %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   return
//   CHECK-NOT:   memplan.test_
func.func @free_after(%x: memref<8xf32>, %y: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %y {memplan.test_free_after = array<i64: 0>} : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Two frees after one op go in the order stated; a free before an op goes
// right before it.

// CHECK-LABEL: func @free_order
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[C:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.copy %[[A]], %[[B]]
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<8xf32>
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   memref.dealloc %[[C]] : memref<8xf32>
//  CHECK-NEXT:   return
func.func @free_order(%x: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes", "yes", "yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  %b = memref.alloc() {memplan.test_handles = array<i64: 1>} : memref<8xf32>
  %c = memref.alloc() {memplan.test_handles = array<i64: 2>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %b {memplan.test_free_after = array<i64: 1, 0>} : memref<8xf32> to memref<8xf32>
  return {memplan.test_free_before = array<i64: 2>}
}

// -----

// A returned argument the function does not own gets a copy at the return;
// the owned allocation returned next to it does not.

// CHECK-LABEL: func @copy_at_return
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[C:.*]] = bufferization.clone %{{.*}} : memref<8xf32> to memref<8xf32>
//  CHECK-NEXT:   return %[[A]], %[[C]]
func.func @copy_at_return(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>)
    attributes {memplan.test_ownership = ["yes", "no"]} {
  %a = memref.alloc() {memplan.test_arguments = array<i64: 1>, memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  return {memplan.test_copies = [{position = 1}]} %a, %x : memref<8xf32>, memref<8xf32>
}

// -----

// One branch of an scf.if yields a fresh buffer, the other the argument:
// the result is dynamic, so the scf.if gets an i1 result, each yield the
// flag its handle brings (owned: true; not: false), and the free waits on
// it.

// CHECK-LABEL: func @dynamic_merge
//       CHECK:   %[[R:.*]]:2 = scf.if %{{.*}} -> (memref<8xf32>, i1) {
//       CHECK:     %[[TRUE:.*]] = arith.constant true
//       CHECK:     scf.yield %{{.*}}, %[[TRUE]] : memref<8xf32>, i1
//       CHECK:     %[[FALSE:.*]] = arith.constant false
//  CHECK-NEXT:     scf.yield %{{.*}}, %[[FALSE]] : memref<8xf32>, i1
//       CHECK:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @dynamic_merge(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes", "no", "dynamic"]} {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield {memplan.test_flags = array<i64: 0>} %a : memref<8xf32>
  } else {
    scf.yield {memplan.test_flags = array<i64: 1>} %x : memref<8xf32>
  } {memplan.test_arguments = array<i64: -1, 1, -1>, memplan.test_handles = array<i64: 2>}
  memref.copy %r, %out {memplan.test_free_after = array<i64: 2>} : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A block argument that the branches disagree on: a flag per successor's
// argument, appended to the branch operands; the buffer dies on the edge
// that does not pass it on, which becomes a block of its own.

// CHECK-LABEL: func @dynamic_block_argument
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   cf.cond_br %{{.*}}, ^[[PASS:bb[0-9]+]](%[[A]], %{{.*}} : memref<8xf32>, i1), ^[[SPLIT:bb[0-9]+]](%{{.*}}, %{{.*}} : memref<8xf32>, i1)
//       CHECK: ^[[SPLIT]](%{{.*}}: memref<8xf32>, %{{.*}}: i1):
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   cf.br ^[[PASS]]
//       CHECK: ^[[PASS]](%[[M:.*]]: memref<8xf32>, %[[F:.*]]: i1):
//       CHECK:   scf.if %[[F]] {
//  CHECK-NEXT:     memref.dealloc %[[M]] : memref<8xf32>
func.func @dynamic_block_argument(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes", "no", "dynamic"]} {
  %a = memref.alloc() {memplan.test_arguments = array<i64: -1, 1, -1>, memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.cond_br %c, ^join(%a : memref<8xf32>), ^join(%x : memref<8xf32>)
      {memplan.test_successor_flags = [array<i64: 0>, array<i64: 1>],
       memplan.test_free_on_edge = [array<i64: 1, 0>]}
^join(%m: memref<8xf32>):
  memref.copy %m, %out {memplan.test_arguments = array<i64: 2>, memplan.test_free_after = array<i64: 2>} : memref<8xf32> to memref<8xf32>
  return
}

// -----

// An owning select: the buffer it does not select is freed right after it
// (a comparison of aligned pointers), and its own flag says whether it holds
// one of the buffers it took over.

// CHECK-LABEL: func @owning_select
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %[[A]], %[[B]] : memref<8xf32>
//  CHECK-NEXT:   %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:   %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//  CHECK-NEXT:   %[[ISA:.*]] = arith.cmpi eq, %[[AP]], %[[SP]] : index
//  CHECK-NEXT:   %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
//  CHECK-NEXT:   %[[ISB:.*]] = arith.cmpi eq, %[[BP]], %[[SP]] : index
//  CHECK-NEXT:   %[[OWNED:.*]] = arith.ori %[[ISA]], %[[ISB]] : i1
//       CHECK:   %[[NA:.*]] = arith.cmpi ne
//  CHECK-NEXT:   scf.if %[[NA]] {
//  CHECK-NEXT:     memref.dealloc %[[A]] : memref<8xf32>
//       CHECK:   %[[NB:.*]] = arith.cmpi ne
//  CHECK-NEXT:   scf.if %[[NB]] {
//  CHECK-NEXT:     memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:   memref.copy %[[S]], %{{.*}}
//  CHECK-NEXT:   scf.if %[[OWNED]] {
//  CHECK-NEXT:     memref.dealloc %[[S]] : memref<8xf32>
func.func @owning_select(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes", "yes", "dynamic"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  %b = memref.alloc() {memplan.test_handles = array<i64: 1>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %a, %b
      {memplan.test_handles = array<i64: 2>, memplan.test_takes = array<i64: 0, 1>,
       memplan.test_free_unselected = [array<i64: 0, 2>, array<i64: 1, 2>]} : memref<8xf32>
  memref.copy %s, %out {memplan.test_free_after = array<i64: 2>} : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A returned dynamic value is copied only where its flag says the function
// does not own it; where it does, it is handed to the caller as is.

// CHECK-LABEL: func @conditional_copy
//       CHECK:   %[[R:.*]]:2 = scf.if
//       CHECK:   %[[V:.*]] = scf.if %[[R]]#1 -> (memref<8xf32>) {
//  CHECK-NEXT:     scf.yield %[[R]]#0 : memref<8xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[C:.*]] = bufferization.clone %[[R]]#0
//  CHECK-NEXT:     scf.yield %[[C]] : memref<8xf32>
//       CHECK:   return %[[V]] : memref<8xf32>
func.func @conditional_copy(%c: i1, %x: memref<8xf32>) -> memref<8xf32>
    attributes {memplan.test_ownership = ["yes", "no", "dynamic"]} {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield {memplan.test_flags = array<i64: 0>} %a : memref<8xf32>
  } else {
    scf.yield {memplan.test_flags = array<i64: 1>} %x : memref<8xf32>
  } {memplan.test_arguments = array<i64: -1, 1>, memplan.test_handles = array<i64: 2>}
  return {memplan.test_copies = [{position = 0, unless_owned = 2}]} %r : memref<8xf32>
}

// -----

// A free at the start of a block goes before its first op.

// CHECK-LABEL: func @free_at_start
//       CHECK: ^bb1:
//  CHECK-NEXT:   memref.dealloc %{{.*}} : memref<8xf32>
//  CHECK-NEXT:   memref.copy
func.func @free_at_start(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>)
    attributes {memplan.test_ownership = ["yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.br ^bb1
^bb1:
  memref.copy %x, %out {memplan.test_free_at_start = array<i64: 0>} : memref<8xf32> to memref<8xf32>
  return
}

// -----

// One value returned at two positions is one copy, returned twice: the
// second position takes the first one's copy.

// CHECK-LABEL: func @same_copy_twice
//       CHECK:   %[[C:.*]] = bufferization.clone %{{.*}} : memref<8xf32> to memref<8xf32>
//  CHECK-NEXT:   return %[[C]], %[[C]] :
func.func @same_copy_twice(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>)
    attributes {memplan.test_ownership = ["no"]} {
  %c0 = arith.constant {memplan.test_arguments = array<i64: 0>} 0 : index
  return {memplan.test_copies = [{position = 0}, {position = 1, same_as = 0}]} %x, %x : memref<8xf32>, memref<8xf32>
}

// -----

// A returned select that may be a buffer the function frees at the return:
// where it is that buffer (their aligned pointers agree), the return hands
// it to the caller as is and does not free it; elsewhere it returns a copy
// and frees the buffer.

// CHECK-LABEL: func @taken_over_at_return
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}} : memref<8xf32>
//       CHECK:   %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:   %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//  CHECK-NEXT:   %[[IS:.*]] = arith.cmpi eq, %[[AP]], %[[SP]] : index
//  CHECK-NEXT:   %[[R:.*]] = scf.if %[[IS]] -> (memref<8xf32>) {
//  CHECK-NEXT:     scf.yield %[[S]] : memref<8xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[C:.*]] = bufferization.clone %[[S]]
//  CHECK-NEXT:     scf.yield %[[C]] : memref<8xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[NOT:.*]] = arith.xori %[[IS]], %{{.*}} : i1
//  CHECK-NEXT:   scf.if %[[NOT]] {
//  CHECK-NEXT:     memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[R]] : memref<8xf32>
func.func @taken_over_at_return(%c: i1, %x: memref<8xf32>) -> memref<8xf32>
    attributes {memplan.test_ownership = ["yes", "no", "no"]} {
  %a = memref.alloc() {memplan.test_arguments = array<i64: -1, 1>, memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %a, %x {memplan.test_handles = array<i64: 2>} : memref<8xf32>
  return {memplan.test_copies = [{position = 0, take_over = array<i64: 0>}],
          memplan.test_free_before_unless_returned = array<i64: 0>} %s : memref<8xf32>
}

// -----

// A function without memplan.test_ownership is left as it is, attributes
// included.

// CHECK-LABEL: func @no_plan
//       CHECK:   memref.copy %{{.*}}, %{{.*}} {memplan.test_free_after = array<i64: 0>}
//  CHECK-NEXT:   memref.dealloc
//  CHECK-NEXT:   return
func.func @no_plan(%x: memref<8xf32>) {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  memref.copy %x, %a {memplan.test_free_after = array<i64: 0>} : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return
}
