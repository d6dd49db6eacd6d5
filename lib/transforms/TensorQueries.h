//===- TensorQueries.h - What memplan's tensor rewrites ask the interfaces
//-===//
//
// The questions the tensor-level rewrites (lib/transforms/) share, answered
// by BufferizableOpInterface and the side-effect interfaces, never by op
// names. Compiled without RTTI against MLIR's C++ API.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_TRANSFORMS_TENSORQUERIES_H
#define MEMPLAN_TRANSFORMS_TENSORQUERIES_H

#include "memplan/analysis/InterfaceEngine.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/IR/Operation.h"

#include <memory>

namespace memplan {

/// A side-effect free op without regions or tensor operands whose one tensor
/// result bufferizes to a new allocation (`tensor.empty`): undefined
/// contents in a new buffer, which cloning duplicates (CSE undone).
bool isFreshDestination(mlir::Operation *op);

/// memplan's in-place analysis of the module under `root`, the IR
/// untouched and the diagnostics dropped (they belong to the bufferization
/// that follows, which reports them where the user asked for it): One-Shot
/// (Module, with `functionBoundaries`) Analysis with unknown ops allowed.
/// `deferred` operands (pre-order op id, operand number) are decided after
/// all the others (EngineOptions::deferredOperands).
EngineResult
analyzeQuietly(mlir::Operation *root, bool functionBoundaries,
               std::vector<std::pair<int32_t, int32_t>> deferred = {});

/// An analysis state for interface queries outside an analysis (aliasing
/// operands and values, reads and writes) on the IR under `root`: One-Shot's,
/// with an empty function-boundary extension, so that calls answer
/// conservatively instead of finding no state. Building it walks `root`
/// once.
class QueryState {
public:
  explicit QueryState(mlir::Operation *root);
  mlir::bufferization::OneShotAnalysisState &get() { return *state; }

private:
  mlir::bufferization::OneShotBufferizationOptions options;
  std::unique_ptr<mlir::bufferization::OneShotAnalysisState> state;
};

} // namespace memplan

#endif // MEMPLAN_TRANSFORMS_TENSORQUERIES_H
