// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-verify-deallocation)' -allow-unregistered-dialect -verify-diagnostics -o /dev/null

// memplan-verify-deallocation proves that every heap buffer is freed exactly
// once on every path (or returned: the caller owns what a function returns),
// never before its last use, and that nothing but heap buffers is freed. Each
// violation is a located error; what it cannot prove, a located warning.

// A buffer freed after its last use through a view: nothing to report.
func.func @freed_once(%x: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %v = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %c0 = arith.constant 0 : index
  %f = memref.load %v[%c0] : memref<8xf32, strided<[1]>>
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// Freed twice on one path.
func.func @double_free() {
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  // expected-note @below {{and freed here}}
  memref.dealloc %a : memref<16xf32>
  // expected-error @below {{frees a heap buffer that is already freed on this path}}
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// A free of stack memory.
func.func @stack_free() {
  // expected-note @below {{the buffer is allocated here ('memref.alloca')}}
  %a = memref.alloca() : memref<16xf32>
  // expected-error @below {{frees stack memory}}
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// A free of an argument's buffer (through a cast): the caller owns it.
func.func @argument_free(%x: memref<16xf32>) {
  %c = memref.cast %x : memref<16xf32> to memref<?xf32>
  // expected-error @below {{frees the buffer of a function argument, which belongs to the caller}}
  memref.dealloc %c : memref<?xf32>
  return
}

// -----

// A free of a global.
memref.global "private" @g : memref<4xf32> = dense<0.0>
func.func @global_free() {
  // expected-note @below {{the buffer is allocated here ('memref.get_global')}}
  %g = memref.get_global @g : memref<4xf32>
  // expected-error @below {{frees memory this function did not allocate on the heap}}
  memref.dealloc %g : memref<4xf32>
  return
}

// -----

// Never freed: a leak, reported at the allocation, with its last use.
func.func @leak(%x: memref<16xf32>) {
  // expected-error @below {{a heap buffer is not freed on a path through the function}}
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  // expected-note @below {{no value refers to it after this op ('memref.copy')}}
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Freed on one branch of an scf.if only: the other path leaks.
func.func @leak_on_one_branch(%c: i1) {
  // expected-error @below {{a heap buffer is not freed on a path through the function}}
  // expected-note @below {{the buffer is allocated here}}
  // expected-note @below {{on the path through 'scf.if'}}
  %a = memref.alloc() : memref<16xf32>
  // expected-note @below {{no value refers to it after this op ('scf.if')}}
  scf.if %c {
    memref.dealloc %a : memref<16xf32>
  }
  return
}

// -----

// Read through a view after its buffer was freed.
func.func @use_after_free(%x: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %v = memref.subview %a[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
  // expected-note @below {{and freed here}}
  memref.dealloc %a : memref<16xf32>
  // expected-error @below {{uses a buffer after it was freed}}
  %f = memref.load %v[%c0] : memref<8xf32, strided<[1], offset: 4>>
  return %f : f32
}

// -----

// Freed while an asynchronous copy may still read it; awaited, it is fine.
func.func @async_free(%x: memref<16xf32>) {
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  // expected-note @below {{asynchronous work that uses it starts here and is not awaited before the free}}
  %t = gpu.memcpy async %x, %a : memref<16xf32>, memref<16xf32>
  // expected-error @below {{frees a buffer that asynchronous work may still use}}
  memref.dealloc %a : memref<16xf32>
  gpu.wait [%t]
  %b = memref.alloc() : memref<16xf32>
  %u = gpu.memcpy async %x, %b : memref<16xf32>, memref<16xf32>
  %w = gpu.wait async [%u]
  gpu.wait [%w]
  memref.dealloc %b : memref<16xf32>
  return
}

// -----

// What a function returns belongs to its caller: an argument, stack memory,
// a freed buffer or one buffer twice cannot be returned.
func.func @returns_argument(%x: memref<16xf32>) -> memref<16xf32> {
  // expected-error @below {{returns memory it does not own (a function argument)}}
  return %x : memref<16xf32>
}

// -----

func.func @returns_stack() -> memref<16xf32> {
  // expected-note @below {{the buffer is allocated here ('memref.alloca')}}
  %a = memref.alloca() : memref<16xf32>
  // expected-error @below {{returns stack memory}}
  return %a : memref<16xf32>
}

// -----

func.func @returns_twice() -> (memref<16xf32>, memref<4x4xf32>) {
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  %e = memref.expand_shape %a [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  // expected-error @below {{returns one heap buffer twice}}
  return %a, %e : memref<16xf32>, memref<4x4xf32>
}

// -----

// One value at the same two positions of every return is one buffer the
// caller frees once: freeing the call's second result after its first is a
// double free.
func.func @same_value_twice(%c: i1) -> (memref<16xf32>, memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a, %a : memref<16xf32>, memref<16xf32>
^bb2:
  return %a, %a : memref<16xf32>, memref<16xf32>
}
func.func @frees_once(%c: i1) {
  %r:2 = func.call @same_value_twice(%c) : (i1) -> (memref<16xf32>, memref<16xf32>)
  memref.dealloc %r#1 : memref<16xf32>
  return
}
func.func @frees_both(%c: i1) {
  // expected-note @below {{the buffer is allocated here}}
  %r:2 = func.call @same_value_twice(%c) : (i1) -> (memref<16xf32>, memref<16xf32>)
  // expected-note @below {{freed here}}
  memref.dealloc %r#0 : memref<16xf32>
  // expected-error @below {{frees a heap buffer that is already freed}}
  memref.dealloc %r#1 : memref<16xf32>
  return
}

// -----

// Two positions with one value in one return but not in the other: the
// caller cannot know, so the function may not return one buffer twice.
func.func @twice_on_one_path(%c: i1, %x: memref<16xf32>) -> (memref<16xf32>, memref<16xf32>) {
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-error @below {{returns one heap buffer twice}}
  // expected-note @below {{on the path through 'cf.cond_br'}}
  return %a, %a : memref<16xf32>, memref<16xf32>
^bb2:
  %b = memref.alloc() : memref<16xf32>
  return %a, %b : memref<16xf32>, memref<16xf32>
}

// -----

// A loop that carries a buffer and its ownership flag (false on entry: the
// argument; true once the body allocated): every path, zero trips included,
// frees exactly once. The result is returned owned (a clone where not).
func.func @loop_with_flag(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %true = arith.constant true
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%it = %x, %own = %false) -> (memref<16xf32>, i1) {
    %new = memref.alloc() : memref<16xf32>
    memref.copy %it, %new : memref<16xf32> to memref<16xf32>
    scf.if %own {
      memref.dealloc %it : memref<16xf32>
    }
    scf.yield %new, %true : memref<16xf32>, i1
  }
  %out = scf.if %r#1 -> memref<16xf32> {
    scf.yield %r#0 : memref<16xf32>
  } else {
    %c = bufferization.clone %r#0 : memref<16xf32> to memref<16xf32>
    scf.yield %c : memref<16xf32>
  }
  return %out : memref<16xf32>
}

// -----

// The same loop without the flag frees the argument on the first trip.
func.func @loop_frees_argument(%x: memref<16xf32>, %n: index) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %x) -> (memref<16xf32>) {
    %new = memref.alloc() : memref<16xf32>
    memref.copy %it, %new : memref<16xf32> to memref<16xf32>
    // expected-error @below {{frees the buffer of a function argument}}
    // expected-note @below {{on the path through 'scf.for'}}
    memref.dealloc %it : memref<16xf32>
    scf.yield %new : memref<16xf32>
  }
  // expected-error @below {{returns memory it does not own (a function argument)}}
  // expected-note @below {{on the path through 'scf.for'}}
  return %r : memref<16xf32>
}

// -----

// A buffer allocated on every trip and never freed leaks on the second.
func.func @loop_leak(%x: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{a heap buffer is not freed on a path through the function}}
    // expected-note @below {{the buffer is allocated here}}
    // expected-note @below {{on the path through 'scf.for'}}
    %a = memref.alloc() : memref<16xf32>
    // expected-note @below {{no value refers to it after this op}}
    memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  }
  return
}

