// RUN: memplan-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memplan-buffer-liveness{format=none remarks capacity=512,3:1024})'

// With a capacity, memplan-buffer-liveness says whether each function's
// buffers fit: per memory space, the most bytes of its statically sized
// allocations (allocas and buffers memplan does not pool included) live at
// one program point, against that space's capacity (here 512 bytes in
// every space but 3, 1024 bytes in space 3). The IR is unchanged.

// At most two 256-byte buffers live at once: 512 of 512 bytes.

// expected-remark @below {{fits in the capacity: at most 512 of 512 bytes live}}
func.func @fits(%x: memref<64xf32>, %out: memref<64xf32>) {
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

// An alloca counts too: with it, three 256-byte buffers are live at the
// allocation of %c. The error is there, with a note at each live buffer.

func.func @over(%x: memref<64xf32>, %out: memref<64xf32>) {
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  // expected-remark @below {{not poolable: alloca}}
  %s = memref.alloca() : memref<64xf32>
  linalg.exp ins(%x : memref<64xf32>) outs(%s : memref<64xf32>)
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  %a = memref.alloc() : memref<64xf32>
  linalg.exp ins(%s : memref<64xf32>) outs(%a : memref<64xf32>)
  // expected-error @below {{memplan-buffer-liveness: the buffers live at point 9 (memref.alloc) need 768 bytes, more than the capacity of 512 bytes}}
  // expected-note @below {{live here: memref<64xf32> (256 bytes)}}
  %c = memref.alloc() : memref<64xf32>
  linalg.add ins(%a, %s : memref<64xf32>, memref<64xf32>) outs(%c : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  linalg.negf ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// Memory spaces are checked apart: 512 bytes in the default space fit, and
// so do 1024 bytes in space 3 (together they would not fit in either).

// expected-remark @below {{fits in the capacity: at most 512 of 512 bytes live}}
// expected-remark @below {{fits in the capacity in memory space 3: at most 1024 of 1024 bytes live}}
func.func @two_spaces_fit(%v: f32) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  // expected-remark @below {{not poolable: memory-space}}
  %s = memref.alloc() : memref<256xf32, 3>
  linalg.fill ins(%v : f32) outs(%a : memref<64xf32>)
  linalg.fill ins(%v : f32) outs(%b : memref<64xf32>)
  linalg.fill ins(%v : f32) outs(%s : memref<256xf32, 3>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %s : memref<256xf32, 3>
  return
}

// -----

// Space 3 over its own capacity: the error names the space and its buffers
// only; the default space still fits.

// expected-remark @below {{fits in the capacity: at most 256 of 512 bytes live}}
func.func @space_over(%v: f32) {
  %a = memref.alloc() : memref<64xf32>
  // expected-remark @below {{not poolable: memory-space}}
  // expected-note @below {{live here: memref<256xf32, 3> (1024 bytes)}}
  %s = memref.alloc() : memref<256xf32, 3>
  // expected-error @below {{the buffers live at point 3 (memref.alloc) in memory space 3 need 1280 bytes, more than the capacity of 1024 bytes}}
  // expected-remark @below {{not poolable: memory-space}}
  // expected-note @below {{live here: memref<64xf32, 3> (256 bytes)}}
  %t = memref.alloc() : memref<64xf32, 3>
  linalg.fill ins(%v : f32) outs(%a : memref<64xf32>)
  linalg.fill ins(%v : f32) outs(%s : memref<256xf32, 3>)
  linalg.fill ins(%v : f32) outs(%t : memref<64xf32, 3>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %s : memref<256xf32, 3>
  memref.dealloc %t : memref<64xf32, 3>
  return
}
