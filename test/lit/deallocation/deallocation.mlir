// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation)' | FileCheck %s
// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-deallocation,memplan-verify-deallocation)' -verify-diagnostics -o /dev/null

// memplan-buffer-deallocation decides who frees every buffer from its
// ownership analysis: statically where the paths agree, with an i1 flag
// where they do not; each owned buffer is freed right after the last use of
// any value that may point into it. Upstream's buffer-deallocation-pipeline
// runs only for functions memplan leaves: here, none. Every output is
// proven by memplan-verify-deallocation (the second RUN line).

// %a is last used through a view inside the loop: its dealloc goes right
// after the loop. %b dies when it is copied into %a. The returned %r needs
// no dealloc (the caller owns it).

// CHECK-LABEL: func @freed_after_last_use
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<64xf32>
//       CHECK:   memref.copy %[[B]], %[[A]]
//  CHECK-NEXT:   memref.dealloc %[[B]] : memref<64xf32>
//       CHECK:   scf.for
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<64xf32>
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @freed_after_last_use(%x: memref<64xf32>, %n: index) -> memref<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %x, %b : memref<64xf32> to memref<64xf32>
  memref.copy %b, %a : memref<64xf32> to memref<64xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %r = memref.alloc() : memref<8x8xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %v, %r : memref<8x8xf32> to memref<8x8xf32>
  }
  return %r : memref<8x8xf32>
}

// -----

// A buffer passed to a call is freed after the call; the call's result is
// the caller's (upstream's function boundary ABI), freed after its last use.
// No attribute marks anything: nothing is left to upstream.

// CHECK-LABEL: func @calls
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   %[[R:.*]] = call @callee(%[[A]])
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<16xf32>
//  CHECK-NEXT:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[R]] : memref<16xf32>
//  CHECK-NEXT:   return
//   CHECK-NOT:   manual_deallocation
func.func private @callee(memref<16xf32>) -> memref<16xf32>
func.func @calls(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %r = func.call @callee(%a) : (memref<16xf32>) -> memref<16xf32>
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Returns: a buffer the function owns is returned as is; an argument, and
// one buffer returned a second time (through a view), are copied: the
// caller owns (and frees) every returned memref.

// CHECK-LABEL: func @returns
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[E:.*]] = memref.expand_shape %[[A]]
//       CHECK:   %[[X:.*]] = bufferization.clone %arg0
//       CHECK:   %[[EC:.*]] = bufferization.clone %[[E]]
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return %[[A]], %[[X]], %[[EC]]
func.func @returns(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<2x4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  return %a, %x, %e : memref<8xf32>, memref<8xf32>, memref<2x4xf32>
}

// -----

// A value returned at two positions (in every return; or a cast of it) is
// one buffer there: one the function owns is returned as is at both
// (upstream's output too), one it does not own is copied once; the caller
// frees the call's two results once (the second is the first under another
// name).

