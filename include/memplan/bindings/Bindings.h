//===- Bindings.h - Pieces of the memplan._core Python module ---*- C++ -*-===//
//
// Each C++ component registers its own Python surface; module.cpp only calls
// these in turn.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_BINDINGS_BINDINGS_H
#define MEMPLAN_BINDINGS_BINDINGS_H

#include "mlir-c/IR.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>

namespace memplan {

/// A contiguous 1-d int32 array argument.
using Int32In = nanobind::ndarray<const int32_t, nanobind::ndim<1>,
                                  nanobind::c_contig, nanobind::device::cpu>;

/// The C API handle in `capsule`, a capsule named `name` (the bindings'
/// `_CAPIPtr` convention: "mlir.ir.Operation._CAPIPtr", ...); raises the
/// Python error when it is not one.
inline void *capsulePointer(nanobind::handle capsule, const char *name) {
  void *ptr = PyCapsule_GetPointer(capsule.ptr(), name);
  if (!ptr)
    throw nanobind::python_error();
  return ptr;
}

/// The C API handle of an object that carries its capsule as `_CAPIPtr`
/// (an mlir.ir.Value, Type, ...).
inline void *objectPointer(nanobind::handle object, const char *name) {
  return capsulePointer(nanobind::getattr(object, "_CAPIPtr"), name);
}

/// The op of an `mlir.ir.Operation._CAPIPtr` capsule.
inline MlirOperation operationOf(nanobind::handle capsule) {
  return MlirOperation{capsulePointer(capsule, "mlir.ir.Operation._CAPIPtr")};
}

void registerAllocsToViewsBindings(nanobind::module_ &m);
void registerGraphBindings(nanobind::module_ &m);
void registerNumericsBindings(nanobind::module_ &m);
void registerPackingBindings(nanobind::module_ &m);
void registerLifetimesBindings(nanobind::module_ &m);
void registerRegistryBindings(nanobind::module_ &m);
void registerEngineBindings(nanobind::module_ &m);
void registerOptBindings(nanobind::module_ &m);
void registerTransformsBindings(nanobind::module_ &m);
} // namespace memplan

#endif // MEMPLAN_BINDINGS_BINDINGS_H
