// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-transients{capacity=2048})' | FileCheck %s

// With a capacity, the transient storage of each function (its transients and
// the storage it passes to callees) fits in that many bytes, or the pipeline
// fails where the live bytes exceed it. The numerics of the case that fits
// are checked in test/python/reuse/test_capacity.py.

// Two 1024-byte transients live at once: 2048 bytes, the capacity.

// CHECK-LABEL: func.func @fits
// CHECK-SAME:    memplan.transient_size = 2048 : index
func.func @fits(%x: memref<256xf32>, %out: memref<256xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  memref.copy %c, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %c : memref<256xf32>
  return
}

// -----

// Three 1024-byte transients live at once: the error is at the allocation
// where they exceed the capacity, with a note at each.

func.func @over(%x: memref<256xf32>, %out: memref<256xf32>, %storage: memref<?xi8> {memplan.transients}) {
  // expected-note @below {{live here: memref<256xf32> (1024 bytes)}}
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  // expected-note @below {{live here: memref<256xf32> (1024 bytes)}}
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  // expected-error @below {{the transients of @over live at point 5 (memref.alloc) need 3072 bytes, more than the capacity of 2048 bytes}}
  // expected-note @below {{live here: memref<256xf32> (1024 bytes)}}
  %c = memref.alloc() : memref<256xf32>
  memref.copy %a, %c : memref<256xf32> to memref<256xf32>
  memref.copy %b, %c : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  memref.copy %c, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %c : memref<256xf32>
  return
}

// -----

// A callee's storage is live at the call: with the caller's own 1024-byte
// transient live across it, @caller needs 1024 + 2048 bytes (@callee alone
// fits).

func.func @caller(%x: memref<256xf32>, %out: memref<256xf32>, %storage: memref<?xi8> {memplan.transients}) {
  // expected-note @below {{live here: memref<256xf32> (1024 bytes)}}
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  // expected-error @below {{the transients of @caller live at point 3 (func.call) need 3072 bytes, more than the capacity of 2048 bytes}}
  // expected-note @below {{live here: the transient storage of @callee (2048 bytes)}}
  call @callee(%x, %out) : (memref<256xf32>, memref<256xf32>) -> ()
  memref.copy %a, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  return
}
func.func private @callee(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  memref.copy %b, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}

// -----

// A storage of dynamic size cannot be checked against a capacity.

func.func @dynamic(%n: index, %storage: memref<?xi8> {memplan.transients}) {
  // expected-error @below {{the transient storage of @dynamic has a dynamic size}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}
