// RUN: memplan-opt %s -split-input-file -verify-diagnostics -memplan-buffer-reuse='remarks' -o %t

// memplan's passes report through MLIR's diagnostics, so mlir-opt's
// -verify-diagnostics checks their remarks; the pass flag is mlir-opt's flag
// form.

// A returned buffer is not pooled: a remark names the reason.
func.func @escapes_return(%x: memref<8xf32>) -> memref<8xf32> {
  // expected-remark @below {{not pooled: escapes-return}}
  %r = memref.alloc() : memref<8xf32>
  memref.copy %x, %r : memref<8xf32> to memref<8xf32>
  return %r : memref<8xf32>
}
