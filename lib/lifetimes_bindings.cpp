//===- lifetimes_bindings.cpp - Python surface of the lifetime kernel -----===//
//
// `analyze_lifetimes(graph, roots)` returns a dict of int32 numpy
// arrays (one entry per root); python/memplan/lifetimes/ wraps it.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/lifetimes.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

namespace nb = nanobind;

namespace memplan {
namespace {

using Int32In = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Int32Out = nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>;

Int32Out toArray(std::vector<int32_t> &&v) {
  auto *owned = new std::vector<int32_t>(std::move(v));
  nb::capsule owner(owned, [](void *p) noexcept { delete static_cast<std::vector<int32_t> *>(p); });
  size_t shape[1] = {owned->size()};
  return Int32Out(owned->data(), 1, shape, owner);
}

}  // namespace

void registerPoolViewBindings(nb::module_ &m);

void registerLifetimesBindings(nb::module_ &m) {
  registerPoolViewBindings(m);
  m.attr("LIFETIME_NUM_CPP_REASONS") = (int)kNumCppReasons;
  m.def(
      "analyze_lifetimes",
      [](const Graph &g, const Int32In &roots) {
        for (size_t i = 0; i < roots.shape(0); ++i) {
          int32_t v = roots.data()[i];
          if (v < 0 || v >= g.numValues() || g.valueOp[v] < 0)
            throw nb::index_error("root must be an op result value id");
        }
        LifetimeTable t;
        {
          nb::gil_scoped_release release;
          t = analyzeLifetimes(g, roots.data(), roots.shape(0));
        }
        nb::dict d;
        d["op"] = toArray(std::move(t.op));
        d["value"] = toArray(std::move(t.value));
        d["start"] = toArray(std::move(t.start));
        d["end"] = toArray(std::move(t.end));
        d["last_use"] = toArray(std::move(t.lastUse));
        d["dealloc"] = toArray(std::move(t.dealloc));
        d["scope"] = toArray(std::move(t.scope));
        d["reasons"] = toArray(std::move(t.reasons));
        d["num_uses"] = toArray(std::move(t.numUses));
        d["seg_begin"] = toArray(std::move(t.segBegin));
        d["seg_start"] = toArray(std::move(t.segStart));
        d["seg_end"] = toArray(std::move(t.segEnd));
        return d;
      },
      nb::arg("graph"), nb::arg("roots"),
      "Live intervals, deallocs, scopes and rejection reasons of root values.");
}

}  // namespace memplan
