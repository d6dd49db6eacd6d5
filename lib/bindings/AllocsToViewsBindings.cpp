//===- AllocsToViewsBindings.cpp - Python entry of the view rewrites ------===//
//
// memplan._core.apply_pool_edit: the pool rewrite (memplan/reuse/rewrite.py)
// states a pool's edit as arrays, applied here in one call
// (transforms/PoolEdit.h). memplan._core.replace_allocs_with_views: transient
// emplacement (memplan/transients/emplace.py) builds the byte buffer and the
// offsets with the bindings, then passes them here as `mlir.ir.Value`s.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/bindings/Bindings.h"
#include "memplan/transforms/PoolEdit.h"
#include "memplan/transforms/Transforms.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <vector>

namespace nb = nanobind;

namespace memplan {
namespace {

/// A contiguous (n, 4) int64 array: a pool edit's steps.
using StepsIn =
    nb::ndarray<const int64_t, nb::shape<-1, 4>, nb::c_contig, nb::device::cpu>;
/// A contiguous (n, 3) int32 array: a pool edit's size operands.
using TriplesIn =
    nb::ndarray<const int32_t, nb::shape<-1, 3>, nb::c_contig, nb::device::cpu>;

MlirValue toValue(nb::handle value) {
  return MlirValue{objectPointer(value, "mlir.ir.Value._CAPIPtr")};
}

std::vector<int32_t> toVector(const Int32In &a) {
  return std::vector<int32_t>(a.data(), a.data() + a.shape(0));
}

bool isOp(const Graph &g, int32_t op) { return op >= 0 && op < g.numOps(); }

/// Checks the members of `views` (or of an edit, with `numOffsets` steps).
void checkMembers(const Graph &g, const std::vector<int32_t> &allocs,
                  const std::vector<int32_t> &deallocs,
                  const std::vector<int32_t> &offsetIndex,
                  const std::vector<int32_t> &erase, size_t numOffsets) {
  size_t n = allocs.size();
  if (deallocs.size() != n || offsetIndex.size() != n)
    throw nb::value_error("member arrays differ in length");
  for (size_t i = 0; i < n; ++i) {
    int32_t a = allocs[i], d = deallocs[i], k = offsetIndex[i];
    if (!isOp(g, a) || (d != -1 && !isOp(g, d)) || k < 0 ||
        (size_t)k >= numOffsets)
      throw nb::index_error("member op or offset index out of range");
    // A member is an allocation: a memref result, its dynamic sizes first.
    const TypeInfo *type =
        g.numResults[a] ? &g.types[g.valueType[g.resultBegin[a]]] : nullptr;
    if (!type || !type->isMemRef() ||
        std::count(type->shape.begin(), type->shape.end(), TypeInfo::kDynamic) >
            g.operandBegin[a + 1] - g.operandBegin[a])
      throw nb::value_error("a member is not a memref allocation");
  }
  for (int32_t op : erase)
    if (!isOp(g, op))
      throw nb::index_error("op to erase out of range");
}

/// Checks the steps of a pool edit: known kinds, operands earlier steps,
/// value ids in range, one pool.
void checkSteps(const Graph &g, const StepsIn &steps) {
  int pools = 0;
  for (size_t i = 0; i < steps.shape(0); ++i) {
    int64_t kind = steps(i, 0), a = steps(i, 1), b = steps(i, 2),
            c = steps(i, 3);
    auto earlier = [&](int64_t s) { return s >= 0 && (size_t)s < i; };
    bool ok = true;
    switch (static_cast<PoolStep>(kind)) {
    case PoolStep::Constant:
      break;
    case PoolStep::Value:
      ok = a >= 0 && a < g.numValues();
      break;
    case PoolStep::AddI:
    case PoolStep::MulI:
    case PoolStep::DivUI:
    case PoolStep::MaxUI:
    case PoolStep::CmpULT:
      ok = earlier(a) && earlier(b);
      break;
    case PoolStep::Select:
      ok = earlier(a) && earlier(b) && earlier(c);
      break;
    case PoolStep::Pool:
      ++pools;
      ok = a >= 0 || (a == -1 && earlier(b));
      break;
    default:
      ok = false;
    }
    if (!ok)
      throw nb::index_error("pool edit step with an unknown kind or an "
                            "operand out of range");
  }
  if (pools != 1)
    throw nb::value_error("a pool edit has exactly one pool step");
}

} // namespace

void registerAllocsToViewsBindings(nb::module_ &m) {
  {
    nb::enum_<PoolStep> e(m, "PoolStep", nb::is_arithmetic(),
                          "The steps of a pool edit's index program.");
#define MEMPLAN_POOL_STEP(Name, Py, Doc) e.value(#Py, PoolStep::Name, Doc);
#include "memplan/transforms/PoolSteps.def"
  }

  m.def(
      "apply_pool_edit",
      [](const Graph &g, int32_t insertBefore, int32_t deallocAfter,
         int64_t alignment, const Int32In &hoist, const TriplesIn &sizeOperands,
         const StepsIn &steps, const Int32In &allocs, const Int32In &deallocs,
         const Int32In &offsetStep, const Int32In &erase) {
        PoolEdit edit;
        edit.insertBefore = insertBefore;
        edit.deallocAfter = deallocAfter;
        edit.alignment = alignment;
        edit.hoist = toVector(hoist);
        for (size_t i = 0; i < sizeOperands.shape(0); ++i)
          edit.sizeOperands.push_back(
              {sizeOperands(i, 0), sizeOperands(i, 1), sizeOperands(i, 2)});
        for (size_t i = 0; i < steps.shape(0); ++i)
          edit.steps.push_back(
              {steps(i, 0), steps(i, 1), steps(i, 2), steps(i, 3)});
        edit.allocs = toVector(allocs);
        edit.deallocs = toVector(deallocs);
        edit.offsetStep = toVector(offsetStep);
        edit.erase = toVector(erase);

        if (!isOp(g, insertBefore) || !isOp(g, deallocAfter) || alignment < 1)
          throw nb::index_error("pool edit anchor out of range");
        for (int32_t op : edit.hoist)
          if (!isOp(g, op))
            throw nb::index_error("hoisted op out of range");
        for (auto [op, index, value] : edit.sizeOperands)
          if (!isOp(g, op) || index < 0 ||
              index >= (int32_t)(g.operandBegin[op + 1] - g.operandBegin[op]) ||
              value < 0 || value >= g.numValues())
            throw nb::index_error("size operand out of range");
        checkSteps(g, steps);
        checkMembers(g, edit.allocs, edit.deallocs, edit.offsetStep, edit.erase,
                     edit.steps.size());
        applyPoolEdit(g, edit);
      },
      nb::arg("graph"), nb::arg("insert_before"), nb::arg("dealloc_after"),
      nb::arg("alignment"), nb::arg("hoist"), nb::arg("size_operands"),
      nb::arg("steps"), nb::arg("allocs"), nb::arg("deallocs"),
      nb::arg("offset_step"), nb::arg("erase"),
      "Apply one pool's edit (memplan/transforms/PoolEdit.h): the size "
      "operands set, the hoisted ops moved, the steps created before "
      "insert_before, the pool freed after dealloc_after, each member a view "
      "at its offset step, the members' allocs and deallocs and `erase` "
      "erased.");

  m.def(
      "replace_allocs_with_views",
      [](const Graph &g, const Int32In &allocs, const Int32In &deallocs,
         nb::handle buffer, const std::vector<nb::object> &offsets,
         const Int32In &offsetIndex, const Int32In &erase) {
        AllocViews views{toVector(allocs),      toVector(deallocs),
                         toValue(buffer),       {},
                         toVector(offsetIndex), toVector(erase)};
        for (const nb::object &o : offsets)
          views.offsets.push_back(toValue(o));
        checkMembers(g, views.allocs, views.deallocs, views.offsetIndex,
                     views.erase, views.offsets.size());
        replaceAllocsWithViews(g, views);
      },
      nb::arg("graph"), nb::arg("allocs"), nb::arg("deallocs"), nb::arg("pool"),
      nb::arg("offsets"), nb::arg("offset_index"), nb::arg("erase"),
      "Replace each alloc by memref.view %pool[offsets[offset_index[i]]][its "
      "dynamic sizes], then erase the allocs, their deallocs and the ops in "
      "`erase`.");
}

} // namespace memplan
