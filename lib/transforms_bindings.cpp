//===- transforms_bindings.cpp - Python surface of memplan's rewrites -----===//
//
// Each rewrite of include/memplan/transforms.h takes a module (an operation
// capsule) and returns its counters as a dict. Python must hold no op
// handles inside the module across a call: ops are created and erased.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/graph.h"
#include "memplan/transforms.h"

#include <nanobind/ndarray.h>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace memplan {
namespace {

using Int32In = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

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
        out["kept_read"] = s.keptRead;
        return out;
      },
      nb::arg("module_capsule"),
      "Give every use of a fresh destination (tensor.empty) its own copy right before its "
      "user; returns {'split': uses given a copy, 'sunk': destinations moved to their user}.");
  m.def(
      "insert_deallocs",
      [](const Graph &g, const Int32In &allocs, const Int32In &after, bool manual) {
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
      "Insert memref.dealloc of each allocation op's result right after the given op (graph op "
      "ids); manual marks both with bufferization.manual_deallocation. The graph is stale after.");
  m.def(
      "reorder_for_memory",
      [](nb::handle capsule, bool functionBoundaries) {
        ReorderStats s = reorderForMemory(operationOf(capsule), functionBoundaries);
        nb::dict out;
        out["blocks"] = s.blocks;
        out["reordered"] = s.reordered;
        out["reverted"] = s.reverted;
        out["peak_before"] = s.peakBefore;
        out["peak_after"] = s.peakAfter;
        out["analyzed"] = s.analyzed;
        return out;
      },
      nb::arg("module_capsule"), nb::arg("function_boundaries") = true,
      "Reorder single-block function bodies for a lower modeled peak; returns {'blocks', "
      "'reordered', 'reverted', 'peak_before', 'peak_after', 'analyzed'}.");
  m.def(
      "reuse_dying_inputs",
      [](nb::handle capsule, bool functionBoundaries) {
        DyingInputStats s = reuseDyingInputs(operationOf(capsule), functionBoundaries);
        nb::dict out;
        out["candidates"] = s.candidates;
        out["reused"] = s.reused;
        out["rejected"] = s.rejected;
        out["analyzed"] = s.analyzed;
        return out;
      },
      nb::arg("module_capsule"), nb::arg("function_boundaries") = true,
      "Let elementwise ops write into an input that dies there where the in-place analysis "
      "allows it; returns {'candidates', 'reused', 'rejected', 'analyzed'}.");
}

} // namespace memplan
