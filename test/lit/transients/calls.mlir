// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-annotate-transient-storage)' | FileCheck %s --check-prefix=PLAN
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// A -> B: the callee gets a memref<?xi8> argument; the caller packs the
// callee's storage with its own transients and passes a view of it.

// PLAN-LABEL: func.func private @callee
// PLAN-SAME:    memplan.transient_storage = {argument = "new", size = "512"}
// PLAN-LABEL: func.func @caller
// PLAN-SAME:    memplan.transient_storage = {argument = 0 : i64, size = "1024"}
// PLAN:         call @callee() {memplan.transient_call = {callee = @callee, offset = "512", size = "512"}}

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (%[[CS:.*]]: memref<?xi8>)
// CHECK-NOT:     cf.assert
// CHECK:         memref.view %[[CS]][%{{.*}}][] : memref<?xi8> to memref<128xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[S:.*]]: memref<?xi8> {memplan.transients})
// CHECK-SAME:    memplan.transient_size = 1024 : index
// CHECK-DAG:     %[[C512:.*]] = arith.constant 512 : index
// CHECK:         %[[MINE:.*]] = memref.view %[[S]][%{{.*}}][] : memref<?xi8> to memref<128xf32>
// CHECK:         %[[SUB:.*]] = memref.view %[[S]][%[[C512]]][] : memref<?xi8> to memref<512xi8>
// CHECK:         %[[CAST:.*]] = memref.cast %[[SUB]] : memref<512xi8> to memref<?xi8>
// CHECK:         call @callee(%[[CAST]]) : (memref<?xi8>) -> ()
func.func private @callee() {
  %t = memref.alloc() : memref<128xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<128xf32>)
  memref.dealloc %t : memref<128xf32>
  return
}
func.func @caller(%storage: memref<?xi8> {memplan.transients}) {
  %mine = memref.alloc() : memref<128xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%mine : memref<128xf32>)
  call @callee() : () -> ()
  linalg.fill ins(%one : f32) outs(%mine : memref<128xf32>)
  memref.dealloc %mine : memref<128xf32>
  return
}

// -----

// A -> B -> C with a dynamic size: A's size contains B's, which contains C's;
// each level passes the next a view sized by the callee's expression, with the
// callee's arguments replaced by the call operands.

// PLAN-LABEL: func.func private @c
// PLAN-SAME:    size = "align(4 * %arg0, 64)"
// PLAN-LABEL: func.func private @b
// PLAN-SAME:    size = "64 + align(4 * @c:%arg0, 64)"
// PLAN-LABEL: func.func @a
// PLAN-SAME:    size = "align(64 + align(4 * @b:@c:%arg0, 64), 64)"
// PLAN:         call @b(%arg0) {memplan.transient_call = {callee = @b, offset = "0", size = "64 + align(4 * @b:@c:%arg0, 64)"}}

// CHECK-LABEL: func.func private @c
// CHECK-SAME:    (%[[N:.*]]: index, %[[CS:.*]]: memref<?xi8>)
// CHECK:         memref.view %[[CS]][%{{.*}}][%[[N]]] : memref<?xi8> to memref<?xf32>
// CHECK-LABEL: func.func private @b
// CHECK-SAME:    (%[[BN:.*]]: index, %[[BS:.*]]: memref<?xi8>)
// CHECK:         %[[TWICE:.*]] = arith.muli %[[BN]], %c2 : index
// CHECK:         %[[CSUB:.*]] = memref.view %[[BS]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xi8>
// CHECK:         call @c(%[[TWICE]], %[[CSUB]])
// CHECK-LABEL: func.func @a
// CHECK-SAME:    (%[[AN:.*]]: index, %[[AS:.*]]: memref<?xi8> {memplan.transients})
// CHECK:         %[[BSUB:.*]] = memref.view %[[AS]]
// CHECK:         call @b(%[[AN]], %[[BSUB]])
// CHECK-LABEL: func.func @a_transient_size
// CHECK-SAME:    (%[[QN:.*]]: index) -> index
// CHECK:         arith.muli %[[QN]]
func.func private @c(%n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<?xf32>)
  memref.dealloc %t : memref<?xf32>
  return
}
func.func private @b(%n: index) {
  %u = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%u : memref<16xf32>)
  %c2 = arith.constant 2 : index
  %twice = arith.muli %n, %c2 : index
  call @c(%twice) : (index) -> ()
  linalg.fill ins(%zero : f32) outs(%u : memref<16xf32>)
  memref.dealloc %u : memref<16xf32>
  return
}
func.func @a(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  call @b(%n) : (index) -> ()
  return
}

// -----

// A function without storage calling one that needs it: the caller gets the
// callee's storage from the heap around the call.

// CHECK-LABEL: func.func @plain
// CHECK:         %[[BUF:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
// CHECK-NEXT:    call @work(%{{.*}}, %[[BUF]])
// CHECK-NEXT:    memref.dealloc %[[BUF]] : memref<?xi8>
func.func private @work(%n: index) {
  %t = memref.alloc(%n) : memref<?xi8>
  memref.dealloc %t : memref<?xi8>
  return
}
func.func @root(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  call @work(%n) : (index) -> ()
  return
}
func.func @plain(%n: index) {
  call @work(%n) : (index) -> ()
  return
}

// -----

// The callee's size reads a memref.cast of the caller's argument: the cast
// is recomputed with the size (a dim of the cast is the source's), and the
// size query folds to the static shape behind the cast.

// PLAN-LABEL: func.func private @sized_by_cast
// PLAN-SAME:    size = "align(4 * %dim, 64)"
// PLAN-LABEL: func.func @through_cast
// PLAN-SAME:    memplan.transient_storage = {argument = 1 : i64, size = "align(4 * @sized_by_cast:%dim, 64)"}

// CHECK-LABEL: func.func @through_cast
// CHECK-SAME:    (%[[A:.*]]: memref<8xf32>, %[[S:.*]]: memref<?xi8> {memplan.transients})
// CHECK-SAME:    memplan.transient_size = 64 : index
// CHECK:         %[[CAST:.*]] = memref.cast %[[A]] : memref<8xf32> to memref<?xf32>
// CHECK:         %[[SUB:.*]] = memref.view %[[S]][%{{.*}}][] : memref<?xi8> to memref<64xi8>
// CHECK:         %[[SUBC:.*]] = memref.cast %[[SUB]] : memref<64xi8> to memref<?xi8>
// CHECK:         call @sized_by_cast(%[[CAST]], %[[SUBC]])
// CHECK-LABEL: func.func @through_cast_transient_size
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    return %[[C64]] : index
func.func private @sized_by_cast(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %t : memref<?xf32> to memref<?xf32>
  linalg.add ins(%t, %t : memref<?xf32>, memref<?xf32>) outs(%x : memref<?xf32>)
  memref.dealloc %t : memref<?xf32>
  return
}
func.func @through_cast(%a: memref<8xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c = memref.cast %a : memref<8xf32> to memref<?xf32>
  call @sized_by_cast(%c) : (memref<?xf32>) -> ()
  return
}
