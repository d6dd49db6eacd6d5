//===- RepeatedSuccessors.h - One block per tensor edge ---------*- C++ -*-===//
//
// A step of memplan-one-shot-bufferize before its analysis. Upstream's
// bufferization finds the operands a block argument receives through the
// branches that name its block (bufferization::detail::getCallerOpOperands),
// taking from each branch the operands of the first successor that is the
// block: a branch whose successors include one block twice, with other
// tensor operands on the second edge, is analyzed without that edge's
// aliases and bufferized into IR that does not verify (the block argument
// gets the first edge's buffer type). Giving each such later edge a block of
// its own, which branches on to the block with its arguments, makes every
// edge the first of its block; what runs is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_REPEATEDSUCCESSORS_H
#define MEMPLAN_INPLACE_REPEATEDSUCCESSORS_H

#include "mlir-c/IR.h"

#include <cstdint>

namespace memplan {

/// Splits, under `root`, each edge of a branch (BranchOpInterface) to a block
/// that an earlier successor of the same branch already names, when the edge
/// forwards a tensor: the edge goes to a new block, placed before the target,
/// with the target's argument types, holding one `cf.br` to the target.
/// Returns the edges split.
int64_t splitRepeatedSuccessors(MlirOperation root);

} // namespace memplan

#endif // MEMPLAN_INPLACE_REPEATEDSUCCESSORS_H
