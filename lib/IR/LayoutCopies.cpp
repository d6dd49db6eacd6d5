//===- LayoutCopies.cpp - Ops that only copy to a new layout --------------===//
//
// See include/memplan/IR/LayoutCopies.h.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/LayoutCopies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace memplan {

std::optional<AffineMap> layoutCopyMap(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp ||
      !(linalgOp.hasPureTensorSemantics() ||
        linalgOp.hasPureBufferSemantics()) ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getNumParallelLoops() != linalgOp.getNumLoops())
    return std::nullopt;
  OpOperand *input = linalgOp.getDpsInputOperand(0);
  if (!isa<ShapedType>(input->get().getType()))
    return std::nullopt; // A fill: a scalar input.
  Block *body = linalgOp.getBlock();
  if (!body || !llvm::hasSingleElement(*body))
    return std::nullopt;
  Operation *yield = body->getTerminator();
  if (yield->getNumOperands() != 1 ||
      yield->getOperand(0) != body->getArgument(0))
    return std::nullopt;
  AffineMap inputMap = linalgOp.getMatchingIndexingMap(input);
  AffineMap initMap =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
  if (!initMap.isPermutation() || !inputMap.isProjectedPermutation())
    return std::nullopt;
  return inputMap.compose(inversePermutation(initMap));
}

} // namespace memplan
