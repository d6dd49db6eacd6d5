// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// memplan-buffer-liveness names, among the buffers stored at the heap peak
// that a rewrite could leave out, those that only transposes and broadcasts
// write (memplan-fold-transposes does not store them), with the bytes that
// saves at the peak.

// nn.Linear after upstream's bufferization: the transposed weight is the
// largest buffer at the peak.

// CHECK-LABEL: liveness @transposed_weight
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc 4096, %alloc_0 1024
//  CHECK-NEXT:   stored at the peak that a rewrite could leave out: 1 buffers, 4096 B
//  CHECK-NEXT:     %alloc (permuted copy, saves 4096 B): written by linalg.transpose ({{.*}}permuted-copies.mlir:[[# @LINE + 6]]:3) from a source held at the peak anyway; its readers could read the source through their indexing maps
func.func @transposed_weight(%x: memref<8x32xf32>, %w: memref<32x32xf32>, %out: memref<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x32xf32>
  %acc = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x32xf32>)
  linalg.transpose ins(%w : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<8x32xf32>, memref<32x32xf32>) outs(%acc : memref<8x32xf32>)
  memref.dealloc %t : memref<32x32xf32>
  memref.copy %acc, %out : memref<8x32xf32> to memref<8x32xf32>
  memref.dealloc %acc : memref<8x32xf32>
  return
}

// -----

// One destination shared by the transposes of two layers (an importer's
// CSE'd tensor.empty): it only ever holds transposed copies. At the peak
// (the second layer's allocation) it holds the first layer's.

