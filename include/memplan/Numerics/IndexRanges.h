//===- IndexRanges.h - Integer arguments in bounds --------------*- C++ -*-===//
//
// For the numerics harness (python/memplan/numerics/signature.py): which
// values of a function's integer arguments keep its IR in bounds, read from
// MLIR's interfaces, never from op names:
//   - positions: the checks an op's RuntimeVerifiableOpInterface generates,
//     folded for probe values on a scratch copy, or the bare map operands of
//     an affine access (AffineReadOpInterface, AffineWriteOpInterface);
//   - sizes: a dynamic dimension of a result equal to the operand
//     (ValueBoundsOpInterface, else ReifyRankedShapedTypeOpInterface), or a
//     loop's upper bound (LoopLikeOpInterface);
//   - followed through CastOpInterface results, and from a structured op's
//     input to its matching block argument (LinalgOp).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_NUMERICS_INDEXRANGES_H
#define MEMPLAN_NUMERICS_INDEXRANGES_H

#include "mlir-c/IR.h"

#include <cstdint>
#include <vector>

namespace memplan {

/// Inclusive values of one argument that keep every use in bounds.
struct ArgumentRange {
  unsigned argument;
  int64_t lo;
  int64_t hi;
};

/// Ranges of the integer arguments (scalars, or elements of ranked shaped
/// values) of the function-like `func` (its entry block's arguments) that
/// have position or size uses; sizes are `[1, sizeLimit]`. The IR is left as
/// it was (probes run on scratch copies).
std::vector<ArgumentRange> indexArgumentRanges(MlirOperation func,
                                               int64_t sizeLimit);

} // namespace memplan

#endif // MEMPLAN_NUMERICS_INDEXRANGES_H
