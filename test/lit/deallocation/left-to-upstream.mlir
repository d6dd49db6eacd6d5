// RUN: memplan-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(memplan-buffer-deallocation{remarks})' -verify-diagnostics | FileCheck %s

// A function memplan's ownership analysis cannot reason about is left to
// upstream's ownership-based deallocation, which then runs with every other
// function's body out of its sight; the remark says why.

// A select that may be a buffer of the branch escapes it, and the buffer
// is used after the select (so the select cannot take it over): upstream's
// run-time pointer checks decide who frees it. The other function keeps
// memplan's own free (upstream's pass would reject it if it saw it).

// CHECK-LABEL: func @left
//       CHECK:   memref.extract_aligned_pointer_as_index
// CHECK-LABEL: func @not_left
//       CHECK:   memref.alloc
//  CHECK-NEXT:   memref.dealloc
func.func @left(%c: i1, %d: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    %s = arith.select %d, %a, %x : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %s : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  // expected-remark @below {{left to upstream's deallocation (1 heap allocations): a buffer of a region that may be used after it through a value that does not own it}}
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}
func.func @not_left() {
  %a = memref.alloc() : memref<8xf32>
  return
}

// -----

// Upstream's pass replaces every region op to append ownership results and
// then reads the erased result through its liveness where it is live across
// a branch (MLIR 22: SIGSEGV in getMemrefsToRetain): memplan reports it
// instead of running it.
func.func @guarded(%c: i1, %d: i1, %x: memref<8xf32>, %n: index, %out: memref<8xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    %s = arith.select %d, %a, %x : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %s : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  // expected-remark @below {{left to upstream's deallocation}}
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  // expected-error @below {{upstream's ownership-based deallocation, which memplan leaves this function to, reads an erased result here}}
  %k = scf.for %i = %c0 to %n step %c1 iter_args(%t = %c0) -> index {
    %u = arith.addi %t, %i : index
    scf.yield %u : index
  }
  cf.br ^bb1
^bb1:
  return %k : index
}

// -----

