//===- transforms_bindings.cpp - Python surface of memplan's rewrites -----===//
//
// Each rewrite of include/memplan/transforms.h takes a module (an operation
// capsule) and returns its counters as a dict. Python must hold no op
// handles inside the module across a call: ops are created and erased.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/transforms.h"

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace memplan {
namespace {

MlirOperation operationOf(nb::handle capsule) {
  void *ptr = PyCapsule_GetPointer(capsule.ptr(), "mlir.ir.Operation._CAPIPtr");
  if (!ptr)
    throw nb::python_error();
  return MlirOperation{ptr};
}

} // namespace

void registerTransformsBindings(nb::module_ &m) {
  m.def(
      "split_destinations",
      [](nb::handle capsule) {
        SplitDestinationsStats s = splitDestinations(operationOf(capsule));
        nb::dict out;
        out["split"] = s.split;
        out["sunk"] = s.sunk;
        return out;
      },
      nb::arg("module_capsule"),
      "Give every use of a fresh destination (tensor.empty) its own copy right before its "
      "user; returns {'split': uses given a copy, 'sunk': destinations moved to their user}.");
}

} // namespace memplan
