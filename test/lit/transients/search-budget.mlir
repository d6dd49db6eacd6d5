// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-transients{capacity=1088})' | FileCheck %s --check-prefix=DEFAULT
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-transients{capacity=1088 search-budget=0})' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: memplan-opt /dev/null --pass-pipeline='builtin.module(memplan-transients{search-budget=0})' --dump-pass-pipeline -o %t 2>&1 | FileCheck %s --check-prefix=PIPELINE

// The nine buffers of test/lit/reuse/search-budget.mlir as transients: their
// live bytes peak at 1088, the capacity; the packer's heuristics stop at 1152
// bytes and its exact search finds a layout in 1088.

// With the default search budget: storage of exactly the capacity.
// DEFAULT-LABEL: func.func @search(
// DEFAULT-SAME:    memplan.transient_size = 1088 : index

// With no exact search: the error at the function gives the smallest layout
// the heuristics found.
// NONE: :[[@LINE+1]]:1: error: the transient storage of @search: no packing within 1088 bytes found: the smallest pool found is 1152 bytes (squeaky-wheel; lower bound 1088, proven bound 1088), the exact search did not run
func.func @search(%out: memref<64xi8>, %storage: memref<?xi8> {memplan.transients}) {
  %one = arith.constant 1 : i8
  %b8 = memref.alloc() : memref<256xi8>
  linalg.fill ins(%one : i8) outs(%b8 : memref<256xi8>)
  %b4 = memref.alloc() : memref<256xi8>
  linalg.fill ins(%one : i8) outs(%b4 : memref<256xi8>)
  %b1 = memref.alloc() : memref<256xi8>
  linalg.fill ins(%one : i8) outs(%b1 : memref<256xi8>)
  %s1 = memref.subview %b1[0] [64] [1] : memref<256xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s1, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b1 : memref<256xi8>
  %b6 = memref.alloc() : memref<64xi8>
  linalg.fill ins(%one : i8) outs(%b6 : memref<64xi8>)
  %b3 = memref.alloc() : memref<192xi8>
  linalg.fill ins(%one : i8) outs(%b3 : memref<192xi8>)
  %b2 = memref.alloc() : memref<256xi8>
  linalg.fill ins(%one : i8) outs(%b2 : memref<256xi8>)
  %s4 = memref.subview %b4[0] [64] [1] : memref<256xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s4, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b4 : memref<256xi8>
  %b7 = memref.alloc() : memref<192xi8>
  linalg.fill ins(%one : i8) outs(%b7 : memref<192xi8>)
  %b5 = memref.alloc() : memref<128xi8>
  linalg.fill ins(%one : i8) outs(%b5 : memref<128xi8>)
  %s5 = memref.subview %b5[0] [64] [1] : memref<128xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s5, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b5 : memref<128xi8>
  %s3 = memref.subview %b3[0] [64] [1] : memref<192xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s3, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b3 : memref<192xi8>
  %b0 = memref.alloc() : memref<256xi8>
  linalg.fill ins(%one : i8) outs(%b0 : memref<256xi8>)
  %s6 = memref.subview %b6[0] [64] [1] : memref<64xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s6, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b6 : memref<64xi8>
  %s0 = memref.subview %b0[0] [64] [1] : memref<256xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s0, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b0 : memref<256xi8>
  %s8 = memref.subview %b8[0] [64] [1] : memref<256xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s8, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b8 : memref<256xi8>
  %s2 = memref.subview %b2[0] [64] [1] : memref<256xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s2, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b2 : memref<256xi8>
  %s7 = memref.subview %b7[0] [64] [1] : memref<192xi8> to memref<64xi8, strided<[1]>>
  linalg.add ins(%s7, %out : memref<64xi8, strided<[1]>>, memref<64xi8>) outs(%out : memref<64xi8>)
  memref.dealloc %b7 : memref<192xi8>
  return
}

// memplan-transients passes the budget on to the passes that plan the storage.
// PIPELINE: memplan-verify-transient-storage{capacity= remarks=false search-budget=0}
// PIPELINE: memplan-emplace-transients{alignment=64 assert-size=true capacity= search-budget=0}
