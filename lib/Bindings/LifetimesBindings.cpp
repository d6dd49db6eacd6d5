//===- LifetimesBindings.cpp - Python surface of the lifetime kernel ------===//
//
// `analyze_lifetimes(graph, roots)` returns a dict of int32 numpy
// arrays (one entry per root); python/memplan/lifetimes/ wraps it.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Lifetimes/Lifetimes.h"
#include "memplan/Reuse/PoolChains.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

namespace nb = nanobind;

namespace memplan {
namespace {

using Int32Out = nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>;
using Int64In =
    nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

Intervals intervals(const Int64In &start, const Int64In &end,
                    const Int64In &bytes) {
  size_t n = start.shape(0);
  if (end.shape(0) != n || bytes.shape(0) != n)
    throw nb::value_error("start, end and bytes differ in length");
  return Intervals{start.data(), end.data(), bytes.data(), n};
}

Int32Out toArray(std::vector<int32_t> &&v) {
  auto *owned = new std::vector<int32_t>(std::move(v));
  nb::capsule owner(owned, [](void *p) noexcept {
    delete static_cast<std::vector<int32_t> *>(p);
  });
  size_t shape[1] = {owned->size()};
  return Int32Out(owned->data(), 1, shape, owner);
}

} // namespace

void registerLifetimesBindings(nb::module_ &m) {
  {
    nb::enum_<LifetimeReason> e(
        m, "LifetimeReason", nb::is_arithmetic(),
        "Why an allocation is not pooled: bit numbers, in precedence order "
        "(memplan/Lifetimes/Lifetimes.h).");
#define MEMPLAN_LIFETIME_REASON(Name, Py, Doc) e.value(#Py, kReason##Name, Doc);
#include "memplan/Lifetimes/LifetimeReasons.def"
  }
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
#define MEMPLAN_LIFETIME_COLUMN(Field, Py) d[#Py] = toArray(std::move(t.Field));
#include "memplan/Lifetimes/LifetimeColumns.def"
        return d;
      },
      nb::arg("graph"), nb::arg("roots"),
      "Live intervals, deallocs, scopes and rejection reasons of root values.");
  m.def(
      "block_scopes",
      [](const Graph &g, bool pathSafe) {
        return toArray(blockScopes(g, pathSafe));
      },
      nb::arg("graph"), nb::arg("path_safe") = true,
      "The pooling scope block of each block (-1: none): see "
      "memplan/Lifetimes/Lifetimes.h.");
  m.def(
      "chain_pools",
      [](const Int64In &heapStart, const Int64In &heapEnd,
         const Int64In &heapBytes, const Int64In &start, const Int64In &end,
         const Int64In &bytes, int64_t numPoints, int64_t target,
         int32_t maxTries) {
        Intervals heap = intervals(heapStart, heapEnd, heapBytes);
        Intervals candidates = intervals(start, end, bytes);
        for (const Intervals *iv : {&heap, &candidates})
          for (size_t i = 0; i < iv->size; ++i)
            if (iv->start[i] < 0 || iv->end[i] > numPoints ||
                iv->start[i] > iv->end[i] || iv->bytes[i] < 0)
              throw nb::value_error(
                  "intervals must lie in [0, num_points) with bytes >= 0");
        std::vector<int32_t> chains;
        {
          nb::gil_scoped_release release;
          chains = chainPools(heap, candidates, numPoints, target, maxTries);
        }
        return toArray(std::move(chains));
      },
      nb::arg("heap_start"), nb::arg("heap_end"), nb::arg("heap_bytes"),
      nb::arg("start"), nb::arg("end"), nb::arg("bytes"), nb::arg("num_points"),
      nb::arg("target"), nb::arg("max_tries") = 16,
      "Chain id per candidate interval: chains of candidates that follow one "
      "another, formed only "
      "where the heap (heap_*, candidates included) plus the chains' gaps and "
      "growth stays at or "
      "below target at every point (memplan/Reuse/PoolChains.h).");
}

} // namespace memplan
