// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-buffer-liveness)' | FileCheck %s

// memplan-buffer-liveness prints, next to the dataflow bound, the floor of
// the heap in any op order (the buffers an op touches plus those whose
// contents must cross it), and the buffers live at the peak that a rewrite
// could leave out, with the bytes each would save.

#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A zero fill held across the peak for a later read: filled again before
// that read, it would not be live at the peak (4 KiB saved). %y, a copy of
// an argument, is held too but is not cheap to recompute. Neither needs to
// cross %t's ops in another order: the floor is %t alone. (%t negates, so
// that it is not a permuted copy: see permuted-copies.mlir.)

// CHECK-LABEL: liveness @fill_held_across_peak
//       CHECK:   bounds: {{.*}} dataflow bound 24576 (each buffer only while its contents are needed); floor in any order 16384 at linalg.generic
//  CHECK-NEXT:   peak at point 8, memref.alloc ({{.*}}stored.mlir:[[# @LINE + 10]]:8): %alloc_1 16384, %alloc 4096, %alloc_0 4096
//  CHECK-NEXT:   stored at the peak that a rewrite could leave out: 1 buffers, 4096 B
//  CHECK-NEXT:     %alloc (cheap to recompute, saves 4096 B): written whole by linalg.fill ({{.*}}stored.mlir:[[# @LINE + 5]]:3) from constants and scalars, read next by linalg.add ({{.*}}stored.mlir:[[# @LINE + 22]]:3)
//   CHECK-NOT:     %alloc_0 (
func.func @fill_held_across_peak(%a: memref<1024xf32>, %out: memref<1024xf32>, %out2: memref<1024xf32>) {
  %c0 = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%c0 : f32) outs(%z : memref<1024xf32>)
  %y = memref.alloc() : memref<1024xf32>
  linalg.copy ins(%a : memref<1024xf32>) outs(%y : memref<1024xf32>)
  %t = memref.alloc() : memref<4x1024xf32>
  linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1024xf32>) outs(%t : memref<4x1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["reduction", "parallel"]}
      ins(%t : memref<4x1024xf32>) outs(%out : memref<1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<4x1024xf32>
  linalg.add ins(%z, %y : memref<1024xf32>, memref<1024xf32>) outs(%out2 : memref<1024xf32>)
  memref.dealloc %z : memref<1024xf32>
  memref.dealloc %y : memref<1024xf32>
  return
}

// -----

#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// %x is written before %t and read after it, but no op of %t depends on
// it: in another order it never meets %t. The floor (16 KiB) is below the
// peak (20 KiB); %x is not cheap to recompute.

// CHECK-LABEL: liveness @order_avoids_peak
//       CHECK:   dataflow bound 20480 (each buffer only while its contents are needed); floor in any order 16384 at linalg.generic ({{.*}}stored.mlir:[[# @LINE + 6]]:3: 16384 touched, 0 in 0 buffers whose contents must cross it), at the peak's op linalg.generic ({{.*}}stored.mlir:[[# @LINE + 6]]:3) 16384
//   CHECK-NOT:   stored at the peak
func.func @order_avoids_peak(%a: memref<1024xf32>, %out: memref<1024xf32>, %out2: memref<1024xf32>) {
  %x = memref.alloc() : memref<1024xf32>
  linalg.copy ins(%a : memref<1024xf32>) outs(%x : memref<1024xf32>)
  %t = memref.alloc() : memref<4x1024xf32>
  linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1024xf32>) outs(%t : memref<4x1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["reduction", "parallel"]}
      ins(%t : memref<4x1024xf32>) outs(%out : memref<1024xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<4x1024xf32>
  linalg.add ins(%x, %out : memref<1024xf32>, memref<1024xf32>) outs(%out2 : memref<1024xf32>)
  memref.dealloc %x : memref<1024xf32>
  return
}
