// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation{copy-where-loops-run})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation{copy-where-loops-run drop-dead-values},memplan-verify-deallocation)' -verify-diagnostics -o /dev/null

// memplan-buffer-deallocation{copy-where-loops-run} makes the copy of a
// loop's init that bufferization put before the loop (the loop writes its
// iteration argument, the init is read later) only where the loop makes a
// trip: an scf.if on lb < ub (signed or unsigned) allocates and copies, its
// else branch hands the loop the source itself. Only where nothing that may
// run after the copy writes or frees the source's buffer or the loop's
// results outside the loop. The returned result is then owned on one path
// only: a flag, and a copy at the return where it is not owned.

// The rewrite: generated seed 322 at 10 ops, reduced. With zero trips the
// function returns a copy of %a made at the return, after %t is freed.
// CHECK-LABEL: func @copied_init
//  CHECK-SAME: (%[[A:.*]]: memref<8xi32>, %[[B:.*]]: memref<8xi32>, %[[N:.*]]: index)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[S:.*]] = arith.cmpi slt, %[[C0]], %[[N]] : index
//       CHECK:   %[[U:.*]] = arith.cmpi ult, %[[C0]], %[[N]] : index
//       CHECK:   %[[RUNS:.*]] = arith.ori %[[S]], %[[U]] : i1
//       CHECK:   %[[INIT:.*]]:2 = scf.if %[[RUNS]] -> (memref<8xi32>, i1) {
//       CHECK:     %[[COPY:.*]] = memref.alloc() : memref<8xi32>
//       CHECK:     memref.copy %[[A]], %[[COPY]]
//       CHECK:     scf.yield %[[COPY]], %true
//       CHECK:   } else {
//       CHECK:     scf.yield %[[A]], %false
//       CHECK:   }
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]#0)
//       CHECK:   memref.dealloc %{{.*}} : memref<8xi32>
//       CHECK:   %[[RET:.*]] = scf.if %[[INIT]]#1 -> (memref<8xi32>) {
//       CHECK:     scf.yield %[[INIT]]#0
//       CHECK:   } else {
//       CHECK:     bufferization.clone %[[INIT]]#0
//       CHECK:   return %[[RET]], %{{.*}} : memref<8xi32>, i32
#map = affine_map<(d0) -> (d0)>
func.func @copied_init(%a: memref<8xi32>, %b: memref<8xi32>, %n: index) -> (memref<8xi32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%b, %a : memref<8xi32>, memref<8xi32>) outs(%it : memref<8xi32>) {
    ^bb0(%x: i32, %y: i32, %o: i32):
      %s = arith.subi %x, %y : i32
      linalg.yield %s : i32
    }
    scf.yield %it : memref<8xi32>
  }
  %t = memref.alloc() : memref<8xi32>
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%b, %b : memref<8xi32>, memref<8xi32>) outs(%t : memref<8xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    linalg.yield %s : i32
  }
  %v = memref.load %t[%c0] : memref<8xi32>
  return %r, %v : memref<8xi32>, i32
}

// -----

// A write to the source before the copy, in its block, runs before it:
// still rewritten.
// CHECK-LABEL: func @written_before_the_copy
//       CHECK:   memref.store
//       CHECK:   scf.if
//       CHECK:     memref.alloc
//       CHECK:     memref.copy
//       CHECK:   scf.for
func.func @written_before_the_copy(%a: memref<8xi32>, %n: index, %x: i32) -> memref<8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %x, %a[%c0] : memref<8xi32>
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    %v = memref.load %a[%i] : memref<8xi32>
    memref.store %v, %it[%c0] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  return %r : memref<8xi32>
}

// -----

// The source written after the loop: where the loop makes no trip, the
// result would see that write. Unchanged.
// CHECK-LABEL: func @source_written_after
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy
//  CHECK-NEXT:   scf.for
func.func @source_written_after(%a: memref<8xi32>, %n: index, %x: i32) -> memref<8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    %v = memref.load %a[%i] : memref<8xi32>
    memref.store %v, %it[%c0] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  memref.store %x, %a[%c0] : memref<8xi32>
  return %r : memref<8xi32>
}

// -----

// A view of the source written between the copy and the loop. Unchanged.
// CHECK-LABEL: func @view_of_source_written_before_the_loop
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy
//       CHECK:   linalg.fill
//  CHECK-NEXT:   scf.for
func.func @view_of_source_written_before_the_loop(%a: memref<8xi32>, %n: index, %x: i32) -> memref<8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %view = memref.subview %a[2] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1], offset: 2>>
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  linalg.fill ins(%x : i32) outs(%view : memref<4xi32, strided<[1], offset: 2>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    memref.store %x, %it[%c0] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  return %r : memref<8xi32>
}

// -----

// The loop's result written after it, through a view in a later block:
// where the loop makes no trip, that would write the source. Unchanged.
// CHECK-LABEL: func @result_written_after
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy
//  CHECK-NEXT:   scf.for
func.func @result_written_after(%a: memref<8xi32>, %n: index, %x: i32, %c: i1) -> memref<8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    memref.store %x, %it[%i] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  %view = memref.subview %r[2] [4] [1] : memref<8xi32> to memref<4xi32, strided<[1], offset: 2>>
  cf.cond_br %c, ^write, ^done
^write:
  linalg.fill ins(%x : i32) outs(%view : memref<4xi32, strided<[1], offset: 2>>)
  cf.br ^done
^done:
  return %r : memref<8xi32>
}

// -----

// The result passed to a call, whose effects are unknown. Unchanged.
// CHECK-LABEL: func @result_passed_to_a_call
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy
//  CHECK-NEXT:   scf.for
func.func private @use(memref<8xi32>)
func.func @result_passed_to_a_call(%a: memref<8xi32>, %n: index, %x: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    memref.store %x, %it[%i] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  func.call @use(%r) : (memref<8xi32>) -> ()
  return
}

// -----

// A loop known to make trips needs its copy on every path; a loop in a
// loop may run its copy again after writes. Both unchanged.
// CHECK-LABEL: func @static_trips_and_nested
//   CHECK-NOT:   scf.if
//       CHECK:   memref.copy
//  CHECK-NEXT:   scf.for
//       CHECK:   scf.for
//       CHECK:     memref.copy
//  CHECK-NEXT:     scf.for
func.func @static_trips_and_nested(%a: memref<8xi32>, %n: index, %x: i32) -> memref<8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %copy = memref.alloc() : memref<8xi32>
  memref.copy %a, %copy : memref<8xi32> to memref<8xi32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %copy) -> (memref<8xi32>) {
    memref.store %x, %it[%i] : memref<8xi32>
    scf.yield %it : memref<8xi32>
  }
  scf.for %j = %c0 to %n step %c1 {
    %inner = memref.alloc() : memref<8xi32>
    memref.copy %a, %inner : memref<8xi32> to memref<8xi32>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%it = %inner) -> (memref<8xi32>) {
      memref.store %x, %it[%i] : memref<8xi32>
      scf.yield %it : memref<8xi32>
    }
    %v = memref.load %s[%c0] : memref<8xi32>
    memref.store %v, %a[%j] : memref<8xi32>
  }
  return %r : memref<8xi32>
}
