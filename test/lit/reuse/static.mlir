// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse{alignment=256 algorithm=linear-scan})' | FileCheck %s --check-prefix=ALIGN

// Statically sized buffers with lifetimes that do not overlap share bytes of
// one pool; its size is the most bytes live at once.

// The RFC example: two 4096-byte buffers used one after the other share
// offset 0 of a 4096-byte pool, freed after the last use.

// CHECK-LABEL: func @sequential
//  CHECK-SAME:   (%[[X:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<512xf64>, %[[OUT:.*]]: memref<1024xf32>, %[[OUT2:.*]]: memref<512xf64>)
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<4096xi8> to memref<1024xf32>
//       CHECK:   linalg.exp ins(%[[X]] : memref<1024xf32>) outs(%[[A]] : memref<1024xf32>)
//       CHECK:   memref.copy %[[A]], %[[OUT]]
//   CHECK-NOT:   memref.dealloc
//       CHECK:   %[[B:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<4096xi8> to memref<512xf64>
//       CHECK:   linalg.exp ins(%[[Y]] : memref<512xf64>) outs(%[[B]] : memref<512xf64>)
//       CHECK:   memref.copy %[[B]], %[[OUT2]]
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<4096xi8>
//  CHECK-NEXT:   return
// ALIGN-LABEL: func @sequential
//       ALIGN:   memref.alloc() {alignment = 256 : i64} : memref<4096xi8>
func.func @sequential(%x: memref<1024xf32>, %y: memref<512xf64>, %out: memref<1024xf32>, %out2: memref<512xf64>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  linalg.exp ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
  memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %a : memref<1024xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<512xf64>
  linalg.exp ins(%y : memref<512xf64>) outs(%b : memref<512xf64>)
  memref.copy %b, %out2 : memref<512xf64> to memref<512xf64>
  memref.dealloc %b : memref<512xf64>
  return
}

// -----

// Buffers live at the same time get disjoint bytes: %t1 is still read when
// %t2 is written, so the pool holds both (2 x 256 bytes).

// CHECK-LABEL: func @overlapping
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//       CHECK:   %[[T1:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<512xi8> to memref<64xf32>
//       CHECK:   %[[T2:.*]] = memref.view %[[POOL]][%[[C256]]][] : memref<512xi8> to memref<64xf32>
//       CHECK:   linalg.add ins(%[[T1]], %[[T1]] : {{.*}}) outs(%[[T2]] : memref<64xf32>)
//       CHECK:   memref.dealloc %[[POOL]]
func.func @overlapping(%x: memref<64xf32>, %out: memref<64xf32>) {
  %t1 = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%t1 : memref<64xf32>)
  %t2 = memref.alloc() : memref<64xf32>
  linalg.add ins(%t1, %t1 : memref<64xf32>, memref<64xf32>) outs(%t2 : memref<64xf32>)
  memref.dealloc %t1 : memref<64xf32>
  linalg.negf ins(%t2 : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %t2 : memref<64xf32>
  return
}

// -----

// A chain of three stages: stage 3 reuses the bytes of stage 1 once stage 1
// is dead, so three 1 KiB buffers fit in a 2 KiB pool. Deallocs at the end of
// the block (no optimize-allocation-liveness) do not matter: a buffer is live
// until its last use.

// CHECK-LABEL: func @chain
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
//       CHECK:   %[[S1:.*]] = memref.view %[[POOL]][%[[OFF1:.*]]][] : memref<2048xi8> to memref<256xf32>
//       CHECK:   %[[S2:.*]] = memref.view %[[POOL]][%{{.*}}][] : memref<2048xi8> to memref<256xf32>
//       CHECK:   %[[S3:.*]] = memref.view %[[POOL]][%[[OFF1]]][] : memref<2048xi8> to memref<256xf32>
//       CHECK:   linalg.negf ins(%[[S3]] : memref<256xf32>) outs(%{{.*}} : memref<256xf32>)
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<2048xi8>
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @chain(%x: memref<256xf32>, %out: memref<256xf32>) {
  %s1 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%s1 : memref<256xf32>)
  %s2 = memref.alloc() : memref<256xf32>
  linalg.add ins(%s1, %x : memref<256xf32>, memref<256xf32>) outs(%s2 : memref<256xf32>)
  %s3 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%s2 : memref<256xf32>) outs(%s3 : memref<256xf32>)
  linalg.negf ins(%s3 : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %s1 : memref<256xf32>
  memref.dealloc %s2 : memref<256xf32>
  memref.dealloc %s3 : memref<256xf32>
  return
}

// -----

// Aliases keep their buffer live: %s1 is last read through a subview and a
// collapse_shape, after %s2 is written, so the two cannot share bytes.
// The pool ends at the last byte of its top buffer; offsets are aligned.

// CHECK-LABEL: func @aliases
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<72xi8>
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C64:.*]] = arith.constant 64 : index
//       CHECK:   memref.view %[[POOL]][%[[C0]]][] : memref<72xi8> to memref<4x4xf32>
//       CHECK:   memref.view %[[POOL]][%[[C64]]][] : memref<72xi8> to memref<2xf32>
//       CHECK:   memref.subview
//       CHECK:   memref.collapse_shape
//       CHECK:   memref.dealloc %[[POOL]]
// With 256-byte alignment the pool (264 bytes) would be larger than the two
// buffers on the heap (64 + 8 bytes, 128 with 64-byte blocks): no pool.
// ALIGN-LABEL: func @aliases
//   ALIGN-NOT:   memref.view
//       ALIGN:   return
func.func @aliases(%x: memref<4x4xf32>, %out: memref<2xf32>) {
  %s1 = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %s1 : memref<4x4xf32> to memref<4x4xf32>
  %s2 = memref.alloc() : memref<2xf32>
  %sub = memref.subview %s1[1, 0] [1, 2] [1, 1] : memref<4x4xf32> to memref<1x2xf32, strided<[4, 1], offset: 4>>
  %flat = memref.collapse_shape %sub [[0, 1]] : memref<1x2xf32, strided<[4, 1], offset: 4>> into memref<2xf32, strided<[1], offset: 4>>
  linalg.exp ins(%flat : memref<2xf32, strided<[1], offset: 4>>) outs(%s2 : memref<2xf32>)
  memref.copy %s2, %out : memref<2xf32> to memref<2xf32>
  memref.dealloc %s2 : memref<2xf32>
  memref.dealloc %s1 : memref<4x4xf32>
  return
}
