// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// A subset copy at the heap peak is named only where its producers could
// write into the view instead (nothing reads the view's buffer from their
// first write to the copy) and where that lowers the heap peak, by the bytes
// named: the view's buffer is then held from the producers' first write on.

// The DenseNet pattern after memplan-buffer-reuse: the padded buffer reuses
// the concat's memory (one allocation, two views), and the producer of the
// padded value (a 1x1 convolution) reads the concat. It cannot write into
// the padded view, which is the concat's memory while it runs: not named.

// CHECK-LABEL: liveness @pool_slot_read_by_producer
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc 2048, %alloc_0 1024
//   CHECK-NOT:   {{subset copy|copied into a subset}}
//       CHECK:   name
func.func @pool_slot_read_by_producer(%x: memref<1x8x8x8xf32>, %w: memref<4x8x1x1xf32>, %out: memref<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %pool = memref.alloc() : memref<2048xi8>
  %concat = memref.view %pool[%c0][] : memref<2048xi8> to memref<1x8x8x8xf32>
  linalg.exp ins(%x : memref<1x8x8x8xf32>) outs(%concat : memref<1x8x8x8xf32>)
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%concat, %w : memref<1x8x8x8xf32>, memref<4x8x1x1xf32>) outs(%a : memref<1x4x8x8xf32>)
  %p = memref.view %pool[%c0][] : memref<2048xi8> to memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %pool : memref<2048xi8>
  return
}

// -----

// The same pool, its first contents last read before the producer runs:
// the padded view is free from the producer's first write (the fill) on,
// the pool is held there anyway, and the peak drops by the source's bytes.

// CHECK-LABEL: liveness @pool_slot_free
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc 2048, %alloc_0 1024
//  CHECK-NEXT:     %alloc_0 is copied into a subset of %alloc at {{.*}} and dies there: computing it in place frees 1024 B at the peak
//  CHECK-NEXT:   stored at the peak that a rewrite could leave out: 1 buffers, 1024 B
func.func @pool_slot_free(%x: memref<1x8x8x8xf32>, %y: memref<1x8x8x8xf32>, %w: memref<4x8x1x1xf32>, %out: memref<1x4x10x10xf32>, %out2: memref<1x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %pool = memref.alloc() : memref<2048xi8>
  %concat = memref.view %pool[%c0][] : memref<2048xi8> to memref<1x8x8x8xf32>
  linalg.exp ins(%x : memref<1x8x8x8xf32>) outs(%concat : memref<1x8x8x8xf32>)
  linalg.exp ins(%concat : memref<1x8x8x8xf32>) outs(%out2 : memref<1x8x8x8xf32>)
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<1x4x8x8xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%y, %w : memref<1x8x8x8xf32>, memref<4x8x1x1xf32>) outs(%a : memref<1x4x8x8xf32>)
  %p = memref.view %pool[%c0][] : memref<2048xi8> to memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %pool : memref<2048xi8>
  return
}

// -----

// A pad as upstream bufferizes it, its buffer allocated after the source is
// made: computed in place, the source's producer (a broadcast of a 256-byte
// buffer) would write the 1600-byte padded buffer while the 256 bytes it
// reads are live: 1856 bytes there, so the peak drops from 2624 by 768, not
// by the source's 1024.

// CHECK-LABEL: liveness @pad_held_from_producer
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc_1 1600, %alloc_0 1024
//  CHECK-NEXT:     %alloc_0 is copied into a subset of %alloc_1 at {{.*}} and dies there: computing it in place frees 768 B at the peak
//  CHECK-NEXT:   stored at the peak that a rewrite could leave out: 1 buffers, 768 B
func.func @pad_held_from_producer(%x: memref<1x8x8xf32>, %out: memref<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1x8x8xf32>
  linalg.exp ins(%x : memref<1x8x8xf32>) outs(%t : memref<1x8x8xf32>)
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.broadcast ins(%t : memref<1x8x8xf32>) outs(%a : memref<1x4x8x8xf32>) dimensions = [1]
  memref.dealloc %t : memref<1x8x8xf32>
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  return
}

// -----

// The same with a 1280-byte buffer read by the producer: holding the padded
// buffer from the producer on (2880 bytes there) would raise the peak
// (2624). Not named.

// CHECK-LABEL: liveness @pad_held_from_producer_raises_peak
//       CHECK:   peak at point {{[0-9]+}}, memref.alloc ({{.*}}): %alloc_1 1600, %alloc_0 1024
//   CHECK-NOT:   {{subset copy|copied into a subset}}
//       CHECK:   name
func.func @pad_held_from_producer_raises_peak(%x: memref<1x5x8x8xf32>, %out: memref<1x4x10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<1x5x8x8xf32>
  linalg.exp ins(%x : memref<1x5x8x8xf32>) outs(%t : memref<1x5x8x8xf32>)
  %four = memref.subview %t[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x5x8x8xf32> to memref<1x4x8x8xf32, strided<[320, 64, 8, 1]>>
  %a = memref.alloc() : memref<1x4x8x8xf32>
  linalg.exp ins(%four : memref<1x4x8x8xf32, strided<[320, 64, 8, 1]>>) outs(%a : memref<1x4x8x8xf32>)
  memref.dealloc %t : memref<1x5x8x8xf32>
  %p = memref.alloc() : memref<1x4x10x10xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x10x10xf32>)
  %interior = memref.subview %p[0, 0, 1, 1] [1, 4, 8, 8] [1, 1, 1, 1] : memref<1x4x10x10xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.copy %a, %interior : memref<1x4x8x8xf32> to memref<1x4x8x8xf32, strided<[400, 100, 10, 1], offset: 11>>
  memref.dealloc %a : memref<1x4x8x8xf32>
  linalg.exp ins(%p : memref<1x4x10x10xf32>) outs(%out : memref<1x4x10x10xf32>)
  memref.dealloc %p : memref<1x4x10x10xf32>
  return
}
