// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-reuse)' | FileCheck %s

// Buffers in regions: program points are numbered in pre-order, so a use
// inside a region keeps a buffer live across the whole region op, and the two
// branches of an scf.if get disjoint intervals. An allocation nested in a
// sequential region op is hoisted into the enclosing pool only when its region
// runs on every execution of the op (RegionBranchOpInterface's invocation
// bounds: an scf.for with constant bounds and at least one iteration): a pool
// outside a region that may not run would hold its bytes on paths that never
// allocate them, and raise the heap there. Such a region (an scf.if branch, a
// loop of unknown trip count) is a pooling scope of its own.

// The two branches of an scf.if: each is its own scope, with one buffer:
// nothing to pool, and a pool before the scf.if would hold 256 bytes where
// the else-branch needs 64.

// CHECK-LABEL: func @branches
//   CHECK-NOT:   memref.view
//       CHECK:   scf.if
//       CHECK:     %[[T:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:     memref.dealloc %[[T]]
//       CHECK:   } else {
//       CHECK:     %[[E:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:     memref.dealloc %[[E]]
//       CHECK:   }
func.func @branches(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  scf.if %c {
    %then = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%then : memref<64xf32>)
    memref.copy %then, %out : memref<64xf32> to memref<64xf32>
    memref.dealloc %then : memref<64xf32>
  } else {
    %else = memref.alloc() : memref<16xf32>
    %sub = memref.subview %x[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
    linalg.exp ins(%sub : memref<16xf32, strided<[1]>>) outs(%else : memref<16xf32>)
    %osub = memref.subview %out[0] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1]>>
    memref.copy %else, %osub : memref<16xf32> to memref<16xf32, strided<[1]>>
    memref.dealloc %else : memref<16xf32>
  }
  return
}

// -----

// Two buffers of one branch share a pool in that branch.

// CHECK-LABEL: func @pool_in_branch
//       CHECK:   scf.if
//       CHECK:     %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xi8>
//       CHECK:     memref.view %[[POOL]]
//       CHECK:     memref.view %[[POOL]]
//       CHECK:     memref.dealloc %[[POOL]] : memref<256xi8>
//       CHECK:   }
//  CHECK-NEXT:   return
func.func @pool_in_branch(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>) {
  scf.if %c {
    %a = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
    memref.copy %a, %out : memref<64xf32> to memref<64xf32>
    memref.dealloc %a : memref<64xf32>
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%out : memref<64xf32>) outs(%b : memref<64xf32>)
    memref.copy %b, %out : memref<64xf32> to memref<64xf32>
    memref.dealloc %b : memref<64xf32>
  }
  return
}

// -----

// A buffer allocated and freed in the body of a loop that runs at least once
// lives within one iteration: it is hoisted into the function pool. %acc,
// defined before the loop and used inside it, is live across the whole loop,
// so the two get disjoint bytes; %late, used after the loop, reuses the body
// buffer's bytes.

// CHECK-LABEL: func @loop_body
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//       CHECK:   %[[ACC:.*]] = memref.view %[[POOL]][%[[C0]]][] : memref<512xi8> to memref<64xf32>
//       CHECK:   scf.for
//       CHECK:     %[[TMP:.*]] = memref.view %[[POOL]][%[[C256]]][] : memref<512xi8> to memref<64xf32>
//       CHECK:     linalg.add ins(%[[TMP]], %[[ACC]] : {{.*}}) outs(%[[ACC]] : memref<64xf32>)
//   CHECK-NOT:     memref.dealloc
//       CHECK:   }
//       CHECK:   %[[LATE:.*]] = memref.view %[[POOL]][%[[C256]]][] : memref<512xi8> to memref<64xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<512xi8>
//  CHECK-NEXT:   return
func.func @loop_body(%x: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %acc = memref.alloc() : memref<64xf32>
  memref.copy %x, %acc : memref<64xf32> to memref<64xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    %tmp = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%tmp : memref<64xf32>)
    linalg.add ins(%tmp, %acc : memref<64xf32>, memref<64xf32>) outs(%acc : memref<64xf32>)
    memref.dealloc %tmp : memref<64xf32>
  }
  %late = memref.alloc() : memref<64xf32>
  linalg.negf ins(%acc : memref<64xf32>) outs(%late : memref<64xf32>)
  memref.dealloc %acc : memref<64xf32>
  memref.copy %late, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %late : memref<64xf32>
  return
}

