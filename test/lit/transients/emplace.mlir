// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-emplace-transients, memplan-materialize-transient-size-queries)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s --check-prefix=PIPE
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-emplace-transients{assert-size=false})' | FileCheck %s --check-prefix=NOASSERT

// Every transient becomes a view of the storage at its offset, its dealloc
// goes away, and the entry checks that the storage is large enough. The size
// query clones the size computation.

// CHECK-LABEL: func.func @static_pair
// CHECK-SAME:    (%[[X:.*]]: memref<256xf32>, %[[OUT:.*]]: memref<256xf32>, %[[S:.*]]: memref<?xi8> {memplan.transients})
// CHECK-SAME:    attributes {memplan.transient_size_fn = @static_pair_transient_size}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG:     %[[C2048:.*]] = arith.constant 2048 : index
// CHECK:         %[[DIM:.*]] = memref.dim %[[S]], %[[C0]] : memref<?xi8>
// CHECK:         %[[FITS:.*]] = arith.cmpi ule, %[[C2048]], %[[DIM]] : index
// CHECK:         cf.assert %[[FITS]], "memplan: transient storage is smaller than the required size"
// CHECK:         %[[A:.*]] = memref.view %[[S]][%[[C0]]][] : memref<?xi8> to memref<256xf32>
// CHECK:         memref.copy %[[X]], %[[A]]
// CHECK:         %[[B:.*]] = memref.view %[[S]][%[[C1024]]][] : memref<?xi8> to memref<256xf32>
// CHECK:         memref.copy %[[A]], %[[B]]
// CHECK-NOT:     memref.dealloc
// CHECK:         memref.copy %[[B]], %[[OUT]]
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @static_pair_transient_size
// CHECK-SAME:    (%{{.*}}: memref<256xf32>, %{{.*}}: memref<256xf32>) -> index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.constant 2048 : index
// CHECK-NEXT:    return %[[SIZE]] : index

// PIPE-LABEL: func.func @static_pair
// PIPE-SAME:    memplan.transient_size = 2048 : index, memplan.transient_size_fn = @static_pair_transient_size

// NOASSERT-LABEL: func.func @static_pair
// NOASSERT-NOT:   cf.assert
// NOASSERT:       return
func.func @static_pair(%x: memref<256xf32>, %out: memref<256xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  memref.copy %b, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}

// -----

// A dynamic size: the view takes the allocation's dynamic sizes, the offset
// and total are index arithmetic over the argument's shape, and the query
// function computes the same from the arguments minus the storage.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: memref<?xf32>, %[[S:.*]]: memref<?xi8> {memplan.transients})
// CHECK:         %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK:         %[[BYTES:.*]] = arith.muli %{{.*}}, %[[N]] : index
// CHECK:         cf.assert
// CHECK:         memref.view %[[S]][%{{.*}}][%{{.*}}] : memref<?xi8> to memref<?xf32>
// CHECK-LABEL: func.func @dynamic_transient_size
// CHECK-SAME:    (%[[QX:.*]]: memref<?xf32>) -> index
// CHECK:         memref.dim %[[QX]]
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.load
// CHECK:         return %{{.*}} : index

// PIPE-LABEL: func.func @dynamic
// PIPE-NOT:     memplan.transient_size =
// PIPE-SAME:    memplan.transient_size_fn = @dynamic_transient_size
func.func @dynamic(%x: memref<?xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %t : memref<?xf32> to memref<?xf32>
  memref.copy %t, %x : memref<?xf32> to memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  return
}

// -----

// A function with storage but no transients: the query returns 0.

// PIPE-LABEL: func.func @empty
// PIPE-SAME:    memplan.transient_size = 0 : index
// PIPE-LABEL: func.func @empty_transient_size
// PIPE-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// PIPE-NEXT:    return %[[Z]]
func.func @empty(%storage: memref<?xi8> {memplan.transients}) {
  return
}

// -----

// A returned buffer stays on the heap (function results are not transients).

// CHECK-LABEL: func.func @result_stays
// CHECK:         %[[R:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         return %[[R]]
func.func @result_stays(%storage: memref<?xi8> {memplan.transients}) -> memref<8xf32> {
  %r = memref.alloc() : memref<8xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%r : memref<8xf32>)
  return %r : memref<8xf32>
}
