// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=1088 remarks})' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=1088 remarks search-budget=18446744073709551615})' 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=1088 search-budget=0})' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=1088 search-budget=1000})' 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: memplan-opt /dev/null --pass-pipeline='builtin.module(memplan-memory-pipeline{capacity=1088 search-budget=0})' --dump-pass-pipeline -o %t 2>&1 | FileCheck %s --check-prefix=PIPELINE

// Nine buffers of 64 to 256 bytes whose live bytes peak at 1088, the
// capacity. The packer's heuristics stop at 1152 bytes here; its exact search
// finds a packing in 1088 (the intervals of a packing instance that needs the
// search, written out like test/python/reuse/test_capacity.py's _program).

// With the default search budget, or the largest (past int64, the packer's
// own largest): one pool of exactly the capacity.
// DEFAULT: remark: pooled 9 allocations into 1088 bytes (lower bound 1088, exact, capacity 1088)
// DEFAULT: memref.alloc() {alignment = 64 : i64} : memref<1088xi8>

// With no exact search: the error at the function gives the smallest pool the
// heuristics found.
// NONE: :[[@LINE+4]]:1: error: memplan-buffer-reuse: no packing within 1088 bytes found: the smallest pool found is 1152 bytes (squeaky-wheel; lower bound 1088, proven bound 1088), the exact search did not run

// With too small a budget: the error also gives the steps spent.
// SMALL: :[[@LINE+1]]:1: error: memplan-buffer-reuse: no packing within 1088 bytes found: the smallest pool found is 1152 bytes (squeaky-wheel; lower bound 1088, proven bound 1088), after {{[0-9]+}} of 1000 search steps
func.func @search(%out: memref<64xi8>) {
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

// memplan-memory-pipeline passes the budget on to memplan-buffer-reuse.
// PIPELINE: memplan-buffer-reuse{algorithm=best alignment=64 capacity=1088 remarks=false search-budget=0}