// -----

// The same loop with an unknown trip count may not run at all: its body is a
// scope of its own, and its buffer stays in it.

// CHECK-LABEL: func @loop_of_unknown_trip_count
//   CHECK-NOT:   memref.view
//       CHECK:   scf.for
//       CHECK:     %[[TMP:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:     memref.dealloc %[[TMP]]
//       CHECK:   }
func.func @loop_of_unknown_trip_count(%x: memref<64xf32>, %n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloc() : memref<64xf32>
  memref.copy %x, %acc : memref<64xf32> to memref<64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %tmp = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%tmp : memref<64xf32>)
    linalg.add ins(%tmp, %acc : memref<64xf32>, memref<64xf32>) outs(%acc : memref<64xf32>)
    memref.dealloc %tmp : memref<64xf32>
  }
  memref.copy %acc, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %acc : memref<64xf32>
  return
}

// -----

// A buffer carried through scf.for iter_args stays live through the loop and
// its results; a buffer in the body that is not carried reuses nothing that
// the loop still needs (the loop runs at least once).

// CHECK-LABEL: func @iter_args
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<80xi8>
//       CHECK:   %[[BUF:.*]] = memref.view %[[POOL]]
//       CHECK:   %[[R:.*]] = scf.for {{.*}} iter_args(%[[ITER:.*]] = %[[BUF]]) -> (memref<4xf32>)
//       CHECK:     %[[T:.*]] = memref.view %[[POOL]]
//       CHECK:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[POOL]] : memref<80xi8>
func.func @iter_args(%x: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = memref.alloc() : memref<4xf32>
  memref.copy %x, %buf : memref<4xf32> to memref<4xf32>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%it = %buf) -> (memref<4xf32>) {
    %t = memref.alloc() : memref<4xf32>
    linalg.exp ins(%it : memref<4xf32>) outs(%t : memref<4xf32>)
    linalg.add ins(%t, %it : memref<4xf32>, memref<4xf32>) outs(%it : memref<4xf32>)
    memref.dealloc %t : memref<4xf32>
    scf.yield %it : memref<4xf32>
  }
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %buf : memref<4xf32>
  return
}

// -----

// Each iteration of an scf.parallel body may run at the same time as others:
// buffers inside get a pool of their own, allocated and freed in the body.

// CHECK-LABEL: func @parallel_body
//       CHECK:   scf.parallel
//       CHECK:     %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<80xi8>
//       CHECK:     memref.view %[[POOL]]
//       CHECK:     memref.view %[[POOL]]
//       CHECK:     memref.dealloc %[[POOL]] : memref<80xi8>
//       CHECK:     scf.reduce
func.func @parallel_body(%x: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %row = memref.subview %x[%i, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    %orow = memref.subview %out[%i, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%row : memref<4xf32, strided<[1], offset: ?>>) outs(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
    memref.copy %b, %orow : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
    memref.dealloc %b : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// scf.while: its "after" region may not run (and the interface gives no
// bound for the "before" region either): each region is a scope of its own,
// with one buffer, and nothing is pooled.

// CHECK-LABEL: func @while_regions
//   CHECK-NOT:   memref.view
//       CHECK:   scf.while
//       CHECK:     memref.alloc() : memref<4xf32>
//       CHECK:     scf.condition
//       CHECK:   } do {
//       CHECK:     memref.alloc() : memref<4xf32>
//       CHECK:     scf.yield
func.func @while_regions(%x: memref<4xf32>, %n: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    memref.copy %a, %out : memref<4xf32> to memref<4xf32>
    memref.dealloc %a : memref<4xf32>
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    %b = memref.alloc() : memref<4xf32>
    linalg.negf ins(%out : memref<4xf32>) outs(%b : memref<4xf32>)
    memref.copy %b, %out : memref<4xf32> to memref<4xf32>
    memref.dealloc %b : memref<4xf32>
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  return
}
