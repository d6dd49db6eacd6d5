//===- ApplyPlan.h - Build what one function's plan says --------*- C++ -*-===//
//
// The rewrite of memplan-buffer-deallocation for one function
// (InsertDeallocs.cpp), shared by the pass, which applies the ownership
// analysis' plan, memplan-test-apply-deallocation-plan, which applies a
// plan stated by attributes (PlanAttributes.cpp), and
// memplan._core.apply_deallocation_plan, which applies a plan stated as data
// (DeallocationPlan.cpp). What both readers of a plan check of it:
// PlanChecks.h.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_DEALLOCATION_APPLYPLAN_H
#define MEMPLAN_LIB_DEALLOCATION_APPLYPLAN_H

#include "memplan/Deallocation/Deallocation.h"
#include "memplan/Deallocation/Ownership.h"

namespace memplan {

/// Builds `plan`'s flags, copies and frees in its function, counting them in
/// `stats`. The plan is trusted: every dynamic handle has a flag (a flagged
/// merge or a select flag), and every index is in range.
void applyFunctionPlan(FunctionPlan &plan, DeallocationStats &stats);

} // namespace memplan

#endif // MEMPLAN_LIB_DEALLOCATION_APPLYPLAN_H
