//===- TensorQueries.cpp - What memplan's tensor rewrites ask -------------===//
//
// See TensorQueries.h.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace memplan {

bool isFreshDestination(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1 || !isMemoryEffectFree(op))
    return false;
  Value result = op->getResult(0);
  if (!isa<TensorType>(result.getType()) ||
      llvm::any_of(op->getOperandTypes(), [](Type t) { return isa<TensorType>(t); }))
    return false;
  auto bufferizable = dyn_cast<bufferization::BufferizableOpInterface>(op);
  return bufferizable && bufferizable.bufferizesToAllocation(result);
}

QueryState::QueryState(Operation *root) {
  state = std::make_unique<bufferization::OneShotAnalysisState>(root, options);
  state->addExtension<bufferization::func_ext::FuncAnalysisState>();
}

} // namespace memplan
