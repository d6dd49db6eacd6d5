// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s

// Dynamic sizes: when every dynamic size is available where the pool is
// allocated (function arguments, or pure arithmetic on them that can be
// hoisted), the pool is memref<?xi8>: static buffers first, then each dynamic
// buffer in a bump layout at an offset computed with index arithmetic.

// %n comes straight from the arguments; the static buffer sits at offset 0 and
// the dynamic one after it, at align(256, 64) = 256. The pool holds 256 +
// align(4 * n, 64) bytes.

// CHECK-LABEL: func @dynamic_arg
//  CHECK-SAME:   (%[[N:.*]]: index, %[[OUT:.*]]: memref<?xf32>)
//       CHECK:   %[[C256:.*]] = arith.constant 256 : index
//       CHECK:   %[[C4:.*]] = arith.constant 4 : index
//       CHECK:   %[[BYTES:.*]] = arith.muli %[[N]], %[[C4]] : index
//       CHECK:   %[[C63:.*]] = arith.constant 63 : index
//       CHECK:   %[[BUMP:.*]] = arith.addi %[[BYTES]], %[[C63]] : index
//       CHECK:   %[[C64:.*]] = arith.constant 64 : index
//       CHECK:   %[[DIV:.*]] = arith.divui %[[BUMP]], %[[C64]] : index
//       CHECK:   %[[ALIGNED:.*]] = arith.muli %[[DIV]], %[[C64]] : index
//       CHECK:   %[[TOTAL:.*]] = arith.addi %[[C256]], %[[ALIGNED]] : index
//       CHECK:   %[[POOL:.*]] = memref.alloc(%[[TOTAL]]) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[S:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<64xf32>
//       CHECK:   %[[D:.*]] = memref.view %[[POOL]][%[[C256]]][%[[N]]] : memref<?xi8> to memref<?xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<?xi8>
//   CHECK-NOT:   memref.dealloc
func.func @dynamic_arg(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %s = memref.alloc() : memref<64xf32>
  linalg.fill ins(%cst : f32) outs(%s : memref<64xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  %head = memref.subview %s[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  linalg.exp ins(%head : memref<?xf32, strided<[1]>>) outs(%d : memref<?xf32>)
  %osub = memref.subview %out[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  linalg.negf ins(%d : memref<?xf32>) outs(%osub : memref<?xf32, strided<[1]>>)
  memref.dealloc %d : memref<?xf32>
  memref.dealloc %s : memref<64xf32>
  return
}

// -----

// The size %m = memref.dim of an argument is computed in the function body
// after other work; its pure backward slice (the memref.dim) is hoisted above
// the pool. Two dynamic buffers are bumped one after the other.

// CHECK-LABEL: func @dynamic_slice
//       CHECK:   %[[M:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
//       CHECK:   %[[POOL:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   memref.view %[[POOL]][%{{.*}}][%[[M]], %[[M]]] : memref<?xi8> to memref<?x?xf32>
//       CHECK:   memref.view %[[POOL]][%{{.*}}][%[[M]], %[[M]]] : memref<?xi8> to memref<?x?xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<?xi8>
func.func @dynamic_slice(%x: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%out : memref<?x?xf32>)
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %a = memref.alloc(%m, %m) : memref<?x?xf32>
  linalg.exp ins(%x : memref<?x?xf32>) outs(%a : memref<?x?xf32>)
  %b = memref.alloc(%m, %m) : memref<?x?xf32>
  linalg.add ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%b : memref<?x?xf32>)
  memref.dealloc %a : memref<?x?xf32>
  memref.copy %b, %out : memref<?x?xf32> to memref<?x?xf32>
  memref.dealloc %b : memref<?x?xf32>
  return
}

// -----

// A size that depends on the loop induction variable is not available before
// the loop: that buffer stays a plain allocation
// (dynamic-size-not-hoistable); the static one is alone in its pool scope and
// is left alone too.

// CHECK-LABEL: func @dynamic_in_loop
//   CHECK-NOT:   memref.view
//       CHECK:   scf.for %[[I:.*]] =
//       CHECK:     %[[D:.*]] = memref.alloc(%[[I]]) : memref<?xf32>
//       CHECK:     memref.dealloc %[[D]] : memref<?xf32>
func.func @dynamic_in_loop(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s = memref.alloc() : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%s : memref<16xf32>)
  memref.copy %s, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %s : memref<16xf32>
  scf.for %i = %c1 to %c16 step %c1 {
    %d = memref.alloc(%i) : memref<?xf32>
    %sub = memref.subview %x[0] [%i] [1] : memref<16xf32> to memref<?xf32, strided<[1]>>
    linalg.exp ins(%sub : memref<?xf32, strided<[1]>>) outs(%d : memref<?xf32>)
    %osub = memref.subview %out[0] [%i] [1] : memref<16xf32> to memref<?xf32, strided<[1]>>
    memref.copy %d, %osub : memref<?xf32> to memref<?xf32, strided<[1]>>
    memref.dealloc %d : memref<?xf32>
  }
  return
}

