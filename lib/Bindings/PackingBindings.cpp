//===- PackingBindings.cpp - Python surface of the memory packer ----------===//
//
// Inputs arrive as int64 numpy arrays (python/memplan/reuse/packing.py converts
// lists); the packing itself runs without the GIL.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Reuse/Packing.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <tuple>

namespace nb = nanobind;

namespace memplan {
namespace {

using Int64In =
    nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Int64Out = nb::ndarray<nb::numpy, const int64_t, nb::ndim<1>>;

BufferSet bufferSet(const Int64In &starts, const Int64In &ends,
                    const Int64In &sizes) {
  if (starts.shape(0) != ends.shape(0) || starts.shape(0) != sizes.shape(0))
    throw std::invalid_argument(
        "starts, ends and sizes must have the same length, got " +
        std::to_string(starts.shape(0)) + ", " + std::to_string(ends.shape(0)) +
        ", " + std::to_string(sizes.shape(0)));
  return {starts.data(), ends.data(), sizes.data(), starts.shape(0)};
}

/// Binds `_core.<name>(starts, ends, sizes, alignment=64)`: `bound` of those
/// buffers, computed without the GIL.
template <typename Bound>
void bindBound(nb::module_ &m, const char *name, Bound bound, const char *doc) {
  m.def(
      name,
      [bound](const Int64In &starts, const Int64In &ends, const Int64In &sizes,
              int64_t alignment) {
        BufferSet b = bufferSet(starts, ends, sizes);
        nb::gil_scoped_release release;
        return bound(b, alignment);
      },
      nb::arg("starts"), nb::arg("ends"), nb::arg("sizes"),
      nb::arg("alignment") = 64, doc);
}

} // namespace

void registerPackingBindings(nb::module_ &m) {
  nb::class_<Packing>(m, "PackResult", "Offsets chosen by the memory packer.")
      .def_prop_ro(
          "offsets",
          [](nb::handle self) {
            const auto &off = nb::cast<const Packing &>(self).offsets;
            size_t shape[1] = {off.size()};
            return Int64Out(off.data(), 1, shape, self);
          },
          "Byte offset of each buffer (read-only int64 view).")
      .def_ro("pool_size", &Packing::poolSize)
      .def_ro("algorithm", &Packing::algorithm)
      .def_prop_ro("lower_bound",
                   [](const Packing &p) { return p.lowerBound.raw; })
      .def_prop_ro("lower_bound_aligned",
                   [](const Packing &p) { return p.lowerBound.aligned; })
      .def_ro("bound", &Packing::bound)
      .def_prop_ro("optimal", &Packing::optimal)
      .def_ro("search_work", &Packing::searchWork)
      .def_ro("search_budget", &Packing::searchBudget)
      .def_prop_ro(
          "per_algorithm",
          [](const Packing &p) {
            nb::dict d;
            for (const auto &[name, pool] : p.perAlgorithm)
              d[nb::str(name.c_str(), name.size())] = pool;
            return d;
          },
          "Pool size of each algorithm that was run.");

  m.attr("PACKING_ALGORITHMS") = packingAlgorithms();
  m.attr("PACKING_DEFAULT_BUDGET") = kDefaultSearchBudget;
  m.attr("PACKING_DEFAULT_CAPACITY_BUDGET") = kDefaultCapacityBudget;

  m.def(
      "pack",
      [](const Int64In &starts, const Int64In &ends, const Int64In &sizes,
         const std::string &algorithm, int64_t alignment, int64_t capacity,
         int64_t budget) {
        BufferSet b = bufferSet(starts, ends, sizes);
        nb::gil_scoped_release release;
        return pack(b, algorithm, alignment, PackOptions{capacity, budget});
      },
      nb::arg("starts"), nb::arg("ends"), nb::arg("sizes"),
      nb::arg("algorithm") = "best", nb::arg("alignment") = 64,
      nb::arg("capacity") = -1, nb::arg("budget") = -1,
      "Assign aligned byte offsets to buffers live over [start, end).");

  bindBound(
      m, "live_peak",
      [](const BufferSet &b, int64_t alignment) {
        LivePeak peak = livePeak(b, alignment);
        return std::make_tuple(peak.point, peak.raw, peak.aligned,
                               peak.buffers);
      },
      "(point, raw bytes, aligned bytes, buffers) where the aligned bound is "
      "reached.");
  bindBound(
      m, "pool_lower_bound",
      [](const BufferSet &b, int64_t alignment) {
        PoolLowerBound lb = poolLowerBound(b, alignment);
        return std::make_tuple(lb.raw, lb.aligned);
      },
      "(raw, aligned) lower bounds on the pool size.");

  m.def(
      "verify_packing",
      [](const Int64In &starts, const Int64In &ends, const Int64In &sizes,
         const Int64In &offsets, int64_t alignment, int64_t poolSize,
         int64_t limit) {
        BufferSet b = bufferSet(starts, ends, sizes);
        if (offsets.shape(0) != b.count)
          throw std::invalid_argument(
              "offsets must have one entry per buffer, got " +
              std::to_string(offsets.shape(0)) + " for " +
              std::to_string(b.count));
        std::vector<PackingViolation> found;
        {
          nb::gil_scoped_release release;
          found = verifyPacking(b, offsets.data(), alignment, poolSize, limit);
        }
        std::vector<std::tuple<std::string, int64_t, int64_t>> out;
        out.reserve(found.size());
        for (const PackingViolation &v : found)
          out.emplace_back(violationKindName(v.kind), v.first, v.second);
        return out;
      },
      nb::arg("starts"), nb::arg("ends"), nb::arg("sizes"), nb::arg("offsets"),
      nb::arg("alignment") = 64, nb::arg("pool_size") = -1,
      nb::arg("limit") = -1,
      "Violations as (kind, buffer, other buffer or -1) tuples.");
}

} // namespace memplan
