//===- PlanAttributes.h - A deallocation plan in attributes -----*- C++ -*-===//
//
// memplan-test-apply-deallocation-plan: the rewrite of
// memplan-buffer-deallocation (lib/Deallocation/InsertDeallocs.cpp) applied
// to a plan (memplan/Deallocation/Ownership.h's FunctionPlan) that the IR
// states in attributes instead of the ownership analysis, so that lit tests
// pin down the rewrite alone. The plan is taken as given: checking that it
// frees every buffer once is the analysis' business (and
// memplan-verify-deallocation's).
//
// A function with a body is planned when it has
// `memplan.test_ownership = ["yes" | "no" | "dynamic", ...]`: the ownership of
// its handles 0, 1, ... Each handle is stated by exactly one memref value:
// - `memplan.test_handles = array<i64: ...>` on an op: per result, its handle
//   or -1;
// - `memplan.test_arguments = array<i64: ...>` on the first op of a block:
//   per block argument, its handle or -1.
// A dynamic handle needs a run-time flag: it is a block argument of a block
// other than the function's entry block or a result of a region op
// (RegionBranchOpInterface), whose flag the rewrite appends, or an op result
// whose op states `memplan.test_takes = array<i64: ...>` (an owning select:
// its flag is whether it is one of those handles' buffers).
//
// The flags appended to operand lists, one per flagged input of the
// successor, in input order (an entry is a handle, whose ownership it hands
// over, or -1: not owned):
// - `memplan.test_flags = array<i64: ...>` on a region terminator
//   (RegionBranchTerminatorOpInterface);
// - `memplan.test_entry_flags = array<i64: ...>` on a region op, for its
//   entry operands;
// - `memplan.test_successor_flags = [array<i64: ...>, ...]` on a branch
//   (BranchOpInterface), one list per successor.
//
// The frees, in walk order and, on one op, in this order:
// - `memplan.test_free_unselected = [array<i64: handle, select>, ...]`: right
//   after the op, where the select handle is not that buffer;
// - `memplan.test_free_after = array<i64: ...>`: right after the op (not a
//   terminator);
// - `memplan.test_free_at_start = array<i64: ...>` on a block's first op: at
//   the start of the block, before anything the rewrite puts there;
// - `memplan.test_free_before = array<i64: ...>`: right before the op;
// - `memplan.test_free_before_unless_returned = array<i64: ...>` on a return
//   of the function: right before it, where no copy of the return handed the
//   buffer to the caller (`take_over` below);
// - `memplan.test_free_on_edge = [array<i64: successor, handle>, ...]` on a
//   branch: on the edge to that successor (a block of its own).
// A dynamic handle is freed where its flag is set.
//
// The copies at a return of the function, in order:
// `memplan.test_copies = [{position = N, ...}, ...]`, each the operand at
// `position` copied, and with `unless_owned = handle`: only where that
// dynamic handle's flag is not set; `same_as = M`: as the operand at M (its
// copy, if it has one), cast to the type; `take_over = array<i64: ...>`:
// not where the operand is one of those handles' buffers, owned here, which
// the return then hands to the caller as it is.
//
// Every memplan.test_ attribute is removed once the plan is applied.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_PLANATTRIBUTES_H
#define MEMPLAN_DEALLOCATION_PLANATTRIBUTES_H

#include "memplan/Deallocation/Deallocation.h"

#include "mlir-c/IR.h"

namespace memplan {

/// Applies the plans the functions under `root` state in attributes. On a
/// malformed plan, emits a located error per defect and changes nothing:
/// returns false.
bool applyDeallocationPlanAttributes(MlirOperation root,
                                     DeallocationStats &stats);

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_PLANATTRIBUTES_H
