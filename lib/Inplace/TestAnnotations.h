//===- TestAnnotations.h - One-Shot Analysis' test annotations --*- C++ -*-===//
//
// What `one-shot-bufferize{test-analysis-only}` and `dump-alias-sets` write
// into the IR after analyzing a scope, byte for byte as upstream writes it.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_INPLACE_TESTANNOTATIONS_H
#define MEMPLAN_LIB_INPLACE_TESTANNOTATIONS_H

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"

namespace memplan {

/// `__inplace_operands_attr__` on every op of `scope` with tensor operands.
void annotateInPlaceOperands(
    mlir::Operation *scope,
    const mlir::bufferization::OneShotAnalysisState &state);

/// `__opresult_alias_set_attr__` / `__bbarg_alias_set_attr__` on the ops of
/// `scope`: the alias set of every tensor result and block argument.
void annotateAliasSets(mlir::Operation *scope,
                       const mlir::bufferization::OneShotAnalysisState &state);

} // namespace memplan

#endif // MEMPLAN_LIB_INPLACE_TESTANNOTATIONS_H
