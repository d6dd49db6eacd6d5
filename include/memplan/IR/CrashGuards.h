//===- CrashGuards.h - Inputs upstream's analysis crashes on ----*- C++ -*-===//
//
// The interface engine asks upstream's interface implementations the same
// questions upstream's analysis asks, so it would crash where upstream
// crashes (MLIR 22, assertion-enabled wheel). These checks find those inputs
// first and stop with a located error instead.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_CRASHGUARDS_H
#define MEMPLAN_IR_CRASHGUARDS_H

#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"

#include "llvm/ADT/DenseMap.h"

namespace memplan {

/// With unstructured control flow or tensor ops in a graph region: a result
/// whose reverse use-def chain loops back to itself (upstream recurses
/// without end asking whether it bufferizes to a memory write). With
/// `outsideFunctions`, only the ops of `scope` that are not in a function
/// (upstream's rewrite with function boundaries bufferizes them unanalyzed).
mlir::LogicalResult checkRecursiveDefinitions(
    mlir::Operation *scope,
    const mlir::bufferization::OneShotAnalysisState &state,
    bool outsideFunctions = false);

/// A call whose analyzed callee returns, as its only alias of an argument, a
/// result equivalent to another argument (upstream's func.call model asserts).
mlir::LogicalResult checkCallBoundaries(
    mlir::Operation *scope,
    const mlir::bufferization::func_ext::FuncAnalysisState &funcState);

/// A non-branch op forwarding tensors to a block (upstream's rewrite with
/// function boundaries asserts).
mlir::LogicalResult checkNonBranchSuccessors(mlir::Operation *root);

/// A function upstream's ownership-based deallocation crashes on (MLIR 22,
/// SIGSEGV in DeallocationState::getMemrefsToRetain): a result of a
/// RegionBranchOpInterface op used in another block than the op's (the pass
/// replaces the op to append ownership results, and its liveness of the
/// branch that ends the block still holds the erased result). A located
/// error per such op.
mlir::LogicalResult checkOwnershipDeallocationInput(mlir::Operation *func);

/// Whether upstream's ValueBoundsConstraintSet may be asked about values
/// (MLIR 22 asserts, "unstructured control flow is not supported", when its
/// traversal reaches an argument of a block that is not its region's entry
/// block). Under an op isolated from above without such a block the answer
/// is yes at once (remembered per op); otherwise the values' backward slice
/// is walked: operands, the values nested ops use, and the operands of the
/// ops whose region arguments it reaches.
class ValueBoundsGuard {
public:
  bool canAsk(llvm::ArrayRef<mlir::Value> values);

private:
  bool hasSuccessorBlocks(mlir::Operation *isolated);

  llvm::DenseMap<mlir::Operation *, bool> successorBlocks;
};

} // namespace memplan

#endif // MEMPLAN_IR_CRASHGUARDS_H
