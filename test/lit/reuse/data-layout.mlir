// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-transients)' 2>&1 | FileCheck %s --check-prefix=TRANSIENTS

// A module that sets its own data layout: memplan sizes elements as LLVM's
// default layout does, so under another layout a planned view could overlap
// its neighbour. Buffer reuse leaves the module alone with a remark;
// transients, asked to place every transient buffer, stop with an error.

// REMARK: data-layout.mlir:[[@LINE+2]]:1: remark: memplan-buffer-reuse: the module sets its own data layout (dlti.dl_spec); memplan sizes elements for LLVM's default layout only: nothing pooled
// TRANSIENTS: data-layout.mlir:[[@LINE+1]]:1: error: memplan-verify-transient-storage: the module sets its own data layout (dlti.dl_spec)
module attributes {dlti.dl_spec = #dlti.dl_spec<i64 = dense<[32, 64]> : vector<2xi64>>} {
  // CHECK-LABEL: func.func @f
  //   CHECK-NOT:   memref.view
  //       CHECK:   memref.alloc() : memref<8xi64>
  //       CHECK:   memref.alloc() : memref<8xi64>
  func.func @f(%storage: memref<?xi8> {memplan.transients}, %out: memref<8xi64>) {
    %a = memref.alloc() : memref<8xi64>
    memref.copy %a, %out : memref<8xi64> to memref<8xi64>
    memref.dealloc %a : memref<8xi64>
    %b = memref.alloc() : memref<8xi64>
    memref.copy %b, %out : memref<8xi64> to memref<8xi64>
    memref.dealloc %b : memref<8xi64>
    return
  }
}
