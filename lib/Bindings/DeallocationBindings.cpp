//===- DeallocationBindings.cpp - Deallocation plans, checker, test pass --===//
//
// `_core.DeallocationPlan`, `_core.Ownership`, `_core.FreePlace`: one
// function's deallocation plan as plain data
// (memplan/Deallocation/DeallocationPlan.h), bound like the pool and
// transient edits (EditClasses.h). `_core.plan_deallocation(graph)`: the
// ownership analysis' plans, the IR unchanged;
// `_core.check_deallocation_plan(graph, plan)` raises on a malformed plan;
// `_core.apply_deallocation_plan(graph, plan)` checks it, then applies it
// (memplan-buffer-deallocation's rewrite of one function).
// `_core.verify_deallocation(op_capsule)`: the issues of
// memplan/Deallocation/DeallocationVerifier.h as tuples
// (kind, location capsule, message, [(location capsule, note)]); Python
// makes mlir.ir.Location objects of the capsules.
// `_core.apply_deallocation_plan_attributes(op_capsule)`: the rewrite of a
// plan stated by attributes (memplan/Deallocation/PlanAttributes.h).
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Deallocation/DeallocationPlan.h"
#include "memplan/Deallocation/DeallocationVerifier.h"
#include "memplan/Deallocation/PlanAttributes.h"
#include "memplan/IR/Graph.h"

#include "EditClasses.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace memplan {
namespace {

nb::object locationCapsule(MlirLocation loc) {
  return nb::steal(PyCapsule_New(const_cast<void *>(loc.ptr),
                                 "mlir.ir.Location._CAPIPtr", nullptr));
}

/// Raises the plan's first defect: IndexError (an id out of range),
/// TypeError (an id of the wrong kind), ValueError (anything else).
void checkPlan(const Graph &g, const DeallocationPlan &plan) {
  std::optional<PlanDefect> defect = checkDeallocationPlan(g, plan);
  if (!defect)
    return;
  std::string message = "deallocation plan: " + defect->message;
  switch (defect->kind) {
  case PlanDefect::Index:
    throw nb::index_error(message.c_str());
  case PlanDefect::Type:
    throw nb::type_error(message.c_str());
  case PlanDefect::Value:
    throw nb::value_error(message.c_str());
  }
}

/// A plan changes its function: another may follow in another function.
const edit_classes::Sequencing<DeallocationPlan, Graph> kPlans{
    edit_classes::kDeallocationPlan,
    [](const Graph &g, const DeallocationPlan &plan) -> std::optional<int32_t> {
      if (plan.function < 0 || plan.function >= g.numOps())
        return std::nullopt;
      return plan.function;
    },
    /*again=*/false};

/// checkPlan on a graph no edit has made stale for `plan`.
void checkFreshPlan(const Graph &g, const DeallocationPlan &plan) {
  if (std::optional<int32_t> function = kPlans.scope(g, plan))
    edit_classes::checkNotStale(g, kPlans, *function);
  checkPlan(g, plan);
}

/// The plans of the graph's IR, which no edit may have changed.
std::vector<DeallocationPlan> planFresh(const Graph &g) {
  if (!g.appliedEdits.empty())
    edit_classes::refuseStaleGraph();
  return planDeallocation(g);
}

} // namespace

void registerDeallocationBindings(nb::module_ &m) {
  {
    nb::enum_<Ownership> e(m, "Ownership",
                           "Who frees the buffer a handle holds.");
#define MEMPLAN_OWNERSHIP(Name, Py, Doc) e.value(#Py, Ownership::Name, Doc);
#include "memplan/Deallocation/DeallocationPlanFields.def"
  }
  {
    nb::enum_<FreePlace> e(m, "FreePlace", "Where a free goes.");
#define MEMPLAN_FREE_PLACE(Name, Py, Doc) e.value(#Py, FreePlace::Name, Doc);
#include "memplan/Deallocation/DeallocationPlanFields.def"
  }
  auto plan = edit_classes::bindEditClass<DeallocationPlan>(
      m, "DeallocationPlan",
      "One function's deallocation plan as plain data "
      "(memplan/Deallocation/DeallocationPlan.h): op, block and value ids of "
      "the Graph it was planned on, handles indices into `handles`");
#define MEMPLAN_DEALLOCATION_PLAN_FIELD(Field, Py, Init, Doc, ...)             \
  edit_classes::bindField<&DeallocationPlan::Field>(plan, #Py, Doc);
#include "memplan/Deallocation/DeallocationPlanFields.def"
  m.def("plan_deallocation", &planFresh, nb::arg("graph"),
        "The ownership analysis of memplan-buffer-deallocation on the IR of "
        "the graph: one DeallocationPlan per function with a body (its "
        "builtin.modules', nested ones included), in the graph's ids. The "
        "IR is not changed.");
  m.def("check_deallocation_plan", &checkFreshPlan, nb::arg("graph"),
        nb::arg("plan"),
        "Check a DeallocationPlan against the graph: IndexError for an id "
        "out of range, TypeError for one of the wrong kind (a handle that is "
        "no memref, a flag list on an op of the wrong interface, ...), "
        "ValueError for any other defect, a left function or return "
        "forwards included.");
  edit_classes::bindApply<DeallocationPlan, checkPlan, applyDeallocationPlan,
                          Graph>(
      m, "apply_deallocation_plan",
      "Apply one function's DeallocationPlan after checking it against the "
      "graph (check_deallocation_plan: a malformed plan raises and changes "
      "nothing): its flags, copies and frees, built by "
      "memplan-buffer-deallocation's rewrite. The graph must be the one the "
      "plan was made on: after an edit other than another function's plan "
      "has gone through it, or this function's, it is refused "
      "(ValueError). Returns the DeallocationStats of what it built.",
      kPlans, "plan");
  m.def(
      "verify_deallocation",
      [](nb::handle capsule) {
        std::vector<DeallocIssue> issues =
            verifyDeallocation(operationOf(capsule));
        nb::list out;
        for (const DeallocIssue &issue : issues) {
          nb::list notes;
          for (const auto &[loc, note] : issue.notes)
            notes.append(nb::make_tuple(locationCapsule(loc), note));
          out.append(nb::make_tuple(issue.kind, locationCapsule(issue.location),
                                    issue.message, notes));
        }
        return out;
      },
      nb::arg("op_capsule"),
      "Check that every heap buffer of the functions under the op is freed "
      "exactly once on every path, after its last use, and that nothing else "
      "is freed: [(kind, location capsule, message, [(location capsule, "
      "note)])].");
  m.def(
      "apply_deallocation_plan_attributes",
      [](nb::handle capsule) {
        DeallocationStats stats;
        bool ok = applyDeallocationPlanAttributes(operationOf(capsule), stats);
        return nb::make_tuple(ok, stats);
      },
      nb::arg("op_capsule"),
      "Apply the deallocation plans the functions under the op state in "
      "memplan.test_ attributes (memplan/Deallocation/PlanAttributes.h): "
      "(False after located errors, with nothing changed, or True, "
      "DeallocationStats).");
}

} // namespace memplan
