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
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    if (uses.empty())
      continue;
    // The op of `block` that holds the use: the destination's result
    // dominates it, so it comes after `dest`.
    auto anchor = [&](OpOperand *use) {
      return block->findAncestorOpInBlock(*use->getOwner());
    };
    if (uses.size() == 1) {
      Operation *at = anchor(uses.front());
      if (at && at != dest && dest->getNextNode() != at) {
        dest->moveBefore(at);
        ++stats.sunk;
      }
      continue;
    }
    // Only where no use reads the destination: reading a tensor.empty is
    // undefined, but bufferization would hand such a read what another use
    // wrote into the shared buffer, and a program relying on that keeps it.
    if (llvm::any_of(uses, [&](OpOperand *use) {
          auto owner =
              dyn_cast<bufferization::BufferizableOpInterface>(use->getOwner());
          return !owner || owner.bufferizesToMemoryRead(*use, query.get());
        })) {
      ++stats.keptRead;
      continue;
    }
    // Every use gets its own clone, located at the op it is the destination
    // of (which is what the buffer will hold); the original goes.
    OpBuilder builder(dest->getContext());
    bool complete = true;
    for (OpOperand *use : uses) {
      Operation *at = anchor(use);
      if (!at) {
        complete = false;
        continue;
      }
      builder.setInsertionPoint(at);
      Operation *clone = builder.clone(*dest);
      clone->setLoc(use->getOwner()->getLoc());
      use->set(clone->getResult(0));
      ++stats.split;
    }
    if (complete && result.use_empty())
      dest->erase();
  }
  return stats;
}

} // namespace memplan
