// RUN: memplan-opt %s --split-input-file --pass-pipeline='builtin.module(memplan-transients)' | FileCheck %s

// Transient storage plans branch groups like buffer reuse: the buffers the
// exclusive branches of an scf.if yield into one result share their bytes,
// and the merged dealloc goes. %tmp, live inside the then-branch with %a,
// gets other bytes: 512 bytes in all (the same as buffer reuse's pool), where
// three separate buffers would take 768.

// CHECK-LABEL: func @merged
//  CHECK-SAME:   memplan.transient_size = 512 : index
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C256:.*]] = arith.constant 256 : index
//       CHECK:   %[[R:.*]] = scf.if
//       CHECK:     memref.view %{{.*}}[%[[C256]]][] : memref<?xi8> to memref<64xf32>
//       CHECK:     memref.view %{{.*}}[%[[C0]]][] : memref<?xi8> to memref<64xf32>
//       CHECK:   } else {
//       CHECK:     memref.view %{{.*}}[%[[C0]]][] : memref<?xi8> to memref<64xf32>
//       CHECK:   }
//       CHECK:   memref.copy %[[R]], %{{.*}}
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @merged(%c: i1, %x: memref<64xf32>, %out: memref<64xf32>, %storage: memref<?xi8> {memplan.transients}) {
  %r = scf.if %c -> (memref<64xf32, strided<[?], offset: ?>>) {
    %tmp = memref.alloc() : memref<64xf32>
    linalg.exp ins(%x : memref<64xf32>) outs(%tmp : memref<64xf32>)
    %a = memref.alloc() : memref<64xf32>
    linalg.add ins(%tmp, %x : memref<64xf32>, memref<64xf32>) outs(%a : memref<64xf32>)
    memref.dealloc %tmp : memref<64xf32>
    %ca = memref.cast %a : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %ca : memref<64xf32, strided<[?], offset: ?>>
  } else {
    %b = memref.alloc() : memref<64xf32>
    linalg.negf ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
    %cb = memref.cast %b : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %cb : memref<64xf32, strided<[?], offset: ?>>
  }
  memref.copy %r, %out : memref<64xf32, strided<[?], offset: ?>> to memref<64xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %r : memref<64xf32, strided<[?], offset: ?>> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  return
}
