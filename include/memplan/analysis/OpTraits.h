//===- OpTraits.h - Op traits asked from Python -----------------*- C++ -*-===//
//
// Traits Python code needs and the bindings do not expose (the Python side
// must not name ops to find them).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_OPTRAITS_H
#define MEMPLAN_ANALYSIS_OPTRAITS_H

#include "mlir-c/IR.h"

namespace memplan {

/// Whether `op` has the ConstantLike trait (`arith.constant`,
/// `llvm.mlir.constant`, `ub.poison`...): no operands, a value that folds.
bool isConstantLike(MlirOperation op);

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_OPTRAITS_H
