// RUN: memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=0" | FileCheck %s --check-prefix=NONE
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="buffer-alignment=0" > %t.up0
// RUN: memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=0" | diff - %t.up0
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="buffer-alignment=0x80" > %t.up128
// RUN: memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=0x80" | FileCheck %s --check-prefix=HEX
// RUN: memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=0x80" | diff - %t.up128
// RUN: mlir-opt %s --split-input-file -one-shot-bufferize="buffer-alignment=4294967296" > %t.upwide
// RUN: memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=4294967296" | diff - %t.upwide
// RUN: not mlir-opt %s --split-input-file -one-shot-bufferize="buffer-alignment=3" > %t.up3 2>&1
// RUN: not memplan-opt %s --split-input-file -memplan-one-shot-bufferize="buffer-alignment=3" 2>&1 | diff - %t.up3
// RUN: not memplan-opt %s -memplan-one-shot-bufferize="buffer-alignment=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not memplan-opt %s -memplan-one-shot-bufferize="analysis-fuzzer-seed=4294967296" 2>&1 | FileCheck %s --check-prefix=SEED

// buffer-alignment takes upstream's values with upstream's meaning: any
// unsigned 64-bit integer in LLVM's syntax (hexadecimal too), 0 for no
// alignment, copied into upstream's 32-bit field (2^32 is 0); an alignment
// that is not a power of two makes upstream's memref.alloc fail to verify,
// with upstream's diagnostics. A negative value is rejected when the
// pipeline is parsed, as upstream does, and so is a fuzzer seed beyond 32 bits.

// NEGATIVE: for the --buffer-alignment option: '-1' value invalid for ulong argument!
// SEED: for the --analysis-fuzzer-seed option: '4294967296' value invalid for uint argument!

// A new buffer without an alignment attribute, or with the hexadecimal one.
// NONE-LABEL: func.func @new_buffer
//       NONE:   memref.alloc() : memref<4xf32>
// HEX-LABEL: func.func @new_buffer
//       HEX:   memref.alloc() {alignment = 128 : i64} : memref<4xf32>
func.func @new_buffer(%f: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %0 = tensor.insert %f into %e[%c0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The copy of an out-of-place write, the same.
// NONE-LABEL: func.func @copy
//       NONE:   memref.alloc() : memref<4xf32>
//       NONE:   memref.copy
// HEX-LABEL: func.func @copy
//       HEX:   memref.alloc() {alignment = 128 : i64} : memref<4xf32>
func.func @copy(%t: tensor<4xf32>, %f: f32) -> (tensor<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %0 = tensor.insert %f into %t[%c0] : tensor<4xf32>
  %1 = tensor.extract %t[%c0] : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, f32
}
