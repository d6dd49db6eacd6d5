//===- DeallocationBindings.cpp - Python surface of the dealloc checker ---===//
//
// `_core.verify_deallocation(op_capsule)`: the issues of
// memplan/Deallocation/DeallocationVerifier.h as tuples
// (kind, location capsule, message, [(location capsule, note)]); Python
// makes mlir.ir.Location objects of the capsules.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Deallocation/DeallocationVerifier.h"

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
}

} // namespace memplan
