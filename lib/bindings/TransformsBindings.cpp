//===- TransformsBindings.cpp - Python surface of memplan's rewrites ------===//
//
// Each rewrite of include/memplan/transforms/Transforms.h takes a module (an
// operation capsule) and returns its counters as a dict. Python must hold no op
// handles inside the module across a call: ops are created and erased.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/bindings/Bindings.h"
#include "memplan/transforms/Transforms.h"

#include <nanobind/ndarray.h>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace memplan {
namespace {

MlirOperation operationOf(nb::handle capsule) {
  return MlirOperation{capsulePointer(capsule, "mlir.ir.Operation._CAPIPtr")};
}

} // namespace

void registerTransformsBindings(nb::module_ &m) {
  nb::class_<SplitDestinationsStats>(m, "SplitDestinationsStats",
                                     "What memplan-split-destinations did.")
      .def_ro("split", &SplitDestinationsStats::split,
              "Uses given a destination of their own.")
      .def_ro("sunk", &SplitDestinationsStats::sunk,
              "Destinations moved down to their only user.")
      .def_ro("kept_read", &SplitDestinationsStats::keptRead,
              "Shared destinations left shared: a use reads them.");
  nb::class_<DyingInputStats>(m, "DyingInputStats",
                              "What memplan-reuse-dying-inputs did.")
      .def_ro("candidates", &DyingInputStats::candidates)
      .def_ro("reused", &DyingInputStats::reused)
      .def_ro("rejected", &DyingInputStats::rejected)
      .def_ro("analyzed", &DyingInputStats::analyzed);
  nb::class_<ReorderStats>(m, "ReorderStats",
                           "What memplan-reorder-for-memory did.")
      .def_ro("blocks", &ReorderStats::blocks)
      .def_ro("reordered", &ReorderStats::reordered)
      .def_ro("reverted", &ReorderStats::reverted)
      .def_ro("peak_before", &ReorderStats::peakBefore)
      .def_ro("peak_after", &ReorderStats::peakAfter)
      .def_ro("analyzed", &ReorderStats::analyzed);
  m.def(
      "split_destinations",
      [](nb::handle capsule) {
        return splitDestinations(operationOf(capsule));
      },
      nb::arg("module_capsule"),
      "Give every use of a fresh destination (tensor.empty) its own copy right "
      "before its user.");
  m.def(
      "insert_deallocs",
      [](const Graph &g, const Int32In &allocs, const Int32In &after,
         bool manual) {
        size_t n = allocs.shape(0);
        if (after.shape(0) != n)
          throw nb::value_error("allocs and after differ in length");
        for (size_t i = 0; i < n; ++i)
          for (int32_t op : {allocs.data()[i], after.data()[i]})
            if (op < 0 || op >= g.numOps())
              throw nb::index_error("op id out of range");
        insertDeallocs(g, allocs.data(), after.data(), n, manual);
      },
      nb::arg("graph"), nb::arg("allocs"), nb::arg("after"), nb::arg("manual"),
      "Insert memref.dealloc of each allocation op's result right after the "
      "given op (graph op "
      "ids); manual marks both with bufferization.manual_deallocation. The "
      "graph is stale after.");
  m.def(
      "reorder_for_memory",
      [](nb::handle capsule, bool functionBoundaries) {
        return reorderForMemory(operationOf(capsule), functionBoundaries);
      },
      nb::arg("module_capsule"), nb::arg("function_boundaries") = true,
      "Reorder single-block function bodies for a lower modeled peak.");
  m.def(
      "reuse_dying_inputs",
      [](nb::handle capsule, bool functionBoundaries) {
        return reuseDyingInputs(operationOf(capsule), functionBoundaries);
      },
      nb::arg("module_capsule"), nb::arg("function_boundaries") = true,
      "Let elementwise ops write into an input that dies there where the "
      "in-place analysis "
      "allows it.");
}

} // namespace memplan
