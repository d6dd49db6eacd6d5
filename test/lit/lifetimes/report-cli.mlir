// RUN: memplan report %s | FileCheck %s
// RUN: memplan report %s --plot %t.png --function branches 2>&1 | FileCheck %s --check-prefix=PLOT
// RUN: test -s %t.png
// RUN: not memplan report %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// `memplan report FILE` analyzes bufferized MLIR (or reads a JSON report)
// and prints the lifetime table; `--plot` draws the memory timeline. The two
// branches of the scf.if never run together, so one 256-byte pool serves
// all three buffers.

// CHECK-LABEL: liveness @branches: 3 allocations, 3 eligible
//       CHECK:   pool = 256 bytes ({{.*}}), lower bound 256 (aligned 256)
//       CHECK:   %alloc_0    256  [2, 4)
//       CHECK:   %alloc_0    128  [6, 7)
//       CHECK:   %alloc      128  [9, 10)

// PLOT: wrote {{.*}}.png
// MISSING: memplan report: {{.*}}missing

func.func @branches(%c: i1, %x: memref<64xf32>) {
  scf.if %c {
    %then = memref.alloc() : memref<64xf32>
    memref.copy %x, %then : memref<64xf32> to memref<64xf32>
    memref.dealloc %then : memref<64xf32>
  } else {
    %else = memref.alloc() : memref<32xf32>
    memref.dealloc %else : memref<32xf32>
  }
  %after = memref.alloc() : memref<32xf32>
  memref.dealloc %after : memref<32xf32>
  return
}
