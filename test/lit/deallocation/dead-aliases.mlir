// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation{drop-dead-values})' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation{drop-dead-values},memplan-verify-deallocation)' -verify-diagnostics -o /dev/null

// memplan-buffer-deallocation{drop-dead-values} (as memplan-memory-pipeline
// runs it) first drops the buffer values no path reads:
// unused memref results of region ops (with what their terminators give
// them) and ops without memory effects whose memref results are unused. A
// dead alias would hold its buffer to the end of the region op that yields
// it, above upstream's run-time peak on the paths through that op (upstream
// drops them when it canonicalizes after its deallocation).

// The unused result of the scf.if goes: %a is freed in its branch right
// after its last use, before %b is allocated, not after the scf.if under a
// flag.

// CHECK-LABEL: func @dead_region_result
//   CHECK-NOT:   scf.if {{.*}} ->
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.store %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:   return
func.func @dead_region_result(%c: i1, %x: memref<8xf32>, %v: f32, %i: index) {
  %r = scf.if %c -> (memref<8xf32>) {
    scf.yield %x : memref<8xf32>
  } else {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.yield %a : memref<8xf32>
  }
  return
}

// -----

// A select of %a inside a branch whose result nobody reads: the select and
// the scf.if go, and %a is freed right after the fill, before %b.

// CHECK-LABEL: func @dead_select_in_branch
//   CHECK-NOT:   arith.select
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<8xf32>)
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//   CHECK-NOT:   scf.if
//       CHECK:   return
func.func @dead_select_in_branch(%c: i1, %x: memref<8xf32>, %v: f32, %i: index) -> f32 {
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%v : f32) outs(%a : memref<8xf32>)
  %r = scf.if %c -> (memref<8xf32>) {
    scf.yield %x : memref<8xf32>
  } else {
    %s = arith.select %c, %a, %x : memref<8xf32>
    scf.yield %s : memref<8xf32>
  }
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %l = memref.load %b[%i] : memref<8xf32>
  return %l : f32
}

// -----

// A used result stays, with what its branches yield; only the unused one
// goes. %a, yielded to the unused result, is freed in its branch.

// CHECK-LABEL: func @used_result_kept
//       CHECK:   %[[R:.*]] = scf.if %{{.*}} -> (memref<8xf32>) {
//       CHECK:     scf.yield %{{.*}} : memref<8xf32>
//       CHECK:   } else {
//       CHECK:     %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     memref.store %{{.*}}, %[[A]]
//  CHECK-NEXT:     memref.dealloc %[[A]] : memref<8xf32>
//       CHECK:     scf.yield %{{.*}} : memref<8xf32>
//       CHECK:   memref.load %[[R]]
func.func @used_result_kept(%c: i1, %x: memref<8xf32>, %y: memref<8xf32>, %v: f32, %i: index) -> f32 {
  %r:2 = scf.if %c -> (memref<8xf32>, memref<8xf32>) {
    scf.yield %x, %x : memref<8xf32>, memref<8xf32>
  } else {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    memref.store %v, %a[%i] : memref<8xf32>
    scf.yield %y, %a : memref<8xf32>, memref<8xf32>
  }
  %l = memref.load %r#0[%i] : memref<8xf32>
  return %l : f32
}

// -----

// A loop passes %a through (casts back and forth) and nobody reads its
// result, nor the dead load: the loop's own canonicalization patterns drop
// what it carries, and %a is freed right after its copy, before %b, not
// after the loop.

// CHECK-LABEL: func @loop_carries_for_nothing
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.copy %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//   CHECK-NOT:   iter_args
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
func.func @loop_carries_for_nothing(%x: memref<8xf32>, %n: index, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%it = %a) -> (memref<8xf32>) {
    %c = memref.cast %it : memref<8xf32> to memref<?xf32>
    %d = memref.cast %c : memref<?xf32> to memref<8xf32>
    scf.yield %d : memref<8xf32>
  }
  %dead = memref.load %a[%i] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %l = memref.load %b[%i] : memref<8xf32>
  return %l : f32
}

// -----

// An scf.if nested in the else branch of an scf.if on the same condition
// never runs: the ops' own canonicalization patterns that decide a region
// (the condition is false there, the nested op goes) remove it before frees
// are placed. Kept, its write to %a would hold %a across the allocation of
// %b, above upstream's run-time peak (its canonicalization after
// deallocation removes the nested op too).

// CHECK-LABEL: func @decided_branch
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.load %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   scf.if
//   CHECK-NOT:     linalg.fill
//       CHECK:   memref.load %[[B]]
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<8xf32>
func.func @decided_branch(%c: i1, %x: memref<8xf32>, %i: index) -> f32 {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%v : f32) outs(%b : memref<8xf32>)
  scf.if %c {
    memref.store %cst, %x[%i] : memref<8xf32>
  } else {
    scf.if %c {
      linalg.fill ins(%cst : f32) outs(%a : memref<8xf32>)
    }
  }
  %w = memref.load %b[%i] : memref<8xf32>
  return %w : f32
}

// -----

// Any branching region op whose operands decide where it goes is replaced by
// what it runs (RegionBranchOpInterface): an `scf.index_switch` on a constant
// runs its default region only, so the write to %a in another case goes and
// %a is freed after its last read, before %b.

// CHECK-LABEL: func @decided_switch
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.load %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//   CHECK-NOT:   scf.index_switch
//       CHECK:   memref.store
//       CHECK:   memref.load %[[B]]
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<8xf32>
func.func @decided_switch(%x: memref<8xf32>, %i: index) -> f32 {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%v : f32) outs(%b : memref<8xf32>)
  scf.index_switch %c1
  case 0 {
    linalg.fill ins(%cst : f32) outs(%a : memref<8xf32>)
    scf.yield
  }
  default {
    memref.store %cst, %x[%i] : memref<8xf32>
  }
  %w = memref.load %b[%i] : memref<8xf32>
  return %w : f32
}

// -----

// A block argument nothing uses goes, with what the branches pass it: %a,
// which one branch passed it, is freed right after its last read, before
// %b, not at the start of the join block.

// CHECK-LABEL: func @unused_block_argument
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.load %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   cf.cond_br %{{.*}}, ^bb1, ^bb2
//       CHECK: ^bb3:
//   CHECK-NOT:   memref.dealloc %[[A]] :
//       CHECK:   return
func.func @unused_block_argument(%c: i1, %x: memref<8xf32>, %i: index) -> f32 {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%v : f32) outs(%b : memref<8xf32>)
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : memref<8xf32>)
^bb2:
  cf.br ^bb3(%x : memref<8xf32>)
^bb3(%m: memref<8xf32>):
  %w = memref.load %b[%i] : memref<8xf32>
  return %w : f32
}

// -----

// Two views spelled alike are one value, and a copy of a view onto itself
// goes (the copy's own canonicalization): %a is freed right after its last
// read, before %b, instead of being held by a copy that changes nothing.

// CHECK-LABEL: func @self_copy
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.load %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @self_copy(%x: memref<8xf32>, %i: index) -> f32 {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %v = memref.load %a[%i] : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %s1 = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %s2 = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  memref.copy %s1, %s2 : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
  linalg.fill ins(%v : f32) outs(%b : memref<8xf32>)
  %w = memref.load %b[%i] : memref<8xf32>
  return %w : f32
}
