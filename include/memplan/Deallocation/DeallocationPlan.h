//===- DeallocationPlan.h - A deallocation plan as data ---------*- C++ -*-===//
//-*-===//
//
// The ownership analysis' plan of one function (memplan/Deallocation/
// Ownership.h's FunctionPlan) as plain data: op, block and value ids of a
// Graph (memplan/IR/Graph.h) instead of MLIR handles, so that it crosses to
// Python and back. planDeallocation runs the analysis (the IR is not
// changed) and states each function's plan so; applyDeallocationPlan turns
// one back into a FunctionPlan and applies it with the rewrite of
// memplan-buffer-deallocation (lib/Deallocation/ApplyPlan.h), after
// checkDeallocationPlan has found it well formed.
//
// Bound to Python as memplan._core.DeallocationPlan (fields in snake_case),
// memplan._core.plan_deallocation and memplan._core.apply_deallocation_plan
// (lib/Bindings/DeallocationBindings.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_DEALLOCATIONPLAN_H
#define MEMPLAN_DEALLOCATION_DEALLOCATIONPLAN_H

#include "memplan/Deallocation/Deallocation.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace memplan {

struct Graph;

/// Who frees the buffer a handle holds (DeallocationPlanFields.def).
enum class Ownership : uint8_t {
#define MEMPLAN_OWNERSHIP(Name, Py, Doc) Name,
#include "memplan/Deallocation/DeallocationPlanFields.def"
};

/// Where a free goes (DeallocationPlanFields.def).
enum class FreePlace : uint8_t {
#define MEMPLAN_FREE_PLACE(Name, Py, Doc) Name,
#include "memplan/Deallocation/DeallocationPlanFields.def"
};

/// The entries of a plan's lists, as DeallocationPlanFields.def describes
/// them.
using PlanFlagList = std::tuple<int32_t, bool, int32_t,
                                std::vector<std::pair<int32_t, Ownership>>>;
using PlanSelectFlag = std::pair<int32_t, std::vector<int32_t>>;
using PlanFree =
    std::tuple<int32_t, FreePlace, int32_t, int32_t, int32_t, bool>;
using PlanReturnCopy =
    std::tuple<int32_t, int32_t, int32_t, bool, int32_t, std::vector<int32_t>>;

/// One function's deallocation plan (its fields:
/// memplan/Deallocation/DeallocationPlanFields.def).
struct DeallocationPlan {
#define MEMPLAN_DEALLOCATION_PLAN_FIELD(Field, Py, Init, Doc, ...)             \
  __VA_ARGS__ Field = Init;
#include "memplan/Deallocation/DeallocationPlanFields.def"
};

/// The plan of every function with a body under the graph's root
/// (analyzeOwnership), in its ids. The IR is not changed.
std::vector<DeallocationPlan> planDeallocation(const Graph &g);

/// What makes a plan malformed: an id out of range, an id of the wrong
/// kind (a value that is no memref, an op of the wrong interface), or
/// another inconsistency.
struct PlanDefect {
  enum Kind { Index, Type, Value } kind;
  std::string message;
};

/// The first defect of `plan` against `g`, or nullopt when it is well
/// formed and can be applied (not left to upstream, no return forwards).
std::optional<PlanDefect> checkDeallocationPlan(const Graph &g,
                                                const DeallocationPlan &plan);

/// Applies `plan`, which checkDeallocationPlan found well formed, to the
/// IR of `g` (applyFunctionPlan): what it built.
DeallocationStats applyDeallocationPlan(const Graph &g,
                                        const DeallocationPlan &plan);

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_DEALLOCATIONPLAN_H
