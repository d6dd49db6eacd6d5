//===- pool_views.cpp - Replace pooled allocations by views of the pool ---===//
//
// The per-allocation part of the buffer-reuse rewrite, through the MLIR C API
// so that 100k allocations cost milliseconds: for each member, create
// `memref.view %pool[%offset][%dynamic sizes]` right before its alloc, replace
// the alloc's uses, then erase the alloc and its dealloc (if it has one: -1
// for members of a branch group, whose merged dealloc Python erases). Python
// creates the
// pool and the offset values first and passes them in as capsules.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings/Bindings.h"
#include "memplan/analysis/Graph.h"

#include "mlir-c/IR.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <unordered_set>
#include <vector>

namespace nb = nanobind;

namespace memplan {
namespace {

using Int32In = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

constexpr const char *kValueCapsuleName = "mlir.ir.Value._CAPIPtr";

MlirValue toValue(nb::handle obj) {
  nb::object capsule = nb::getattr(obj, "_CAPIPtr");
  void *ptr = PyCapsule_GetPointer(capsule.ptr(), kValueCapsuleName);
  if (!ptr)
    throw nb::python_error();
  return MlirValue{ptr};
}

void erase(MlirOperation op) {
  mlirOperationRemoveFromParent(op);
  mlirOperationDestroy(op);
}

}  // namespace

void registerPoolViewBindings(nb::module_ &m) {
  m.def(
      "replace_allocs_with_views",
      [](const Graph &g, const Int32In &allocs, const Int32In &deallocs, nb::handle pool,
         const std::vector<nb::object> &offsets, const Int32In &offsetIndex,
         const Int32In &numDynamic, const Int32In &keep) {
        size_t n = allocs.shape(0);
        if (deallocs.shape(0) != n || offsetIndex.shape(0) != n || numDynamic.shape(0) != n)
          throw std::invalid_argument("member arrays differ in length");
        MlirValue poolValue = toValue(pool);
        std::vector<MlirValue> offsetValues;
        for (const nb::object &o : offsets)
          offsetValues.push_back(toValue(o));
        std::unordered_set<int32_t> keepOps(keep.data(), keep.data() + keep.shape(0));
        for (size_t i = 0; i < n; ++i) {
          int32_t a = allocs.data()[i], d = deallocs.data()[i], k = offsetIndex.data()[i];
          if (a < 0 || a >= g.numOps() || d < -1 || d >= g.numOps() || k < 0 ||
              k >= (int32_t)offsetValues.size())
            throw std::out_of_range("member op or offset index out of range");
        }
        static const MlirStringRef viewName = mlirStringRefCreateFromCString("memref.view");
        std::vector<MlirValue> operands;
        for (size_t i = 0; i < n; ++i) {
          MlirOperation alloc{g.opPtr[allocs.data()[i]]};
          MlirValue result = mlirOperationGetResult(alloc, 0);
          MlirType type = mlirValueGetType(result);
          operands.clear();
          operands.push_back(poolValue);
          operands.push_back(offsetValues[offsetIndex.data()[i]]);
          for (int32_t j = 0; j < numDynamic.data()[i]; ++j)
            operands.push_back(mlirOperationGetOperand(alloc, j));
          MlirOperationState state = mlirOperationStateGet(viewName, mlirOperationGetLocation(alloc));
          mlirOperationStateAddOperands(&state, (intptr_t)operands.size(), operands.data());
          mlirOperationStateAddResults(&state, 1, &type);
          MlirOperation view = mlirOperationCreate(&state);
          mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(alloc), alloc, view);
          mlirValueReplaceAllUsesOfWith(result, mlirOperationGetResult(view, 0));
        }
        // Python may hold handles to the ops in `keep`; it erases those itself.
        for (size_t i = 0; i < n; ++i) {
          int32_t d = deallocs.data()[i], a = allocs.data()[i];
          if (d >= 0 && !keepOps.count(d))
            erase(MlirOperation{g.opPtr[d]});
          if (!keepOps.count(a))
            erase(MlirOperation{g.opPtr[a]});
        }
      },
      nb::arg("graph"), nb::arg("allocs"), nb::arg("deallocs"), nb::arg("pool"),
      nb::arg("offsets"), nb::arg("offset_index"), nb::arg("num_dynamic"), nb::arg("keep"),
      "Replace each alloc by memref.view %pool[offsets[offset_index[i]]][its dynamic sizes], "
      "then erase the allocs and deallocs (except the op ids in `keep`).");
}

}  // namespace memplan