// Upstream's pass orders the buffers live across each branch; two defined
// in different blocks (%b and %g across the second cond_br) have no order
// there in MLIR 22, and it aborts (isBeforeInBlock's assertion): memplan
// reports it instead of running it.
func.func @unordered(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  // expected-note @below {{the other here}}
  %g = memref.alloc() : memref<8xf32>
  memref.copy %x, %g : memref<8xf32> to memref<8xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-remark @below {{left to upstream's deallocation (3 heap allocations): a buffer a merged value may point into on a path that does not pass its allocation}}
  %a = memref.alloc() : memref<8xf32>
  %s = arith.select %c, %a, %x : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  cf.br ^bb3(%s : memref<8xf32>)
^bb2:
  cf.br ^bb3(%x : memref<8xf32>)
^bb3(%m: memref<8xf32>):
  // expected-note @below {{one is defined here}}
  %b = memref.alloc() : memref<8xf32>
  memref.copy %m, %b : memref<8xf32> to memref<8xf32>
  // expected-error @below {{upstream's ownership-based deallocation, which memplan leaves this function to, aborts here: it orders the buffers live across this branch, and two of them have no order there}}
  cf.cond_br %c, ^bb4, ^bb5
^bb4:
  memref.copy %b, %out : memref<8xf32> to memref<8xf32>
  memref.copy %g, %out : memref<8xf32> to memref<8xf32>
  cf.br ^bb5
^bb5:
  return
}

// -----

// An op without memory effects information: memplan leaves the function,
// and upstream's pass rejects it with its own error.
func.func @unknown(%x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  // expected-remark @below {{left to upstream's deallocation (1 heap allocations): 'test.use' has no memory effects information}}
  // expected-error @below {{ops with unknown memory side effects are not supported}}
  "test.use"(%a) : (memref<8xf32>) -> ()
  return
}

// -----

// A function left to upstream that returns one value at two positions:
// upstream's pass decides at run time whether that is one buffer (owned)
// or two (copies), so its caller cannot free the results statically and is
// left to upstream too; a caller of neither keeps memplan's frees.

// CHECK-LABEL: func @left_twice
// CHECK-LABEL: func @caller_of_left_twice
//       CHECK:   memref.extract_aligned_pointer_as_index
// CHECK-LABEL: func @keeps_its_frees
//       CHECK:   memref.alloc
//  CHECK-NEXT:   memref.dealloc
func.func @left_twice(%c: i1, %d: i1, %x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    %s = arith.select %d, %a, %x : memref<8xf32>
    memref.copy %x, %a : memref<8xf32> to memref<8xf32>
    scf.yield %s : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  // expected-remark @below {{left to upstream's deallocation (1 heap allocations): a buffer of a region that may be used after it through a value that does not own it}}
  return %r, %r : memref<8xf32>, memref<8xf32>
}
func.func @caller_of_left_twice(%c: i1, %d: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
  // expected-remark @below {{left to upstream's deallocation (0 heap allocations): a call of a function left to upstream's deallocation that may return one buffer at several positions}}
  %r:2 = func.call @left_twice(%c, %d, %x) : (i1, i1, memref<8xf32>) -> (memref<8xf32>, memref<8xf32>)
  memref.copy %r#0, %out : memref<8xf32> to memref<8xf32>
  memref.copy %r#1, %out : memref<8xf32> to memref<8xf32>
  return
}
func.func @keeps_its_frees() {
  %a = memref.alloc() : memref<8xf32>
  return
}

// -----

// Not left: a payload that reads a buffer (a gather's memref.load, as
// elementwise fusion leaves it) uses it at the linalg.generic, and %t is
// freed by memplan right after the generic (no remark).

// CHECK-LABEL: func @read_in_a_payload
//       CHECK:   %[[T:.*]] = memref.alloc() : memref<16xf32>
//       CHECK:   linalg.generic
//       CHECK:     memref.load %[[T]]
//       CHECK:   }
//  CHECK-NEXT:   memref.dealloc %[[T]] : memref<16xf32>
//  CHECK-NEXT:   return
func.func @read_in_a_payload(%x: memref<16xf32>, %idx: memref<8xindex>, %out: memref<8xf32>) {
  %t = memref.alloc() : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%t : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%idx : memref<8xindex>) outs(%out : memref<8xf32>) {
  ^bb0(%i: index, %o: f32):
    %v = memref.load %t[%i] : memref<16xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

// An scf.if result that takes %b over (so memplan would own the function)
// and a select that is that result on some paths only, both returned:
// memplan's static ownership would return %b and a copy of it on those paths
// (the caller frees two buffers), where upstream's run-time ownership
// returns %b at both positions and no copy there (the select's ownership
// is selected at run time). Left to upstream's deallocation, as before
// region results took buffers over.

// CHECK-LABEL: func @returned_twice_on_some_paths
//       CHECK:   %[[R:.*]]:2 = scf.if
//       CHECK:   %[[T:.*]] = arith.select %{{.*}}, %[[R]]#0, %{{.*}} : memref<8xf32>
//       CHECK:   %[[OWN:.*]] = arith.select %{{.*}}, %[[R]]#1, %false : i1
//  CHECK-NEXT:   scf.if %[[OWN]] -> (memref<8xf32>) {
//  CHECK-NEXT:     scf.yield %[[T]] : memref<8xf32>
func.func @returned_twice_on_some_paths(%c: i1, %d: i1, %x: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    scf.yield %x : memref<8xf32>
  } else {
    %b = memref.alloc() : memref<8xf32>
    memref.copy %x, %b : memref<8xf32> to memref<8xf32>
    %s = scf.if %d -> memref<8xf32> {
      scf.yield %b : memref<8xf32>
    } else {
      scf.yield %x : memref<8xf32>
    }
    scf.yield %s : memref<8xf32>
  }
  %t = arith.select %d, %r, %x : memref<8xf32>
  // expected-remark @below {{left to upstream's deallocation (1 heap allocations): a returned value that may be, on some paths only, a buffer the function returns at another position}}
  return %r, %t : memref<8xf32>, memref<8xf32>
}