// -----

// A dynamic buffer inside a loop body whose size is a function argument is
// hoisted like a static one: its offset is computed once, at the pool.

// CHECK-LABEL: func @dynamic_loop_body
//  CHECK-SAME:   (%[[N:.*]]: index, %{{.*}}: memref<16xf32>, %{{.*}}: memref<?xf32>)
//       CHECK:   %[[POOL:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   scf.for
//       CHECK:     memref.view %[[POOL]][%{{.*}}][%[[N]]] : memref<?xi8> to memref<?xf32>
//       CHECK:     memref.view %[[POOL]][%{{.*}}][] : memref<?xi8> to memref<16xf32>
//   CHECK-NOT:     memref.dealloc
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<?xi8>
func.func @dynamic_loop_body(%n: index, %x: memref<16xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %d = memref.alloc(%n) : memref<?xf32>
    %head = memref.subview %x[0] [%n] [1] : memref<16xf32> to memref<?xf32, strided<[1]>>
    linalg.exp ins(%head : memref<?xf32, strided<[1]>>) outs(%d : memref<?xf32>)
    %s = memref.alloc() : memref<16xf32>
    linalg.negf ins(%x : memref<16xf32>) outs(%s : memref<16xf32>)
    %shead = memref.subview %s[0] [%n] [1] : memref<16xf32> to memref<?xf32, strided<[1]>>
    %osub = memref.subview %out[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
    linalg.add ins(%d, %shead : memref<?xf32>, memref<?xf32, strided<[1]>>) outs(%osub : memref<?xf32, strided<[1]>>)
    memref.dealloc %s : memref<16xf32>
    memref.dealloc %d : memref<?xf32>
  }
  return
}

// -----

// Dynamic buffers whose lives do not overlap share bytes when their sizes
// compare for every value (8 * n is never below 4 * n): one slot as large as
// the larger, max(A, B), where the bytes were A + B one after the other.
// CHECK-LABEL: func @disjoint_dynamic
//       CHECK:   %[[DIM:.*]] = memref.dim
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[C8:.*]] = arith.constant 8 : index
//       CHECK:   arith.muli %[[DIM]], %[[C8]] : index
//   CHECK-NOT:   arith.muli %[[DIM]]
//       CHECK:   %[[POOL:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[DIM]]] : memref<?xi8> to memref<?xf32>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[DIM]]] : memref<?xi8> to memref<?xf64>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[DIM]]] : memref<?xi8> to memref<?xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<?xi8>
func.func @disjoint_dynamic(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf64>
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%one : f64) outs(%b : memref<?xf64>)
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%two : f32) outs(%t : memref<?xf32>)
  memref.copy %t, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %t : memref<?xf32>
  memref.dealloc %b : memref<?xf64>
  return
}

