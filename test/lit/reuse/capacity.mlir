// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=512 remarks})' | FileCheck %s

// With a capacity, every statically sized buffer memplan can pool in a scope
// goes into one pool of at most that many bytes, or the pass fails where the
// live bytes exceed it. The numerics of every case that runs are checked in
// test/python/reuse/test_capacity.py.

// Three 256-byte buffers, at most two live at once: a 512-byte pool.

// CHECK-LABEL: func @fits
//       CHECK:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//   CHECK-NOT:   memref.alloc()
//   CHECK-NOT:   memref.dealloc %{{.*}} : memref<64xf32>
//       CHECK:   memref.dealloc %[[POOL]] : memref<512xi8>
func.func @fits(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark @below {{pooled 3 allocations into 512 bytes (lower bound 512, greedy-by-size, capacity 512)}}
  %a = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.add ins(%a, %x : memref<64xf32>, memref<64xf32>) outs(%b : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  linalg.add ins(%b, %b : memref<64xf32>, memref<64xf32>) outs(%c : memref<64xf32>)
  memref.dealloc %b : memref<64xf32>
  linalg.negf ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// Three 256-byte buffers live at once need 768 bytes: the error is at the
// allocation where they exceed the capacity, with a note per live buffer.

func.func @over(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  %a = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  %b = memref.alloc() : memref<64xf32>
  linalg.exp ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  // expected-error @below {{memplan-buffer-reuse: the buffers live at point 9 (memref.alloc) need 768 bytes, more than the capacity of 512 bytes}}
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  %c = memref.alloc() : memref<64xf32>
  linalg.add ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%c : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  linalg.negf ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// Alignment padding counts: three 160-byte buffers live at once are 480
// bytes, but at 64-byte aligned offsets they need 192 + 192 + 160.

func.func @padding(%x: memref<40xf32>, %out: memref<40xf32>) {
  // expected-note @below {{live here: memref<40xf32> (160 bytes)}}
  %a = memref.alloc() : memref<40xf32>
  linalg.exp ins(%x : memref<40xf32>) outs(%a : memref<40xf32>)
  // expected-note @below {{live here: memref<40xf32> (160 bytes)}}
  %b = memref.alloc() : memref<40xf32>
  linalg.exp ins(%a : memref<40xf32>) outs(%b : memref<40xf32>)
  // expected-error @below {{the buffers live at point 9 (memref.alloc) need 480 bytes (544 with alignment padding), more than the capacity of 512 bytes}}
  // expected-note @below {{live here: memref<40xf32> (160 bytes)}}
  %c = memref.alloc() : memref<40xf32>
  linalg.add ins(%a, %b : memref<40xf32>, memref<40xf32>) outs(%c : memref<40xf32>)
  memref.dealloc %a : memref<40xf32>
  memref.dealloc %b : memref<40xf32>
  linalg.negf ins(%c : memref<40xf32>) outs(%out : memref<40xf32>)
  memref.dealloc %c : memref<40xf32>
  return
}

// -----

// One buffer larger than the capacity: no pool of it can fit.

func.func @too_large(%x: memref<256xf32>, %out: memref<256xf32>) {
  // expected-error @below {{the buffers live at point 1 (memref.alloc) need 1024 bytes, more than the capacity of 512 bytes}}
  // expected-note @below {{live here: memref<256xf32> (1024 bytes)}}
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.negf ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %a : memref<256xf32>
  return
}

// -----

// Buffers of another memory space are neither pooled with default-space
// ones nor counted against the default space's capacity: the two 256-byte
// default-space buffers fit in 512 bytes beside 512 bytes of space 3.
// (Not runnable: the JIT has no allocator for memory space 3.)

// CHECK-LABEL: func @two_spaces
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//       CHECK:   memref.alloc() : memref<128xf32, 3>
func.func @two_spaces(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-remark @below {{pooled 2 allocations into 512 bytes}}
  %a = memref.alloc() : memref<64xf32>
  // expected-remark @below {{not pooled: memory-space}}
  %s = memref.alloc() : memref<128xf32, 3>
  %b = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.add ins(%a, %x : memref<64xf32>, memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.negf ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %s : memref<128xf32, 3>
  return
}

// -----

// A buffer with a dynamic size has no byte count to plan within the
// capacity: it stays on the heap; the static ones are pooled.

// CHECK-LABEL: func @dynamic
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<512xi8>
//       CHECK:   memref.alloc(%{{.*}}) : memref<?xf32>
func.func @dynamic(%x: memref<64xf32>, %n: index, %out: memref<64xf32>) {
  // expected-remark @below {{pooled 2 allocations into 512 bytes}}
  %a = memref.alloc() : memref<64xf32>
  // expected-remark @below {{not pooled: dynamic size: its bytes cannot be planned within the capacity}}
  %d = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.add ins(%a, %x : memref<64xf32>, memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.negf ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
