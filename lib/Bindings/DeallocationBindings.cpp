//===- DeallocationBindings.cpp - The checker and the plan test pass ------===//
//
// `_core.verify_deallocation(op_capsule)`: the issues of
// memplan/Deallocation/DeallocationVerifier.h as tuples
// (kind, location capsule, message, [(location capsule, note)]); Python
// makes mlir.ir.Location objects of the capsules.
// `_core.apply_deallocation_plan_attributes(op_capsule)`: the rewrite of a
// plan stated by attributes (memplan/Deallocation/PlanAttributes.h).
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Deallocation/DeallocationVerifier.h"
#include "memplan/Deallocation/PlanAttributes.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace memplan {
namespace {

nb::object locationCapsule(MlirLocation loc) {
  return nb::steal(PyCapsule_New(const_cast<void *>(loc.ptr),
                                 "mlir.ir.Location._CAPIPtr", nullptr));
}

} // namespace

void registerDeallocationBindings(nb::module_ &m) {
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