// -----

// Sizes that do not compare (n and m) of buffers that never live together:
// both at offset 0 of a pool of max(align(4 * n), align(4 * m)) bytes,
// computed at run time, which the input reaches too (a bump layout would
// hold n + m, above the input: such buffers were left alone).
// CHECK-LABEL: func @incomparable_dynamic
//       CHECK:   %[[N:.*]] = memref.dim %arg0
//       CHECK:   %[[M:.*]] = memref.dim %arg1
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[AN:.*]] = arith.muli %[[N]], %[[C4:.*]] : index
//       CHECK:   %[[SN:.*]] = arith.muli %{{.*}}, %[[C64:.*]] : index
//       CHECK:   %[[AM:.*]] = arith.muli %[[M]], %[[C4]] : index
//       CHECK:   %[[SM:.*]] = arith.muli %{{.*}}, %[[C64]] : index
//       CHECK:   %[[SIZE:.*]] = arith.maxui %[[SN]], %[[SM]] : index
//       CHECK:   %[[POOL:.*]] = memref.alloc(%[[SIZE]]) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[N]]] : memref<?xi8> to memref<?xf32>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[M]]] : memref<?xi8> to memref<?xf32>
//   CHECK-NOT:   memref.alloc
func.func @incomparable_dynamic(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %out2: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %m = memref.dim %y, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  %b = memref.alloc(%m) : memref<?xf32>
  memref.copy %y, %b : memref<?xf32> to memref<?xf32>
  memref.copy %b, %out2 : memref<?xf32> to memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

// A 100-byte static buffer (25 x f32, not a multiple of the alignment)
// beside a dynamically sized one, both live: the dynamic one starts at 128,
// the static size rounded up to the alignment, never below 100 (rounded
// down, 64, the fill of %d would overwrite the end of %s before it is read).
// CHECK-LABEL: func @unaligned_static_beside_dynamic
//  CHECK-SAME:   (%[[N:.*]]: index,
//       CHECK:   %[[C128:.*]] = arith.constant 128 : index
//       CHECK:   %[[SIZE:.*]] = arith.addi %[[C128]], %{{.*}} : index
//       CHECK:   %[[POOL:.*]] = memref.alloc(%[[SIZE]]) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   memref.view %[[POOL]][%[[C0]]][] : memref<?xi8> to memref<25xf32>
//       CHECK:   memref.view %[[POOL]][%[[C128]]][%[[N]]] : memref<?xi8> to memref<?xf32>
func.func @unaligned_static_beside_dynamic(%n: index, %x: memref<25xf32>, %out: memref<?xf32>) {
  %s = memref.alloc() : memref<25xf32>
  linalg.exp ins(%x : memref<25xf32>) outs(%s : memref<25xf32>)
  %d = memref.alloc(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%d : memref<?xf32>)
  memref.copy %d, %out : memref<?xf32> to memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  memref.copy %s, %x : memref<25xf32> to memref<25xf32>
  memref.dealloc %s : memref<25xf32>
  return
}

// -----

// A pool with two layouts, the smaller chosen at run time. Four buffers in a
// chain of lifetimes: %big (4096 bytes) meets %r (64 * n), then %t (256),
// which meets %w (128 * n); the input's heap peaks at max(4096 + 64 * n,
// 4352, 128 * n + 256). The packing at the largest sample size, always kept
// (it bounds the pool past the sizes the check scans), puts %r and %w at 0,
// %big on %r and %t on both: max(64 * n + 4096, 128 * n) + 256 bytes, above
// the input for 1 <= n < 64. A packing at a small size, %big and %w at 0, %r
// on %big and %t on both, is within it: the pool takes the second layout's
// bytes where they are fewer (cmpi ult), else the first's, and each view's
// offset comes from the same condition.
// CHECK-LABEL: func @two_layouts
//       CHECK:   %[[N:.*]] = memref.dim %arg0
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[C4096:.*]] = arith.constant 4096 : index
//       CHECK:   %[[C128:.*]] = arith.constant 128 : index
//       CHECK:   %[[W:.*]] = arith.muli %[[N]], %[[C128]] : index
//       CHECK:   %[[T1:.*]] = arith.maxui %[[W]], %[[C4096]] : index
//       CHECK:   %[[C64:.*]] = arith.constant 64 : index
//       CHECK:   %[[R:.*]] = arith.muli %[[N]], %[[C64]] : index
//       CHECK:   %[[RTOP1:.*]] = arith.addi %[[C4096]], %[[R]] : index
//       CHECK:   %[[C256:.*]] = arith.constant 256 : index
//       CHECK:   %[[TTOP1:.*]] = arith.addi %[[T1]], %[[C256]] : index
//       CHECK:   %[[SIZE1:.*]] = arith.maxui %[[RTOP1]], %[[TTOP1]] : index
//       CHECK:   %[[BIGTOP2:.*]] = arith.addi %[[R]], %[[C4096]] : index
//       CHECK:   %[[T2:.*]] = arith.maxui %[[W]], %[[BIGTOP2]] : index
//       CHECK:   %[[SIZE2:.*]] = arith.addi %[[T2]], %[[C256]] : index
//       CHECK:   %[[FEWER:.*]] = arith.cmpi ult, %[[SIZE2]], %[[SIZE1]] : index
//       CHECK:   %[[SIZE:.*]] = arith.select %[[FEWER]], %[[SIZE2]], %[[SIZE1]] : index
//       CHECK:   %[[ROFF:.*]] = arith.select %[[FEWER]], %[[C0]], %[[C4096]] : index
//       CHECK:   %[[BIGOFF:.*]] = arith.select %[[FEWER]], %[[R]], %[[C0]] : index
//       CHECK:   %[[TOFF:.*]] = arith.select %[[FEWER]], %[[T2]], %[[T1]] : index
//       CHECK:   %[[POOL:.*]] = memref.alloc(%[[SIZE]]) {alignment = 64 : i64} : memref<?xi8>
//       CHECK:   memref.view %[[POOL]][%[[BIGOFF]]][] : memref<?xi8> to memref<1024xf32>
//       CHECK:   memref.view %[[POOL]][%[[ROFF]]][%[[N]]] : memref<?xi8> to memref<?x16xf32>
//       CHECK:   memref.view %[[POOL]][%[[TOFF]]][] : memref<?xi8> to memref<64xf32>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][%[[N]]] : memref<?xi8> to memref<?x32xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<?xi8>
//   CHECK-NOT:   memref.alloc
func.func @two_layouts(%x: memref<?xf32>, %o1: memref<1024xf32>, %o2: memref<?x16xf32>, %o3: memref<?x32xf32>, %o4: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %four = arith.constant 4.0 : f32
  %big = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%one : f32) outs(%big : memref<1024xf32>)
  %r = memref.alloc(%n) : memref<?x16xf32>
  linalg.fill ins(%two : f32) outs(%r : memref<?x16xf32>)
  memref.copy %r, %o2 : memref<?x16xf32> to memref<?x16xf32>
  memref.dealloc %r : memref<?x16xf32>
  %t = memref.alloc() : memref<64xf32>
  linalg.fill ins(%three : f32) outs(%t : memref<64xf32>)
  memref.copy %big, %o1 : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %big : memref<1024xf32>
  %w = memref.alloc(%n) : memref<?x32xf32>
  linalg.fill ins(%four : f32) outs(%w : memref<?x32xf32>)
  memref.copy %w, %o3 : memref<?x32xf32> to memref<?x32xf32>
  memref.dealloc %w : memref<?x32xf32>
  memref.copy %t, %o4 : memref<64xf32> to memref<64xf32>
  memref.dealloc %t : memref<64xf32>
  return
}
