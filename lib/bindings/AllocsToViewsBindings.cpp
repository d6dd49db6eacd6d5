//===- AllocsToViewsBindings.cpp - Python entry of replaceAllocsWithViews -===//
//
// The pool rewrite (memplan/reuse/rewrite.py) and transient emplacement
// (memplan/transients/emplace.py) build the byte buffer and the offsets with
// the bindings, then pass them here as `mlir.ir.Value`s.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/bindings/Bindings.h"
#include "memplan/transforms/Transforms.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include <vector>

namespace nb = nanobind;

namespace memplan {
namespace {

MlirValue toValue(nb::handle value) {
  return MlirValue{objectPointer(value, "mlir.ir.Value._CAPIPtr")};
}

std::vector<int32_t> toVector(const Int32In &a) {
  return std::vector<int32_t>(a.data(), a.data() + a.shape(0));
}

} // namespace

void registerAllocsToViewsBindings(nb::module_ &m) {
  m.def(
      "replace_allocs_with_views",
      [](const Graph &g, const Int32In &allocs, const Int32In &deallocs,
         nb::handle buffer, const std::vector<nb::object> &offsets,
         const Int32In &offsetIndex, const Int32In &numDynamic,
         const Int32In &keep) {
        size_t n = allocs.shape(0);
        if (deallocs.shape(0) != n || offsetIndex.shape(0) != n ||
            numDynamic.shape(0) != n)
          throw nb::value_error("member arrays differ in length");
        AllocViews views{
            toVector(allocs),      toVector(deallocs),   toValue(buffer), {},
            toVector(offsetIndex), toVector(numDynamic), toVector(keep)};
        for (const nb::object &o : offsets)
          views.offsets.push_back(toValue(o));
        for (size_t i = 0; i < n; ++i) {
          int32_t a = views.allocs[i], d = views.deallocs[i];
          int32_t k = views.offsetIndex[i];
          if (a < 0 || a >= g.numOps() || d < -1 || d >= g.numOps() || k < 0 ||
              k >= (int32_t)views.offsets.size() || views.numDynamic[i] < 0 ||
              views.numDynamic[i] >
                  (int32_t)(g.operandBegin[a + 1] - g.operandBegin[a]))
            throw nb::index_error("member op, offset index or size count out "
                                  "of range");
        }
        replaceAllocsWithViews(g, views);
      },
      nb::arg("graph"), nb::arg("allocs"), nb::arg("deallocs"), nb::arg("pool"),
      nb::arg("offsets"), nb::arg("offset_index"), nb::arg("num_dynamic"),
      nb::arg("keep"),
      "Replace each alloc by memref.view %pool[offsets[offset_index[i]]][its "
      "dynamic sizes], then erase the allocs and deallocs (except the op ids "
      "in `keep`).");
}

} // namespace memplan
