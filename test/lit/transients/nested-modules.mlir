// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// A nested module is its own symbol table: its functions with storage are
// planned with the calls among them, as an outer module's are, and get their
// size queries there (a query of the same name in another module does not
// clash).

// CHECK-LABEL: func.func @scale
//  CHECK-SAME:   memplan.transient_size = 4096 : index
//  CHECK-SAME:   memplan.transient_size_fn = @scale_transient_size
//   CHECK-NOT:   memref.alloc
// CHECK-LABEL: func.func @scale_transient_size
func.func @scale(%x: memref<1024xf32>, %out: memref<1024xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %tmp = memref.alloc() : memref<1024xf32>
  memref.copy %x, %tmp : memref<1024xf32> to memref<1024xf32>
  memref.copy %tmp, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %tmp : memref<1024xf32>
  return
}

// CHECK-LABEL: module @inner
// CHECK-LABEL: func.func private @helper
//  CHECK-SAME:   memref<?xi8>
//   CHECK-NOT:   memref.alloc
// CHECK-LABEL: func.func @scale
//  CHECK-SAME:   memplan.transient_size = 512 : index
//  CHECK-SAME:   memplan.transient_size_fn = @scale_transient_size
//   CHECK-NOT:   memref.alloc
// CHECK-LABEL: func.func @scale_transient_size
module @inner {
  func.func private @helper(%x: memref<128xf32>) {
    %t = memref.alloc() : memref<128xf32>
    memref.copy %x, %t : memref<128xf32> to memref<128xf32>
    memref.copy %t, %x : memref<128xf32> to memref<128xf32>
    memref.dealloc %t : memref<128xf32>
    return
  }
  func.func @scale(%x: memref<128xf32>, %storage: memref<?xi8> {memplan.transients}) {
    call @helper(%x) : (memref<128xf32>) -> ()
    return
  }
}
