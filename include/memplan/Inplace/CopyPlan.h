//===- CopyPlan.h - The copies an analyzed state asks for -------*- C++ -*-===//
//
// What upstream's copy insertion (insertTensorCopies ->
// resolveTensorOpOperandConflicts) would materialize for each out-of-place
// tensor operand of an analyzed OneShotAnalysisState, without touching the
// IR: the value copied, whether an allocation suffices (canOmitTensorCopy),
// and its byte size.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_COPYPLAN_H
#define MEMPLAN_INPLACE_COPYPLAN_H

#include "memplan/Inplace/InterfaceEngine.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"

#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace memplan {

/// Bytes of a statically shaped ranked tensor or memref type, with element
/// sizes as LLVM's default data layout allocates them (lifetimes/sizes.py):
/// -1 when the shape is dynamic or the element type is not modeled.
int64_t staticTypeBytes(mlir::Type type);

/// The copy of out-of-place `operand`, or false if upstream's copy insertion
/// skips its op (not allowed or not bufferizable: an unknown op keeps its
/// tensor operand, nothing is copied). `describe` numbers values. When
/// `state` did not record undefined tensor uses, `undefinedUses` holds them.
bool planCopy(mlir::OpOperand &operand,
              const mlir::bufferization::OneShotAnalysisState &state,
              const std::function<EngineValue(mlir::Value)> &describe,
              EngineCopy &copy,
              const llvm::DenseSet<mlir::OpOperand *> *undefinedUses = nullptr);

} // namespace memplan

#endif // MEMPLAN_INPLACE_COPYPLAN_H
