// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=0})' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-liveness{capacity=-4096})' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-transients{capacity=4k})' 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=4096,gpu:1024})' 2>&1 | FileCheck %s --check-prefix=BAD-SPACE
// RUN: not memplan-opt %s --pass-pipeline='builtin.module(memplan-memory-pipeline{capacity=3:1024,3:2048})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: memplan-opt %s --pass-pipeline='builtin.module(memplan-buffer-reuse{capacity=4096,3:1024})' | FileCheck %s --check-prefix=LIST

// The capacity option is checked when the pipeline is parsed: a value that is
// not a positive number of bytes (or a list of SPACE:N) is a one-line error
// naming it, and nothing runs.

// ZERO: error: option 'capacity' must be a positive number of bytes, got '0'
// ZERO-NEXT: failed to add `memplan-buffer-reuse` with options `capacity=0`
// NEGATIVE: error: option 'capacity' must be a positive number of bytes, got '-4096'
// WORD: error: option 'capacity' expects a number of bytes N or a list of SPACE:N, got '4k'
// BAD-SPACE: error: option 'capacity' expects an integer memory space before ':', got '4096,gpu:1024'
// TWICE: error: option 'capacity' gives memory space 3 twice in '3:1024,3:2048'

// A list of capacities per memory space, with one for the other spaces.
// LIST-LABEL: func @f
func.func @f() {
  return
}
