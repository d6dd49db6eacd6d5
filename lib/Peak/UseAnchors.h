//===- UseAnchors.h - Where a block's values are used -----------*- C++ -*-===//
//
// The tensor rewrites that give a value's uses a value of their own
// (memplan-split-destinations, memplan-recompute-cheap-values) ask the same
// question: which ops of the value's block hold its uses. A use nested in a
// region (a loop body, a branch) is held by the op of the block that holds
// that region; every use held by one op shares one new value placed right
// before that op, so a loop or a branch gets what the original gave it (one
// value before it), never one per nested use.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_PEAK_USEANCHORS_H
#define MEMPLAN_LIB_PEAK_USEANCHORS_H

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/SmallVector.h"

namespace memplan {

/// An op of the value's block and the uses of the value it holds (its own
/// operands, or operands of ops nested in its regions).
struct UseAnchor {
  mlir::Operation *op = nullptr;
  llvm::SmallVector<mlir::OpOperand *, 2> uses;
};

/// The uses of `value` grouped by the op of `block` that holds them, in the
/// block's order. Uses that no op of `block` holds (in another block of the
/// same region) go to `unanchored`.
llvm::SmallVector<UseAnchor>
useAnchors(mlir::Value value, mlir::Block *block,
           llvm::SmallVectorImpl<mlir::OpOperand *> &unanchored);

/// Whether some use reads the contents of `value`, directly or through
/// values that alias it without writing it (a cast, a reshape, a slice):
/// BufferizableOpInterface, an op that does not implement it reading.
bool contentsRead(mlir::Value value,
                  const mlir::bufferization::AnalysisState &state);

/// Points every use of `anchor` at `replacement`.
void redirectUses(const UseAnchor &anchor, mlir::Value replacement);

} // namespace memplan

#endif // MEMPLAN_LIB_PEAK_USEANCHORS_H