// -----

// scf.while: the before region hands a buffer to the after region, which
// frees it; the last one leaves through the condition and is freed after.
func.func @while_loop(%x: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<16xf32>
  %r:2 = scf.while (%buf = %a, %i = %c0) : (memref<16xf32>, index) -> (memref<16xf32>, index) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %buf, %i : memref<16xf32>, index
  } do {
  ^bb0(%b: memref<16xf32>, %j: index):
    %next = memref.alloc() : memref<16xf32>
    memref.copy %b, %next : memref<16xf32> to memref<16xf32>
    memref.dealloc %b : memref<16xf32>
    %k = arith.addi %j, %c1 : index
    scf.yield %next, %k : memref<16xf32>, index
  }
  memref.copy %r#0, %x : memref<16xf32> to memref<16xf32>
  memref.dealloc %r#0 : memref<16xf32>
  return
}

// -----

// Branches: the free follows the path, and the flag that decides it is
// the branch condition, negated through an arith op: both paths agree.
func.func @branches(%c: i1, %x: memref<16xf32>) {
  %true = arith.constant true
  %a = memref.alloc() : memref<16xf32>
  %not = arith.xori %c, %true : i1
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  scf.if %c {
    memref.dealloc %a : memref<16xf32>
  }
  scf.if %not {
    memref.dealloc %a : memref<16xf32>
  }
  return
}

// -----

// A free on one branch and again after the merge: a double free on one path.
func.func @branch_double_free(%c: i1) {
  // expected-note @below {{the buffer is allocated here}}
  %a = memref.alloc() : memref<16xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-note @below {{and freed here}}
  memref.dealloc %a : memref<16xf32>
  cf.br ^bb2
^bb2:
  // expected-error @below {{frees a heap buffer that is already freed on this path}}
  // expected-note @below {{on the path through 'cf.cond_br'}}
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// Both successors of a branch are one block with other operands: each edge is
// a path of its own. On the second, the block's argument is the function's
// argument, and the allocation is never freed (its flag is false there).
func.func @one_block_two_edges(%c: i1, %x: memref<8xf32>) {
  %false = arith.constant false
  %true = arith.constant true
  // expected-error @below {{a heap buffer is not freed on a path through the function}}
  // expected-note @below {{the buffer is allocated here}}
  // expected-note @below {{on the path through 'cf.cond_br'}}
  %a = memref.alloc() : memref<8xf32>
  cf.cond_br %c, ^bb1(%a, %true : memref<8xf32>, i1), ^bb1(%x, %false : memref<8xf32>, i1)
^bb1(%m: memref<8xf32>, %owned: i1):
  scf.if %owned {
    memref.dealloc %m : memref<8xf32>
  }
  // expected-note @below {{the function returns here}}
  return
}

// -----

// An op without memory effects information may free what it takes: the
// checker says it cannot prove the function.
func.func @unknown_op() {
  %a = memref.alloc() : memref<16xf32>
  // expected-warning @below {{has no memory effects information}}
  "test.unknown"(%a) : (memref<16xf32>) -> ()
  // expected-warning @below {{frees a buffer of unknown origin}}
  memref.dealloc %a : memref<16xf32>
  return
}
