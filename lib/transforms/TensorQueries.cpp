//===- TensorQueries.cpp - What memplan's tensor rewrites ask -------------===//
//
// See TensorQueries.h.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace memplan {

bool isFreshDestination(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isMemoryEffectFree(op))
    return false;
  Value result = op->getResult(0);
  if (!isa<TensorType>(result.getType()) ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return isa<TensorType>(t); }))
    return false;
  auto bufferizable = dyn_cast<bufferization::BufferizableOpInterface>(op);
  return bufferizable && bufferizable.bufferizesToAllocation(result);
}

EngineResult analyzeQuietly(Operation *root, bool functionBoundaries,
                            std::vector<std::pair<int32_t, int32_t>> deferred) {
  EngineOptions options;
  options.deferredOperands = std::move(deferred);
  options.analysisOnly = true;
  options.undefinedUses = false;
  options.bufferize = {{"bufferize-function-boundaries", functionBoundaries},
                       {"allow-unknown-ops", true}};
  ScopedDiagnosticHandler silence(root->getContext(),
                                  [](Diagnostic &) { return success(); });
  return runInterfaceEngine(wrap(root), options);
}

QueryState::QueryState(Operation *root) {
  state = std::make_unique<bufferization::OneShotAnalysisState>(root, options);
  state->addExtension<bufferization::func_ext::FuncAnalysisState>();
}

} // namespace memplan
