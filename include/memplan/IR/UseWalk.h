//===- UseWalk.h - The uses of values reached from a worklist ---*- C++ -*-===//
//
// The walk memplan's analyses share to follow a buffer's contents from use
// to use: the uses of the values on a worklist, and of those each use adds
// to it (an alias, a region argument, a result), every value once.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_USEWALK_H
#define MEMPLAN_IR_USEWALK_H

#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace memplan {

/// Whether `stop(use)` holds for a use of a value on `work`, or of a value
/// `stop` pushes onto `work` meanwhile; each value's uses are asked once, the
/// value pushed last first. The walk ends at the first use that stops it.
template <typename Stop>
bool anyUseReached(llvm::SmallVectorImpl<mlir::Value> &work, Stop stop) {
  llvm::SmallDenseSet<mlir::Value, 8> seen;
  while (!work.empty()) {
    mlir::Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (mlir::OpOperand &use : v.getUses())
      if (stop(use))
        return true;
  }
  return false;
}

/// Calls `visit(use)` on every use anyUseReached would ask.
template <typename Visit>
void forEachUseReached(llvm::SmallVectorImpl<mlir::Value> &work, Visit visit) {
  anyUseReached(work, [&](mlir::OpOperand &use) {
    visit(use);
    return false;
  });
}

} // namespace memplan

#endif // MEMPLAN_IR_USEWALK_H
