//===- SplitDestinations.cpp - One fresh destination per use --------------===//
//
// See include/memplan/transforms/Transforms.h. Importers that CSE
// `tensor.empty` (torch-mlir's FX importer does) hand one destination to the
// same op in every layer; upstream bufferization then allocates one buffer
// where the first destination stood and keeps it live until the last layer.
// Giving each use its own destination, placed right before the op that writes
// it, lets bufferization allocate each buffer where its contents start.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "UseAnchors.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace memplan {
SplitDestinationsStats splitDestinations(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  SplitDestinationsStats stats;
  QueryState query(root);
  SmallVector<Operation *> destinations;
  root->walk([&](Operation *op) {
    if (isFreshDestination(op))
      destinations.push_back(op);
  });
  for (Operation *dest : destinations) {
    Block *block = dest->getBlock();
    Value result = dest->getResult(0);
    SmallVector<OpOperand *> unanchored;
    SmallVector<UseAnchor> anchors = useAnchors(result, block, unanchored);
    if (anchors.empty())
      continue;
    if (anchors.size() == 1) {
      Operation *at = anchors.front().op;
      if (at != dest && dest->getNextNode() != at) {
        dest->moveBefore(at);
        ++stats.sunk;
      }
      continue;
    }
    // Only where no use reads the destination, directly or through a view
    // (a cast, a reshape): reading a tensor.empty is undefined, but
    // bufferization would hand such a read what another use wrote into the
    // shared buffer, and a program relying on that keeps it.
    if (contentsRead(result, query.get())) {
      ++stats.keptRead;
      continue;
    }
    // Every op holding uses gets its own clone right before it, located at
    // the op it is the destination of (which is what the buffer will hold).
    // The uses one op holds share theirs: a loop or a branch gets one
    // destination before it, as upstream's bufferization allocates it, not
    // one per nested use (each held on every path, the loop's zero-trip one
    // included).
    OpBuilder builder(dest->getContext());
    for (const UseAnchor &anchor : anchors) {
      builder.setInsertionPoint(anchor.op);
      Operation *clone = builder.clone(*dest);
      clone->setLoc(anchor.uses.front()->getOwner()->getLoc());
      redirectUses(anchor, clone->getResult(0));
      ++stats.split;
    }
    if (result.use_empty())
      dest->erase();
  }
  return stats;
}

} // namespace memplan