// CHECK-LABEL: func @returns_twice
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//   CHECK-NOT:   bufferization.clone
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return %[[A]], %[[A]] :
// CHECK-LABEL: func @returns_argument_twice
//       CHECK:   %[[X:.*]] = bufferization.clone %arg0
//   CHECK-NOT:   bufferization.clone
//       CHECK:   return %[[X]], %[[X]] :
// CHECK-LABEL: func @returns_cast_twice
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[C:.*]] = memref.cast %[[A]]
//   CHECK-NOT:   bufferization.clone
//       CHECK:   return %[[A]], %[[C]] :
// CHECK-LABEL: func @returns_argument_and_cast
//       CHECK:   %[[X:.*]] = bufferization.clone %arg0
//  CHECK-NEXT:   %[[XC:.*]] = memref.cast %[[X]] : memref<8xf32> to memref<?xf32>
//  CHECK-NEXT:   return %[[X]], %[[XC]] :
// CHECK-LABEL: func @caller_of_twice
//       CHECK:   %[[R:.*]]:2 = call @returns_twice(%arg0)
//       CHECK:   memref.copy %[[R]]#1, %arg1
//  CHECK-NEXT:   memref.dealloc %[[R]]#0 : memref<8xf32>
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @returns_twice(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  return %a, %a : memref<8xf32>, memref<8xf32>
}
func.func @returns_argument_twice(%x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  return %x, %x : memref<8xf32>, memref<8xf32>
}
func.func @returns_cast_twice(%x: memref<8xf32>) -> (memref<8xf32>, memref<?xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %c = memref.cast %a : memref<8xf32> to memref<?xf32>
  return %a, %c : memref<8xf32>, memref<?xf32>
}
func.func @returns_argument_and_cast(%x: memref<8xf32>) -> (memref<8xf32>, memref<?xf32>) {
  %c = memref.cast %x : memref<8xf32> to memref<?xf32>
  return %x, %c : memref<8xf32>, memref<?xf32>
}
func.func @caller_of_twice(%x: memref<8xf32>, %out: memref<8xf32>) {
  %r:2 = func.call @returns_twice(%x) : (memref<8xf32>) -> (memref<8xf32>, memref<8xf32>)
  memref.copy %r#0, %out : memref<8xf32> to memref<8xf32>
  memref.copy %r#1, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// An scf.if whose branches yield a call's result and a cast back of it
// always holds that result: returned next to it, it is the same buffer at
// both positions, not a copy (upstream's pipeline canonicalizes the scf.if
// away and returns it twice too).

// CHECK-LABEL: func @merge_through_casts
//       CHECK:   %[[R:.*]] = call @make()
//   CHECK-NOT:   bufferization.clone
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return %[[R]], %[[R]] :
func.func private @make() -> memref<8xf32>
func.func @merge_through_casts(%c: i1) -> (memref<8xf32>, memref<8xf32>) {
  %r = func.call @make() : () -> memref<8xf32>
  %s = scf.if %c -> (memref<8xf32>) {
    scf.yield %r : memref<8xf32>
  } else {
    %d = memref.cast %r : memref<8xf32> to memref<?xf32>
    %e = memref.cast %d : memref<?xf32> to memref<8xf32>
    scf.yield %e : memref<8xf32>
  }
  return %s, %r : memref<8xf32>, memref<8xf32>
}

// -----

// A free the input has already (of an allocation of the same block) is
// kept; memplan frees the rest.

// CHECK-LABEL: func @freed_already
//       CHECK:   %[[T:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   memref.dealloc %[[T]] : memref<16xf32>
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   call @use(%[[P]])
//  CHECK-NEXT:   memref.dealloc %[[P]] : memref<16xf32>
//  CHECK-NEXT:   return
func.func private @use(memref<16xf32>)
func.func @freed_already(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  %p = memref.alloc() : memref<16xf32>
  func.call @use(%p) : (memref<16xf32>) -> ()
  return
}

// -----

// Both branches of an scf.if yield a buffer of their own: the merged value
// is owned on every path and freed once after its last use, with no flag.

// CHECK-LABEL: func @branches_agree
//       CHECK:   %[[R:.*]] = scf.if %{{.*}} -> (memref<8xf32>) {
//   CHECK-NOT:     memref.dealloc
//       CHECK:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[R]] : memref<8xf32>
//  CHECK-NEXT:   return
func.func @branches_agree(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// One branch yields a fresh buffer, the other the argument: the paths
// disagree, so the scf.if carries an i1 flag and the free waits on it.

// CHECK-LABEL: func @branches_disagree
//       CHECK:   %[[R:.*]]:2 = scf.if %{{.*}} -> (memref<8xf32>, i1) {
//       CHECK:     %[[TRUE:.*]] = arith.constant true
//       CHECK:     scf.yield %{{.*}}, %[[TRUE]] : memref<8xf32>, i1
//       CHECK:   } else {
//       CHECK:     %[[FALSE:.*]] = arith.constant false
//       CHECK:     scf.yield %arg1, %[[FALSE]] : memref<8xf32>, i1
//       CHECK:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
func.func @branches_disagree(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A loop whose body allocates what it yields: the iteration argument is
// the argument on the first trip and a buffer of the loop after (zero trips:
// the result is the argument), so it and the result carry a flag; each trip
// frees the buffer of the trip before.

// CHECK-LABEL: func @loop_allocates
//       CHECK:   %[[FALSE:.*]] = arith.constant false
//       CHECK:   %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[IT:.*]] = %arg0, %[[OWN:.*]] = %[[FALSE]]) -> (memref<8xf32>, i1) {
//       CHECK:     %[[TRUE:.*]] = arith.constant true
//       CHECK:     %[[Y:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     linalg.add
//  CHECK-NEXT:     scf.if %[[OWN]] {
//  CHECK-NEXT:       memref.dealloc %[[IT]] : memref<8xf32>
//       CHECK:     scf.yield %[[Y]], %[[TRUE]] : memref<8xf32>, i1
//       CHECK:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
func.func @loop_allocates(%x: memref<8xf32>, %n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %x) -> memref<8xf32> {
    %y = memref.alloc() : memref<8xf32>
    linalg.add ins(%it, %x : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
    scf.yield %y : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A loop that works in place on a buffer of the function: the result is
// that buffer and owns nothing; the buffer is freed once, after the
// result's last use.

// CHECK-LABEL: func @loop_in_place
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[R:.*]] = scf.for {{.*}} -> (memref<8xf32>) {
//   CHECK-NOT:     memref.dealloc
//       CHECK:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   return
func.func @loop_in_place(%x: memref<8xf32>, %n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> memref<8xf32> {
    linalg.add ins(%it, %x : memref<8xf32>, memref<8xf32>) outs(%it : memref<8xf32>)
    scf.yield %it : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// scf.while: the after region frees the buffer of the trip before (under
// the flag: on the first trip it is the function's), the buffer the loop
// leaves with is freed under its flag, the function's after the loop.

// CHECK-LABEL: func @while_loop
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[R:.*]]:3 = scf.while (%{{.*}} = %[[A]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (memref<8xf32>, index, i1) -> (memref<8xf32>, index, i1) {
//       CHECK:     scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} : memref<8xf32>, index, i1
//       CHECK:   ^bb0(%[[B:.*]]: memref<8xf32>, %{{.*}}: index, %[[OWN:.*]]: i1):
//       CHECK:     scf.if %[[OWN]] {
//  CHECK-NEXT:       memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   scf.if %[[R]]#2 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
func.func @while_loop(%x: memref<8xf32>, %n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r:2 = scf.while (%buf = %a, %i = %c0) : (memref<8xf32>, index) -> (memref<8xf32>, index) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %buf, %i : memref<8xf32>, index
  } do {
  ^bb0(%b: memref<8xf32>, %j: index):
    %next = memref.alloc() : memref<8xf32>
    linalg.add ins(%b, %x : memref<8xf32>, memref<8xf32>) outs(%next : memref<8xf32>)
    %k = arith.addi %j, %c1 : index
    scf.yield %next, %k : memref<8xf32>, index
  }
  memref.copy %r#0, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Branches: a buffer used on one path only is freed after that use there,
// and at the start of the other successor (only this edge reaches it).

// CHECK-LABEL: func @branch_dies_on_one_edge
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   cf.cond_br %{{.*}}, ^[[BB1:.*]], ^[[BB2:.*]]
//       CHECK: ^[[BB1]]:
//  CHECK-NEXT:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//       CHECK: ^[[BB2]]:
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
func.func @branch_dies_on_one_edge(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  return
}

// -----

// A buffer dead on an edge into a block other edges reach too: the edge
// gets a block of its own for the free.

// CHECK-LABEL: func @split_edge
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   cf.cond_br %{{.*}}, ^[[BB1:.*]], ^[[SPLIT:.*]]
//       CHECK: ^[[BB1]]:
//  CHECK-NEXT:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   cf.br ^[[BB2:.*]]
//       CHECK: ^[[SPLIT]]:
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   cf.br ^[[BB2]]
//       CHECK: ^[[BB2]]:
//  CHECK-NEXT:   return
func.func @split_edge(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb2
^bb2:
  return
}

// -----

// A buffer an scf.if may yield (without handing it over), forwarded by a
// branch to a block argument nothing uses: the branch does not keep it
// alive, it is freed after its last real use, before the branch. (It was
// left to upstream's deallocation, which crashes on the scf.if's result
// live across the branch.)

// CHECK-LABEL: func @forwarded_to_unused_argument
//       CHECK: ^bb2:
//  CHECK-NEXT:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[R:.*]] = scf.if
//       CHECK:   memref.copy %[[R]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   cf.br ^bb3(%[[R]] : memref<8xf32>)
//       CHECK: ^bb3(%{{.*}}: memref<8xf32>):
//  CHECK-NEXT:   return
func.func @forwarded_to_unused_argument(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%x : memref<8xf32>)
^bb2:
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    scf.yield %a : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb3(%r : memref<8xf32>)
^bb3(%m: memref<8xf32>):
  return
}

// -----

// A select of two buffers its block owns, forwarded by a branch, takes them
// over: the one it did not select is freed right after it (aligned pointers
// compared at run time), and the merge owns what both edges bring. (The
// merge may point into %a on a path that did not allocate it: it was left
// to upstream's deallocation, which aborts on it.)

// CHECK-LABEL: func @owning_select
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
//  CHECK-NEXT:   %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//  CHECK-NEXT:   %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:   %[[NA:.*]] = arith.cmpi ne, %[[PA]], %[[PS]]
//  CHECK-NEXT:   scf.if %[[NA]] {
//  CHECK-NEXT:     memref.dealloc %[[A]] : memref<8xf32>
//       CHECK:   scf.if %{{.*}} {
//  CHECK-NEXT:     memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:   cf.br ^bb3(%[[S]] : memref<8xf32>)
//       CHECK: ^bb3(%[[M:.*]]: memref<8xf32>):
//  CHECK-NEXT:   memref.copy %[[M]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[M]] : memref<8xf32>
//  CHECK-NEXT:   return
func.func @owning_select(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %a, %b : memref<8xf32>
  cf.br ^bb3(%s : memref<8xf32>)
^bb2:
  %d = memref.alloc() : memref<8xf32>
  memref.copy %x, %d : memref<8xf32> to memref<8xf32>
  cf.br ^bb3(%d : memref<8xf32>)
^bb3(%m: memref<8xf32>):
  memref.copy %m, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A select of an owned buffer and an argument, yielded by an scf.if: it
// owns what it selected where its flag (its aligned pointer is the
// buffer's) says so, the buffer is freed where it was not selected, and
// the scf.if's result carries the flag: the return copies only what it
// does not own. (It was left to upstream's deallocation.)

// CHECK-LABEL: func @partial_select
//       CHECK:   %[[R:.*]]:2 = scf.if %{{.*}} -> (memref<8xf32>, i1) {
//       CHECK:     %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     %[[S:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}}
//  CHECK-NEXT:     %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:     %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
//  CHECK-NEXT:     %[[OWN:.*]] = arith.cmpi eq, %[[PA]], %[[PS]]
//       CHECK:     %[[NOT:.*]] = arith.cmpi ne
//  CHECK-NEXT:     scf.if %[[NOT]] {
//  CHECK-NEXT:       memref.dealloc %[[A]] : memref<8xf32>
//       CHECK:     scf.yield %[[S]], %[[OWN]] : memref<8xf32>, i1
//       CHECK:   } else {
//       CHECK:     scf.yield %{{.*}}, %false : memref<8xf32>, i1
//       CHECK:   %[[RET:.*]] = scf.if %[[R]]#1 -> (memref<8xf32>) {
//  CHECK-NEXT:     scf.yield %[[R]]#0 : memref<8xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     %[[COPY:.*]] = bufferization.clone %[[R]]#0
//       CHECK:   return %[[RET]] : memref<8xf32>
func.func @partial_select(%c: i1, %d: i1, %x: memref<8xf32>) -> memref<8xf32> {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    %s = arith.select %d, %a, %x : memref<8xf32>
    scf.yield %s : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  return %r : memref<8xf32>
}

// -----

// An scf.if result that no branch hands ownership to, which may be a buffer
// its block owns (%b) or one of the function (%a), takes %b over as a
// select does: %b is freed right after the scf.if where the result is not
// it (aligned pointers compared at run time), and the result is owned where
// the same comparison says so; the outer scf.if's result carries that flag
// past the branch. (The result, live across the branch, kept %b alive
// outside its region: the function was left to upstream's deallocation,
// which memplan does not run on a region result used in another block, a
// located error; generated seeds 1255, 1418 and 1751 at 10 ops.)

// CHECK-LABEL: func @region_result_takes_over
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[R:.*]]:2 = scf.if %{{.*}} -> (memref<8xf32>, i1) {
//       CHECK:     scf.yield %{{.*}}, %false : memref<8xf32>, i1
//       CHECK:   } else {
//       CHECK:     %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     %[[S:.*]] = scf.if %{{.*}} -> (memref<8xf32>) {
//  CHECK-NEXT:       scf.yield %[[B]] : memref<8xf32>
//  CHECK-NEXT:     } else {
//  CHECK-NEXT:       scf.yield %[[A]] : memref<8xf32>
//  CHECK-NEXT:     }
//  CHECK-NEXT:     %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:     %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
//  CHECK-NEXT:     %[[OWN:.*]] = arith.cmpi eq, %[[PB]], %[[PS]]
//       CHECK:     %[[NOT:.*]] = arith.cmpi ne
//  CHECK-NEXT:     scf.if %[[NOT]] {
//  CHECK-NEXT:       memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:     scf.yield %[[S]], %[[OWN]] : memref<8xf32>, i1
//       CHECK:   ^bb1:
//  CHECK-NEXT:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
//       CHECK:   ^bb2:
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
//       CHECK:   ^bb3:
//  CHECK-NEXT:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//  CHECK-NEXT:   return
func.func @region_result_takes_over(%c: i1, %d: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    %s = scf.if %d -> memref<8xf32> {
      scf.yield %b : memref<8xf32>
    } else {
      scf.yield %a : memref<8xf32>
    }
    scf.yield %s : memref<8xf32>
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// The same for a loop's result: %b on zero trips, an argument otherwise.
// %b is freed after the loop where the result is not it.

// CHECK-LABEL: func @loop_result_takes_over
//       CHECK:     %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     %[[S:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[B]]) -> (memref<8xf32>) {
//       CHECK:     }
//  CHECK-NEXT:     %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
//  CHECK-NEXT:     %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
//  CHECK-NEXT:     %[[OWN:.*]] = arith.cmpi eq, %[[PB]], %[[PS]]
//       CHECK:     %[[NOT:.*]] = arith.cmpi ne
//  CHECK-NEXT:     scf.if %[[NOT]] {
//  CHECK-NEXT:       memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:     scf.yield %[[S]], %[[OWN]] : memref<8xf32>, i1
func.func @loop_result_takes_over(%c: i1, %n: index, %x: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%it = %b) -> memref<8xf32> {
      memref.copy %it, %out : memref<8xf32> to memref<8xf32>
      scf.yield %x : memref<8xf32>
    }
    scf.yield %s : memref<8xf32>
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb2
^bb2:
  return
}

// -----

// A select of one buffer and itself is that buffer: the branch hands it
// over to the scf.if's result (true), which is freed after its last use.
// (As a select of two values it took nothing over and kept the buffer
// alive outside its region: left to upstream's deallocation.)

// CHECK-LABEL: func @select_of_one_value
//       CHECK:   %[[R:.*]]:2 = scf.if
//       CHECK:     %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:     %[[S:.*]] = arith.select %{{.*}}, %[[A]], %[[A]]
//  CHECK-NEXT:     scf.yield %[[S]], %true : memref<8xf32>, i1
//       CHECK:   ^bb1:
//  CHECK-NEXT:   memref.copy %[[R]]#0, %{{.*}}
//  CHECK-NEXT:   scf.if %[[R]]#1 {
//  CHECK-NEXT:     memref.dealloc %[[R]]#0 : memref<8xf32>
func.func @select_of_one_value(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    %s = arith.select %c, %a, %a : memref<8xf32>
    scf.yield %s : memref<8xf32>
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb2
^bb2:
  return
}

// -----

// A read whose value nothing uses keeps no buffer alive: it is erased (as
// the canonicalization in upstream's buffer-deallocation-pipeline erases
// it) and %a is freed after its last real use, before the scf.if.

// CHECK-LABEL: func @dead_read
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//  CHECK-NEXT:   memref.copy %{{.*}}, %[[A]]
//  CHECK-NEXT:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<8xf32>
//   CHECK-NOT:   memref.load
//       CHECK:   return
func.func @dead_read(%x: memref<8xf32>, %out: memref<8xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  scf.if %c {
    %v = memref.load %a[%c0] : memref<8xf32>
  }
  return
}

// -----

// A block argument that gets a fresh buffer on one edge and the argument on
// the other carries a flag in a block argument of its own.

// CHECK-LABEL: func @block_argument_flag
//       CHECK:   %[[FALSE:.*]] = arith.constant false
//       CHECK:   cf.cond_br %{{.*}}, ^{{.*}}, ^[[BB2:.*]](%arg1, %[[FALSE]] : memref<8xf32>, i1)
//       CHECK:   %[[TRUE:.*]] = arith.constant true
//       CHECK:   cf.br ^[[BB2]](%{{.*}}, %[[TRUE]] : memref<8xf32>, i1)
//       CHECK: ^[[BB2]](%[[M:.*]]: memref<8xf32>, %[[OWN:.*]]: i1):
//  CHECK-NEXT:   memref.copy %[[M]], %{{.*}}
//  CHECK-NEXT:   scf.if %[[OWN]] {
//  CHECK-NEXT:     memref.dealloc %[[M]] : memref<8xf32>
func.func @block_argument_flag(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  cf.cond_br %c, ^bb1, ^bb2(%x : memref<8xf32>)
^bb1:
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.br ^bb2(%a : memref<8xf32>)
^bb2(%m: memref<8xf32>):
  memref.copy %m, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Stack buffers (promote-buffers-to-stack) merged by an scf.if own nothing:
// no free, no flag.

// CHECK-LABEL: func @stack_branches
//   CHECK-NOT:   memref.dealloc
//   CHECK-NOT:   i1)
//       CHECK:   return
func.func @stack_branches(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloca() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %b = memref.alloca() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// Asynchronous work is a use until the op that waits for it.

// CHECK-LABEL: func @async_copy
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   gpu.wait [%{{.*}}]
//  CHECK-NEXT:   memref.dealloc %[[A]] : memref<16xf32>
func.func @async_copy(%x: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  %t = gpu.memcpy async %x, %a : memref<16xf32>, memref<16xf32>
  %u = gpu.wait async [%t]
  gpu.wait [%u]
  return
}

// -----

// A loop that yields its iteration argument unchanged, and an scf.if whose
// branches yield one buffer: each result is that buffer under another name
// (no flag), so the function returns the buffer itself, under its own name
// (a value returned at several positions is then seen as one), not a copy,
// and frees nothing it returns.

// CHECK-LABEL: func @same_value_merges
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[A]]) -> (memref<8xf32>)
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   scf.if %{{.*}} -> (memref<8xf32>)
//   CHECK-NOT:   bufferization.clone
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return %[[A]], %[[B]]
func.func @same_value_merges(%x: memref<8xf32>, %n: index, %c: i1) -> (memref<8xf32>, memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (memref<8xf32>) {
    linalg.add ins(%it, %x : memref<8xf32>, memref<8xf32>) outs(%it : memref<8xf32>)
    scf.yield %it : memref<8xf32>
  }
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %s = scf.if %c -> (memref<8xf32>) {
    scf.yield %b : memref<8xf32>
  } else {
    scf.yield %b : memref<8xf32>
  }
  return %r, %s : memref<8xf32>, memref<8xf32>
}

// -----

// A view nobody uses names the buffer without touching it: %a is freed
// right after its last access, not after the dead subview (which would keep
// it alive while %b is allocated).

// CHECK-LABEL: func @dead_view
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.copy %[[A]], %{{.*}}
//  CHECK-NEXT:   memref.dealloc %[[A]]
//       CHECK:   memref.alloc() : memref<8xf32>
func.func @dead_view(%x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %out : memref<8xf32> to memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %x, %b : memref<8xf32> to memref<8xf32>
  %v = memref.subview %a[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A select of two buffers its block owns, not forwarded, and used after
// another allocation: it takes both over, so the one it did not select is
// freed right after it (aligned pointers compared at run time, as upstream's
// ownership-based deallocation does) and the selected one after the
// select's last use; the later allocation no longer finds both alive.
// (Generated seed 1756: both were freed after the last use, 64 B above
// upstream's peak.)

// CHECK-LABEL: func @local_select_frees_what_it_did_not_select
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   %[[S:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
//       CHECK:   memref.extract_aligned_pointer_as_index %[[A]]
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.dealloc %[[A]] : memref<8xf32>
//       CHECK:   memref.extract_aligned_pointer_as_index %[[B]]
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.dealloc %[[B]] : memref<8xf32>
//       CHECK:   %[[T:.*]] = memref.alloc() : memref<8xf32>
//  CHECK-NEXT:   memref.copy %[[S]], %[[T]]
//  CHECK-NEXT:   memref.dealloc %[[S]] : memref<8xf32>
func.func @local_select_frees_what_it_did_not_select(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  memref.copy %out, %b : memref<8xf32> to memref<8xf32>
  %s = arith.select %c, %a, %b : memref<8xf32>
  %t = memref.alloc() : memref<8xf32>
  memref.copy %s, %t : memref<8xf32> to memref<8xf32>
  memref.copy %t, %out : memref<8xf32> to memref<8xf32>
  return
}

// -----

// A block no branch reaches never runs: its memref argument owns nothing
// (no edge brings it a buffer), and the function stays memplan's. Its own
// branch hands the merge no ownership; the reachable edge does.

// CHECK-LABEL: func @unreachable_block_argument
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   cf.switch %{{.*}} : i32, [
//  CHECK-NEXT:     default: ^[[JOIN:bb[0-9]+]](%[[A]], %true : memref<8xf32>, i1)
//       CHECK: ^bb1(%[[U:.*]]: memref<8xf32>):
//       CHECK:   cf.br ^[[JOIN]](%[[U]], %false{{.*}} : memref<8xf32>, i1)
//       CHECK: ^[[JOIN]](%[[M:.*]]: memref<8xf32>, %[[F:.*]]: i1):
//       CHECK:   scf.if %[[F]] {
//  CHECK-NEXT:     memref.dealloc %[[M]] : memref<8xf32>
func.func @unreachable_block_argument(%i: i32, %x: memref<8xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.switch %i : i32, [
    default: ^bb2(%a : memref<8xf32>)
  ]
^bb1(%u: memref<8xf32>):
  cf.br ^bb2(%u : memref<8xf32>)
^bb2(%m: memref<8xf32>):
  memref.copy %m, %out : memref<8xf32> to memref<8xf32>
  return
}
