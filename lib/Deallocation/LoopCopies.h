//===- LoopCopies.h - A loop's copied init, made where it runs --*- C++ -*-===//
//
// A step of memplan-buffer-deallocation (its copy-where-loops-run option),
// on bufferized IR before the ownership analysis. Bufferization copies a
// loop's init when the loop writes its iteration argument and the init's
// buffer is read later: a fresh allocation, a copy of the source into it,
// and the loop starting from it, in that order in one block of the function
// body. The copy is needed only where the loop makes a trip: where it makes
// none, its results are its inits, and the source itself serves as well as
// its copy if nothing writes either of them afterwards. The step makes the
// allocation and the copy in an scf.if on the loop's bounds (some trip may
// run) and hands the loop the source itself in the other branch; the loop's
// result is then owned on the paths that copied only, which the
// deallocation handles (a run-time flag; a copy at a return).
//
// Legality, checked through interfaces, else the IR is left as it was:
// - the allocation (an op whose one effect is Allocate on its one result)
//   has two uses, the copy's target (CopyOpInterface) and one init of the
//   loop; the source has the allocation's type;
// - the loop (LoopLikeOpInterface) has one induction variable, one lower
//   and one upper bound, a constant positive step, a trip count not known
//   to be positive, and lies in the copy's block, after it; that block is a
//   block of the function body in no loop (of regions or of branches);
// - every value that may point into the source's buffer (forward from its
//   root, an allocation or a function argument, through the views and casts
//   it is taken from) and into one of the loop's results outside the loop
//   is, outside the loop and the copy, written or freed by no op that may
//   run after the copy (an op of the copy's block before it, or of a block
//   not reachable from it, may); an op whose effects on it are unknown does
//   not use it there; returns may use it (the deallocation returns a copy
//   of what the function does not own). Distinct function arguments do not
//   alias, as bufferization assumes.
// The condition is `lb < ub` compared both signed and unsigned (the
// interface does not say which the loop uses): where the loop makes a trip
// its induction variable starts at the lower bound and stays below the
// upper one, so either comparison holds; where neither does, it makes none.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_DEALLOCATION_LOOPCOPIES_H
#define MEMPLAN_LIB_DEALLOCATION_LOOPCOPIES_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace memplan {

/// Makes each copy of a loop's init that may be made only where the loop
/// runs (see above) in an scf.if on the loop's bounds; returns how many.
int64_t copyWhereLoopsRun(mlir::Operation *root);

} // namespace memplan

#endif // MEMPLAN_LIB_DEALLOCATION_LOOPCOPIES_H
