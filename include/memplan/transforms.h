//===- transforms.h - memplan's rewrites of tensor programs -----*- C++ -*-===//
//
// Rewrites on MLIR's C++ API (lib/transforms/) that shape a tensor program
// for a low memory peak before bufferization. Each takes a module as an MLIR
// C API handle and returns what it did as plain counters, so the nanobind
// code (built with RTTI) never sees an MLIR C++ type.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_TRANSFORMS_H
#define MEMPLAN_TRANSFORMS_H

#include "mlir-c/IR.h"

#include <cstdint>

namespace memplan {

/// What `splitDestinations` did.
struct SplitDestinationsStats {
  int64_t split = 0; ///< Uses given a destination of their own.
  int64_t sunk = 0;  ///< Destinations moved down to their only user.
};

/// Gives every use of a fresh destination (a side-effect free op without
/// regions or tensor operands whose tensor result bufferizes to a new
/// allocation, as `tensor.empty`: BufferizableOpInterface) its own copy,
/// right before the user's ancestor in the destination's block, and moves a
/// destination with one user down to it. Tensor semantics are unchanged (the
/// op is pure); bufferization then allocates each buffer where it is first
/// written instead of where a shared destination stood.
SplitDestinationsStats splitDestinations(MlirOperation root);

} // namespace memplan

#endif // MEMPLAN_TRANSFORMS_H
