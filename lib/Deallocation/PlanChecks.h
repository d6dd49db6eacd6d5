//===- PlanChecks.h - What a deallocation plan asks of the IR ---*- C++ -*-===//
//
// The checks of a plan's places and values that both readers of a
// deallocation plan make before the rewrite (ApplyPlan.h) runs: the plan
// stated by attributes (PlanAttributes.cpp) and the plan stated as data
// (DeallocationPlan.cpp), each with its own messages. Each check is written
// once, here.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_DEALLOCATION_PLANCHECKS_H
#define MEMPLAN_LIB_DEALLOCATION_PLANCHECKS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace memplan {

/// Whether `op` is a return of `func` (not of a region nested in it).
bool isFunctionReturn(mlir::Operation *op, mlir::Operation *func);
/// Whether `op` has a memref operand at `position`.
bool isMemrefOperand(mlir::Operation *op, int64_t position);
/// Whether a free can go right after `op`: it is no terminator.
bool canFreeAfter(mlir::Operation *op);
/// Whether `op` is a branch (BranchOpInterface) with a successor
/// `successor`: a free can go on that edge, flags extend its operands.
bool isBranchSuccessor(mlir::Operation *op, int64_t successor);
/// Whether the rewrite can give `v` a run-time flag: an argument of a block
/// of `func` other than its entry, or a result of a region op
/// (RegionBranchOpInterface).
bool canCarryFlag(mlir::Value v, mlir::Operation *func);
/// Whether a flag list of this kind can extend `op`'s operands: a region
/// terminator's (RegionBranchTerminatorOpInterface; not `entry`, no
/// successor), a region op's entry operands (`entry`) or a branch's
/// successor.
bool flagListFits(mlir::Operation *op, bool entry, int64_t successor);

} // namespace memplan

#endif // MEMPLAN_LIB_DEALLOCATION_PLANCHECKS_H
