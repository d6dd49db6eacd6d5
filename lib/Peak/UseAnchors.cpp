//===- UseAnchors.cpp - Where a value is used, seen from its block --------===//
//
// See UseAnchors.h.
//
//===----------------------------------------------------------------------===//

#include "UseAnchors.h"

#include "memplan/IR/UseWalk.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace memplan {

SmallVector<UseAnchor> useAnchors(Value value, Block *block,
                                  SmallVectorImpl<OpOperand *> &unanchored) {
  SmallVector<UseAnchor> anchors;
  llvm::SmallDenseMap<Operation *, unsigned, 8> index;
  for (OpOperand &use : value.getUses()) {
    Operation *at = block->findAncestorOpInBlock(*use.getOwner());
    if (!at) {
      unanchored.push_back(&use);
      continue;
    }
    auto [it, inserted] = index.try_emplace(at, anchors.size());
    if (inserted)
      anchors.push_back(UseAnchor{at, {}});
    anchors[it->second].uses.push_back(&use);
  }
  // Block order (isBeforeInBlock numbers the block's ops once).
  llvm::sort(anchors, [](const UseAnchor &a, const UseAnchor &b) {
    return a.op->isBeforeInBlock(b.op);
  });
  return anchors;
}

bool contentsRead(Value value, const bufferization::AnalysisState &state) {
  SmallVector<Value> work{value};
  return anyUseReached(work, [&](OpOperand &use) {
    if (!state.getOptions().dynCastBufferizableOp(use.getOwner()) ||
        state.bufferizesToMemoryRead(use))
      return true;
    if (!state.bufferizesToMemoryWrite(use))
      for (const bufferization::AliasingValue &alias :
           state.getAliasingValues(use))
        work.push_back(alias.value);
    return false;
  });
}

void redirectUses(const UseAnchor &anchor, Value replacement) {
  for (OpOperand *use : anchor.uses)
    use->set(replacement);
}

} // namespace memplan
