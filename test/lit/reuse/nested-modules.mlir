// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s --check-prefix=LIVENESS

// Functions in nested modules are planned as those of the outer module
// (each function is planned on its own); the liveness report names them by
// their symbol reference from the outer module.

// LIVENESS-LABEL: liveness @outer: 2 allocations, 2 eligible
// LIVENESS-LABEL: liveness @inner::@nested: 2 allocations, 2 eligible
// LIVENESS-LABEL: liveness @deeper::@deepest::@nested: 2 allocations, 2 eligible

// CHECK-LABEL: func.func @outer
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
//   CHECK-NOT:   memref.alloc()
func.func @outer(%x: memref<1024xf32>, %out: memref<1024xf32>) {
  %a = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>)
  memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return
}

// CHECK-LABEL: module @inner
// CHECK-LABEL: func.func @nested
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
//   CHECK-NOT:   memref.alloc()
module @inner {
  func.func @nested(%x: memref<1024xf32>, %out: memref<1024xf32>) {
    %a = memref.alloc() : memref<1024xf32>
    linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
    memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
    memref.dealloc %a : memref<1024xf32>
    %b = memref.alloc() : memref<1024xf32>
    linalg.exp ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>)
    memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
    memref.dealloc %b : memref<1024xf32>
    return
  }
}

// Two levels down, with the same function name.
// CHECK-LABEL: module @deeper
// CHECK-LABEL: module @deepest
// CHECK-LABEL: func.func @nested
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
//   CHECK-NOT:   memref.alloc()
module @deeper {
  module @deepest {
    func.func @nested(%x: memref<1024xf32>, %out: memref<1024xf32>) {
      %a = memref.alloc() : memref<1024xf32>
      linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
      memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
      memref.dealloc %a : memref<1024xf32>
      %b = memref.alloc() : memref<1024xf32>
      linalg.exp ins(%x : memref<1024xf32>) outs(%b : memref<1024xf32>)
      memref.copy %b, %out : memref<1024xf32> to memref<1024xf32>
      memref.dealloc %b : memref<1024xf32>
      return
    }
  }
}