// CHECK-LABEL: liveness @shared_destination
//       CHECK:   stored at the peak that a rewrite could leave out: 1 buffers, 4096 B
//  CHECK-NEXT:     %alloc (permuted copy, saves 4096 B): written by linalg.transpose ({{.*}}permuted-copies.mlir:[[# @LINE + 4]]:3)
func.func @shared_destination(%x: memref<8x32xf32>, %w0: memref<32x32xf32>, %w1: memref<32x32xf32>, %out: memref<8x32xf32>) {
  %t = memref.alloc() : memref<32x32xf32>
  %h = memref.alloc() : memref<8x32xf32>
  linalg.transpose ins(%w0 : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<8x32xf32>, memref<32x32xf32>) outs(%h : memref<8x32xf32>)
  %h2 = memref.alloc() : memref<8x32xf32>
  linalg.exp ins(%h : memref<8x32xf32>) outs(%h2 : memref<8x32xf32>)
  memref.dealloc %h : memref<8x32xf32>
  linalg.transpose ins(%w1 : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  linalg.matmul ins(%h2, %t : memref<8x32xf32>, memref<32x32xf32>) outs(%out : memref<8x32xf32>)
  memref.dealloc %t : memref<32x32xf32>
  memref.dealloc %h2 : memref<8x32xf32>
  return
}

// -----

// Not named: a broadcast bias that a matmul accumulates into (another op
// writes the buffer), and a transposed copy that is returned.

// CHECK-LABEL: liveness @not_only_copies
//   CHECK-NOT:   stored at the peak
//       CHECK:   name{{ +}}bytes{{ +}}interval
func.func @not_only_copies(%x: memref<8x32xf32>, %w: memref<32x32xf32>, %bias: memref<32xf32>) -> memref<32x32xf32> {
  %b = memref.alloc() : memref<8x32xf32>
  linalg.broadcast ins(%bias : memref<32xf32>) outs(%b : memref<8x32xf32>) dimensions = [0]
  linalg.matmul ins(%x, %w : memref<8x32xf32>, memref<32x32xf32>) outs(%b : memref<8x32xf32>)
  %t = memref.alloc() : memref<32x32xf32>
  linalg.transpose ins(%w : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  memref.dealloc %b : memref<8x32xf32>
  return %t : memref<32x32xf32>
}

// -----

// An activation transposed where it dies, the peak after it: reading it
// through the transpose would keep it alive across the peak instead, which
// saves nothing (same bytes). A plain copy of an argument is not a permuted
// copy.

// CHECK-LABEL: liveness @transposed_activation
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}permuted-copies.mlir:[[# @LINE + 12]]:8): %alloc_2 8192, %alloc_0 4096, %alloc_1 4096
//   CHECK-NOT:   stored at the peak
//       CHECK:   %alloc
func.func @transposed_activation(%x: memref<32x32xf32>, %out: memref<32x32xf32>, %out2: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %h = memref.alloc() : memref<32x32xf32>
  linalg.exp ins(%x : memref<32x32xf32>) outs(%h : memref<32x32xf32>)
  %c = memref.alloc() : memref<32x32xf32>
  linalg.copy ins(%x : memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  %t = memref.alloc() : memref<32x32xf32>
  linalg.transpose ins(%h : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  memref.dealloc %h : memref<32x32xf32>
  %e = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%e : memref<64x32xf32>)
  linalg.add ins(%t, %c : memref<32x32xf32>, memref<32x32xf32>) outs(%out : memref<32x32xf32>)
  memref.copy %e, %out2 : memref<64x32xf32> to memref<64x32xf32>
  memref.dealloc %e : memref<64x32xf32>
  memref.dealloc %t : memref<32x32xf32>
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// An activation broadcast where it dies, the peak after it: reading the
// 1 KiB row instead of its 4 KiB broadcast keeps the row across the peak
// and saves the difference.

// CHECK-LABEL: liveness @broadcast_activation
//       CHECK:   stored at the peak that a rewrite could leave out: 1 buffers, 3072 B
//  CHECK-NEXT:     %alloc_0 (permuted copy, saves 3072 B): written by linalg.broadcast ({{.*}}permuted-copies.mlir:[[# @LINE + 5]]:3) from a source which would live on instead
func.func @broadcast_activation(%x: memref<256xf32>, %y: memref<4x256xf32>, %out: memref<4x256xf32>) {
  %h = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%h : memref<256xf32>)
  %b = memref.alloc() : memref<4x256xf32>
  linalg.broadcast ins(%h : memref<256xf32>) outs(%b : memref<4x256xf32>) dimensions = [0]
  memref.dealloc %h : memref<256xf32>
  %e = memref.alloc() : memref<4x256xf32>
  linalg.exp ins(%y : memref<4x256xf32>) outs(%e : memref<4x256xf32>)
  linalg.add ins(%b, %e : memref<4x256xf32>, memref<4x256xf32>) outs(%out : memref<4x256xf32>)
  memref.dealloc %e : memref<4x256xf32>
  memref.dealloc %b : memref<4x256xf32>
  return
}

// -----

// Not named: a transposed weight that a matmul reads and a memref.copy
// copies out (an insert_slice of the tensor program). The copy cannot read
// the weight through the transpose's map (only structured ops and loads can),
// so the transposed buffer must be stored.

// CHECK-LABEL: liveness @read_by_a_copy
//   CHECK-NOT:   stored at the peak
//       CHECK:   name{{ +}}bytes{{ +}}interval
func.func @read_by_a_copy(%x: memref<8x32xf32>, %w: memref<32x32xf32>, %out: memref<8x32xf32>, %wt: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32x32xf32>
  %acc = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x32xf32>)
  linalg.transpose ins(%w : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<8x32xf32>, memref<32x32xf32>) outs(%acc : memref<8x32xf32>)
  memref.copy %t, %wt : memref<32x32xf32> to memref<32x32xf32>
  memref.dealloc %t : memref<32x32xf32>
  memref.copy %acc, %out : memref<8x32xf32> to memref<8x32xf32>
  memref.dealloc %acc : memref<8x32xf32>
  return
}

// -----

// Named: a transposed weight read by a matmul and by a load (both can read
// the source through the copy's map).

// CHECK-LABEL: liveness @read_by_a_load
//       CHECK:   stored at the peak that a rewrite could leave out: 1 buffers, 4096 B
//  CHECK-NEXT:     %alloc (permuted copy, saves 4096 B): written by linalg.transpose
func.func @read_by_a_load(%x: memref<8x32xf32>, %w: memref<32x32xf32>, %out: memref<8x32xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<32x32xf32>
  %acc = memref.alloc() : memref<8x32xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8x32xf32>)
  linalg.transpose ins(%w : memref<32x32xf32>) outs(%t : memref<32x32xf32>) permutation = [1, 0]
  linalg.matmul ins(%x, %t : memref<8x32xf32>, memref<32x32xf32>) outs(%acc : memref<8x32xf32>)
  %v = memref.load %t[%c1, %c1] : memref<32x32xf32>
  memref.dealloc %t : memref<32x32xf32>
  memref.copy %acc, %out : memref<8x32xf32> to memref<8x32xf32>
  memref.dealloc %acc : memref<8x32xf32>
  return %v : f32
}
