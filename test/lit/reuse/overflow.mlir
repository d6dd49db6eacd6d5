// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' 2>&1 | FileCheck %s
// RUN: not memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-add-transient-storage{func=f},memplan-transients)' 2>&1 | FileCheck %s --check-prefix=TRANSIENTS
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' 2>&1 | FileCheck %s --check-prefix=LIVENESS

// Byte sizes are exact: 2^62 f32 are 2^64 bytes, which a 64-bit index cannot
// hold (wrapping would count them as 0 bytes and pool them over live buffers).

// CHECK: overflow.mlir:[[# @LINE + 3]]:8: error: memplan-buffer-reuse: size-overflow (memref<4611686018427387904xf32> needs 18446744073709551616 bytes, more than a 64-bit index holds)
// TRANSIENTS: overflow.mlir:[[# @LINE + 2]]:8: error: transient size-overflow (memref<4611686018427387904xf32> needs 18446744073709551616 bytes, more than a 64-bit index holds)
func.func @f() {
  %a = memref.alloc() : memref<4611686018427387904xf32>
  memref.dealloc %a : memref<4611686018427387904xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// 2^63 bytes: one more than the largest index.

// CHECK: overflow.mlir:[[# @LINE + 3]]:8: error: memplan-buffer-reuse: size-overflow (memref<2305843009213693952xf32> needs 9223372036854775808 bytes
// TRANSIENTS: overflow.mlir:[[# @LINE + 2]]:8: error: transient size-overflow (memref<2305843009213693952xf32> needs 9223372036854775808 bytes
func.func @f() {
  %a = memref.alloc() : memref<2305843009213693952xf32>
  memref.dealloc %a : memref<2305843009213693952xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// Each buffer fits, but two of them live together do not. The liveness
// report says so instead of failing.
// LIVENESS: liveness @f: 2 allocations, 2 eligible
// LIVENESS: heap peak (64-byte blocks, every buffer) = {{[0-9]+}} as is, n/a after memplan-buffer-reuse

// CHECK: overflow.mlir:[[# @LINE + 3]]:8: error: memplan-buffer-reuse: the pooled buffers need up to 9223372036854775808 bytes; memplan packs less than 2^62
// TRANSIENTS: overflow.mlir:[[# @LINE + 2]]:8: error: transient storage needs up to 9223372036854775808 bytes; memplan packs less than 2^62
func.func @f() {
  %a = memref.alloc() : memref<1152921504606846976xf32>
  %b = memref.alloc() : memref<1152921504606846976xf32>
  memref.copy %a, %b : memref<1152921504606846976xf32> to memref<1152921504606846976xf32>
  memref.dealloc %a : memref<1152921504606846976xf32>
  memref.dealloc %b : memref<1152921504606846976xf32>
  return
}
