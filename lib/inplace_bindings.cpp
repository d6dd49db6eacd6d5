//===- inplace_bindings.cpp - Python surface of the in-place core ---------===//
//
// `inplace_analyze(graph, ...)` runs the C++ analysis and returns an
// InplaceResult; python/memplan/inplace/fast.py decides when to use it and
// falls back to the Python reference when the core declines.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/inplace.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace memplan {
namespace {

using BytesView = nb::ndarray<nb::numpy, const uint8_t, nb::ndim<1>>;

BytesView view(const std::vector<uint8_t> &v, nb::handle owner) {
  size_t shape[1] = {v.size()};
  return BytesView(v.data(), 1, shape, owner);
}

}  // namespace

void registerInplaceBindings(nb::module_ &m) {
  using inplace::FuncFacts;
  using inplace::Result;
  nb::class_<FuncFacts>(m, "InplaceFuncFacts", "Boundary facts of one analyzed function.")
      .def_ro("func", &FuncFacts::func)
      .def_ro("access", &FuncFacts::access)
      .def_ro("equiv_annot", &FuncFacts::equivAnnot);
  nb::class_<Result>(m, "InplaceResult", "Decisions of the C++ in-place analysis.")
      .def_ro("ok", &Result::ok)
      .def_prop_ro("decline_op", [](const Result &r) { return r.decline.op; })
      .def_prop_ro("decline_reason", [](const Result &r) { return r.decline.reason; })
      .def_prop_ro("inplace", [](nb::handle self) { return view(nb::cast<const Result &>(self).inplace, self); })
      .def_prop_ro("decided", [](nb::handle self) { return view(nb::cast<const Result &>(self).decided, self); })
      .def_ro("scopes", &Result::scopes)
      .def_ro("facts", &Result::facts)
      .def_ro("conflicts", &Result::conflicts)
      .def_ro("copies", &Result::copies)
      .def_ro("copy_bytes", &Result::copyBytes)
      .def_ro("copy_count", &Result::copyCount);
  m.def(
      "inplace_analyze",
      [](const Graph &g, bool functionBoundaries, bool allowUnknownOps, bool allowReturnAllocsFromLoops,
         int heuristic, uint32_t seed, bool checkParallelRegions, bool planCopies) {
        inplace::Options o;
        o.functionBoundaries = functionBoundaries;
        o.allowUnknownOps = allowUnknownOps;
        o.allowReturnAllocsFromLoops = allowReturnAllocsFromLoops;
        o.heuristic = heuristic;
        o.fuzzerSeed = seed;
        o.checkParallelRegions = checkParallelRegions;
        o.planCopies = planCopies;
        return inplace::analyze(g, o);
      },
      nb::arg("graph"), nb::arg("function_boundaries"), nb::arg("allow_unknown_ops"),
      nb::arg("allow_return_allocs_from_loops"), nb::arg("heuristic"), nb::arg("seed"),
      nb::arg("check_parallel_regions") = true, nb::arg("plan_copies") = false,
      "One-Shot in-place analysis of the graph's module (0 bottom-up, 1 top-down, 2 fuzzer, 3 bottom-up-from-terminators).");
}

}  // namespace memplan
