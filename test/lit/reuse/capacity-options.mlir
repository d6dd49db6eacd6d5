// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=0})' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-liveness{capacity=-4096})' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-transients{capacity=4k})' 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=4096,gpu:1024})' 2>&1 | FileCheck %s --check-prefix=BAD-SPACE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline{capacity=3:1024,3:2048})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=4096,3:1024})' | FileCheck %s --check-prefix=LIST
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-liveness{capacity=4096,3:1024})' 2>&1 | FileCheck %s --check-prefix=LIST-SPACE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=1024,3:8192})' 2>&1 | FileCheck %s --check-prefix=LIST-DEFAULT

// The capacity option is checked when the pipeline is parsed: a value that is
// not a positive number of bytes (or a list of SPACE:N) is a one-line error
// naming it, and nothing runs.

// ZERO: error: option 'capacity' must be a positive number of bytes, got '0'
// ZERO-NEXT: failed to add `memplan-buffer-reuse` with options `capacity=0`
// NEGATIVE: error: option 'capacity' must be a positive number of bytes, got '-4096'
// WORD: error: option 'capacity' expects a number of bytes N or a list of SPACE:N, got '4k'
// BAD-SPACE: error: option 'capacity' expects an integer memory space before ':', got '4096,gpu:1024'
// TWICE: error: option 'capacity' gives memory space 3 twice in '3:1024,3:2048'

// A list of capacities per memory space, with one for the other spaces: the
// default space's 4096 bytes hold the pool of %a and %b (2048 bytes), and
// buffer-reuse pools only that space, leaving space 3 as it is.
// LIST-LABEL: func @f
//       LIST:   %[[POOL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
//       LIST:   memref.view %[[POOL]]
//       LIST:   memref.view %[[POOL]]
//       LIST:   memref.alloc() : memref<128xf32, 3>
//       LIST:   memref.alloc() : memref<256xf32, 3>
//       LIST:   memref.dealloc %[[POOL]] : memref<2048xi8>

// Space 3's capacity (1024) bounds space 3's buffers (1536 bytes live
// together) in the liveness check, which checks every space ...
// LIST-SPACE: :[[@LINE+11]]:9: error: memplan-buffer-liveness: the buffers live at point {{[0-9]+}} (memref.alloc) in memory space 3 need 1536 bytes, more than the capacity of 1024 bytes

// ... and the default space's (1024) bounds %a and %b, live together.
// LIST-DEFAULT: :[[@LINE+4]]:8: error: memplan-buffer-reuse: the buffers live at point {{[0-9]+}} (memref.alloc) need 2048 bytes, more than the capacity of 1024 bytes
func.func @f(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  memref.copy %a, %b : memref<256xf32> to memref<256xf32>
  memref.dealloc %a : memref<256xf32>
  %s = memref.alloc() : memref<128xf32, 3>
  %s2 = memref.alloc() : memref<256xf32, 3>
  memref.dealloc %s : memref<128xf32, 3>
  memref.dealloc %s2 : memref<256xf32, 3>
  memref.copy %b, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}
