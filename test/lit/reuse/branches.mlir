// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>/dev/null | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse{remarks})' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// Branch groups: buffers yielded out of the exclusive branches of an scf.if
// into one result, which is freed once after the merge, are pooled as one
// buffer when they are as large as each other (one of them exists on every
// path, so a slot of that size holds no byte more than the branch taken
// needs). The members share an offset, live from the scf.if to the last use
// of the result, and the merged dealloc is removed.

// The shape buffer-deallocation-pipeline produces: the result has a dynamic
// strided layout and is freed through the base buffer of
// extract_strided_metadata. %tmp, which dies inside the then-branch, stays
// there: the branch is a pooling scope of its own (a pool outside it would
// hold its bytes on the else-path too).

// CHECK-LABEL: func @merged
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   %[[R:.*]] = scf.if
//       CHECK:     %[[TMP:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:     %[[A:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<256xi8> to memref<64xf32>
//       CHECK:     memref.dealloc %[[TMP]]
//       CHECK:     memref.cast %[[A]]
//       CHECK:   } else {
//       CHECK:     %[[B:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<256xi8> to memref<64xf32>
//       CHECK:     memref.cast %[[B]]
//       CHECK:   }
//       CHECK:   memref.copy %[[R]], %{{.*}}
//       CHECK:   memref.extract_strided_metadata %[[R]]
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<256xi8>
//  CHECK-NEXT:   return
func.func @merged(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  %r = scf.if %c -> (memref<64xf32, strided<[?], offset: ?>>) {
    %tmp = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%tmp : memref<64xf32>)
    %a = memref.alloc() : memref<64xf32>
    linalg.add ins(%tmp, %x : memref<64xf32>, memref<64xf32>) outs(%a : memref<64xf32>)
    memref.dealloc %tmp : memref<64xf32>
    %ca = memref.cast %a : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %ca : memref<64xf32, strided<[?], offset: ?>>
  } else {
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
    %cb = memref.cast %b : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %cb : memref<64xf32, strided<[?], offset: ?>>
  }
  memref.copy %r, %out : memref<64xf32, strided<[?], offset: ?>> to memref<64xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %r : memref<64xf32, strided<[?], offset: ?>> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  return
}

// -----

// Members of different shapes and the same byte size share one offset. The
// merged value is freed directly.

// CHECK-LABEL: func @sizes
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
//       CHECK:   memref.view %[[POOL]][%[[C0:.*]]][] : memref<256xi8> to memref<64xf32>
//       CHECK:   memref.view %[[POOL]][%[[C0]]][] : memref<256xi8> to memref<16x4xf32>
//       CHECK:   memref.dealloc %[[POOL]]
//   CHECK-NOT:   memref.dealloc
func.func @sizes(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  %r = scf.if %c -> (memref<64xf32>) {
    %a = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
    scf.yield %a : memref<64xf32>
  } else {
    %b = memref.alloc() : memref<16x4xf32>
    %e = memref.expand_shape %x [[0, 1]] output_shape [16, 4] : memref<64xf32> into memref<16x4xf32>
    linalg.negf ins(%e : memref<16x4xf32>) outs(%b : memref<16x4xf32>)
    %cb = memref.collapse_shape %b [[0, 1]] : memref<16x4xf32> into memref<64xf32>
    scf.yield %cb : memref<64xf32>
  }
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %r : memref<64xf32>
  return
}

// -----

// Members of different sizes: on the path of the smaller one, a slot of the
// larger size would hold more than upstream allocates there. No group: the
// branch buffers escape their blocks and stay as they are.

// CHECK-LABEL: func @unequal_sizes
//   CHECK-NOT:   memref.view
// REMARK: branches.mlir:[[# @LINE + 3]]:10: remark: not pooled: escapes-block
func.func @unequal_sizes(%c: i1, %x: memref<64xf32>, %out: memref<16xf32>) {
  %r = scf.if %c -> (memref<16xf32>) {
    %a = memref.alloc() : memref<16xf32>
    %s = memref.subview %x[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
    linalg.exp ins(%s : memref<16xf32, strided<[1]>>) outs(%a : memref<16xf32>)
    scf.yield %a : memref<16xf32>
  } else {
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
    %sb = memref.subview %b[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
    %cb = memref.cast %sb : memref<16xf32, strided<[1]>> to memref<16xf32>
    scf.yield %cb : memref<16xf32>
  }
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %r : memref<16xf32>
  return
}

// -----

// When a branch yields something that is not its own fresh allocation (here
// an argument), the merged value cannot simply be freed: the group is not
// formed and the branch allocation escapes its block.

// CHECK-LABEL: func @not_a_group
//   CHECK-NOT:   memref.view
// REMARK: branches.mlir:[[# @LINE + 3]]:10: remark: not pooled: escapes-block
func.func @not_a_group(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  %r = scf.if %c -> (memref<64xf32>) {
    %a = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
    scf.yield %a : memref<64xf32>
  } else {
    scf.yield %x : memref<64xf32>
  }
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  // REMARK: branches.mlir:[[# @LINE + 1]]:9: remark: not pooled: pooling it would not lower the heap peak
  %ok = memref.alloc() : memref<64xf32>
  memref.dealloc %ok : memref<64xf32>
  return
}

// -----

// A merged value that escapes (returned) keeps its branch buffers apart.

// CHECK-LABEL: func @merged_escapes
//   CHECK-NOT:   memref.view
// REMARK: branches.mlir:[[# @LINE + 3]]:10: remark: not pooled: escapes-return
func.func @merged_escapes(%c: i1, %x: memref<64xf32>) -> memref<64xf32> {
  %r = scf.if %c -> (memref<64xf32>) {
    %a = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
    scf.yield %a : memref<64xf32>
  } else {
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
    scf.yield %b : memref<64xf32>
  }
  return %r : memref<64xf32>
}

// -----

// Any region-branch op whose regions only return to it is a merge op, not
// only scf's: the buffers of affine.if's branches share one offset and the
// dealloc of the merged result goes away.

// CHECK-LABEL: func @affine_if_result
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
//       CHECK:   %[[R:.*]] = affine.if
//       CHECK:     %[[A:.*]] = memref.view %[[POOL]][%[[C0:.*]]][] : memref<256xi8> to memref<64xf32>
//       CHECK:     affine.yield %[[A]]
//       CHECK:   } else {
//       CHECK:     %[[B:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<256xi8> to memref<64xf32>
//       CHECK:     affine.yield %[[B]]
//       CHECK:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<256xi8>
//  CHECK-NEXT:   return
// REMARK: branches.mlir:[[# @LINE + 2]]:8: remark: pooled 2 allocations into 256 bytes
func.func @affine_if_result(%n: index, %x: memref<64xf32>, %out: memref<64xf32>) {
  %r = affine.if affine_set<(d0) : (d0 - 4 >= 0)>(%n) -> memref<64xf32> {
    %a = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
    affine.yield %a : memref<64xf32>
  } else {
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
    affine.yield %b : memref<64xf32>
  }
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %r : memref<64xf32>
  return
}
