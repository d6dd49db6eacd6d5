// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-transient-storage)' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A public function without the storage marker keeps its signature (its
// external callers would break): its transients stay on the heap.

// REMARK: signatures.mlir:[[# @LINE + 15]]:3: remark: @public_callee is public and takes no memplan.transients storage: its signature is kept, its transients stay on the heap
// CHECK-LABEL: func.func @public_callee
//  CHECK-SAME:   (%{{.*}}: memref<16xf32>) {
//       CHECK:   memref.alloc() : memref<16xf32>
// CHECK-LABEL: func.func @caller
//       CHECK:   call @public_callee(%{{.*}}) : (memref<16xf32>) -> ()
//   CHECK-NOT: func.func @public_callee_transient_size
func.func @public_callee(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  memref.copy %t, %x : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}
func.func @caller(%x: memref<16xf32>, %storage: memref<?xi8> {memplan.transients}) {
  call @public_callee(%x) : (memref<16xf32>) -> ()
  return
}

// -----

// A private function referenced by func.constant keeps its type too (the
// constant's result type is the function's type).

// REMARK: signatures.mlir:[[# @LINE + 15]]:3: remark: @referenced is referenced by func.constant at {{.*}}signatures.mlir:[[# @LINE + 16]]:8: its signature is kept, its transients stay on the heap
// CHECK-LABEL: func.func private @referenced
//  CHECK-SAME:   (%{{.*}}: memref<16xf32>) {
//       CHECK:   memref.alloc() : memref<16xf32>
// CHECK-LABEL: func.func @takes_address
//       CHECK:   constant @referenced : (memref<16xf32>) -> ()
//       CHECK:   call @referenced(%{{.*}}) : (memref<16xf32>) -> ()
func.func private @referenced(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  memref.copy %t, %x : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}
func.func @takes_address(%x: memref<16xf32>, %storage: memref<?xi8> {memplan.transients}) -> ((memref<16xf32>) -> ()) {
  call @referenced(%x) : (memref<16xf32>) -> ()
  %f = func.constant @referenced : (memref<16xf32>) -> ()
  return %f : (memref<16xf32>) -> ()
}

// -----

// A recursive callee that allocates nothing needs no storage: no error, and
// the caller's own transients are placed.

// CHECK-LABEL: func.func private @countdown
//  CHECK-SAME:   (%{{.*}}: index) {
// CHECK-LABEL: func.func @recursion_without_allocations
//       CHECK:   memref.view
//       CHECK:   call @countdown(%{{.*}}) : (index) -> ()
func.func private @countdown(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %more = arith.cmpi ugt, %n, %c0 : index
  scf.if %more {
    %m = arith.subi %n, %c1 : index
    func.call @countdown(%m) : (index) -> ()
  }
  return
}
func.func @recursion_without_allocations(%n: index, %x: memref<16xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  call @countdown(%n) : (index) -> ()
  memref.copy %t, %x : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}

// -----

// Any reference to a function that is not a call's callee keeps its type
// (SymbolTable uses, CallOpInterface): here an attribute of another function.

// REMARK: signatures.mlir:[[# @LINE + 14]]:3: remark: @by_attribute is referenced by func.func at {{.*}}signatures.mlir:[[# @LINE + 13]]:1: its signature is kept, its transients stay on the heap
// CHECK-LABEL: func.func private @by_attribute
//  CHECK-SAME:   (%{{.*}}: memref<16xf32>) {
//       CHECK:   memref.alloc() : memref<16xf32>
// CHECK-LABEL: func.func @names_it
//       CHECK:   call @by_attribute(%{{.*}}) : (memref<16xf32>) -> ()
func.func private @by_attribute(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  memref.copy %t, %x : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}
func.func @names_it(%x: memref<16xf32>, %storage: memref<?xi8> {memplan.transients}) attributes {test.handler = @by_attribute} {
  call @by_attribute(%x) : (memref<16xf32>) -> ()
  return
}
