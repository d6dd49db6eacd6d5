// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-test-apply-deallocation-plan)' -o /dev/null

// A malformed plan stated for memplan-test-apply-deallocation-plan is a
// located error per defect, and nothing is changed.

// An ownership other than "yes", "no" and "dynamic".

// expected-error @below {{an ownership is "yes", "no" or "dynamic"}}
func.func @bad_ownership() attributes {memplan.test_ownership = ["maybe"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  return
}

// -----

// A handle no value states.

// expected-error @below {{handle 1 is stated by no value}}
func.func @unstated() attributes {memplan.test_ownership = ["yes", "yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  return {memplan.test_free_before = array<i64: 0>}
}

// -----

// A handle stated twice, and one out of range.

func.func @twice() attributes {memplan.test_ownership = ["yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  // expected-error @below {{handle 0 is stated twice}}
  %b = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  // expected-error @below {{no handle 3}}
  %c = memref.alloc() {memplan.test_handles = array<i64: 3>} : memref<8xf32>
  return
}

// -----

// A handle must be a memref, and an op states one entry per result.

func.func @not_memref() attributes {memplan.test_ownership = ["yes"]} {
  // expected-error @below {{handle 0 is not a memref}}
  %i = arith.constant {memplan.test_handles = array<i64: 0>} 0 : index
  // expected-error @below {{memplan.test_handles needs 1 entries}}
  %a = memref.alloc() {memplan.test_handles = array<i64: 0, 0>} : memref<8xf32>
  return
}

// -----

// A dynamic handle needs a run-time flag: an allocation has none.

func.func @no_flag() attributes {memplan.test_ownership = ["dynamic"]} {
  // expected-error @below {{dynamic handle 0 has no flag}}
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  return
}

// -----

// No free goes after a terminator, and flags are appended to region
// terminators only.

func.func @misplaced() attributes {memplan.test_ownership = ["yes"]} {
  // expected-error @below {{memplan.test_flags is for region terminators}}
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>, memplan.test_flags = array<i64: 0>} : memref<8xf32>
  // expected-error @below {{no free goes after a terminator}}
  return {memplan.test_free_after = array<i64: 0>}
}

// -----

// An attribute of the wrong kind.

func.func @wrong_kind(%x: memref<8xf32>) attributes {memplan.test_ownership = ["yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  // expected-error @below {{memplan.test_free_after must be an array<i64>}}
  memref.copy %x, %a {memplan.test_free_after = [0]} : memref<8xf32> to memref<8xf32>
  // expected-error @below {{memplan.test_free_on_edge must be a list of array<i64: a, b>}}
  return {memplan.test_free_on_edge = [array<i64: 0>]}
}

// -----

// A conditional copy needs a dynamic handle, copies are made of a return's
// memref operands, and a copy states its position and known fields only.

func.func @bad_copies(%x: memref<8xf32>) -> (memref<8xf32>, index)
    attributes {memplan.test_ownership = ["no"]} {
  %c0 = arith.constant {memplan.test_arguments = array<i64: 0>} 0 : index
  // expected-error @below {{operand 1 is not a memref}}
  // expected-error @below {{handle 0 is not dynamic}}
  // expected-error @below {{not size = 8}}
  // expected-error @below {{a copy needs its position}}
  return {memplan.test_copies = [{position = 1}, {position = 0, unless_owned = 0}, {position = 0, size = 8}, {same_as = 0}]} %x, %c0 : memref<8xf32>, index
}

// -----

// Copies and frees that wait on them belong to the function's returns; a
// free at a block's start is stated on its first op.

func.func @not_at_return(%c: i1, %x: memref<8xf32>) attributes {memplan.test_ownership = ["yes"]} {
  %a = memref.alloc() {memplan.test_handles = array<i64: 0>} : memref<8xf32>
  // expected-error @below {{memplan.test_free_at_start is for a block's first op}}
  memref.copy %x, %a {memplan.test_free_at_start = array<i64: 0>} : memref<8xf32> to memref<8xf32>
  scf.if %c {
    // expected-error @below {{copies are made at the function's returns}}
    // expected-error @below {{memplan.test_free_before_unless_returned is for the function's returns}}
    scf.yield {memplan.test_copies = [{position = 0}], memplan.test_free_before_unless_returned = array<i64: 0>}
  }
  return {memplan.test_free_before = array<i64: 0>}
}

// -----

// Block arguments' handles are stated on the block's first op.

// expected-error @below {{handle 0 is stated by no value}}
func.func @arguments_not_first(%x: memref<8xf32>) attributes {memplan.test_ownership = ["no"]} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{memplan.test_arguments is for a block's first op}}
  return {memplan.test_arguments = array<i64: 0>}
}
