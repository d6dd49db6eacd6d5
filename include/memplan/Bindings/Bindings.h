//===- Bindings.h - Pieces of the memplan._core Python module ---*- C++ -*-===//
//
// Each C++ component registers its own Python surface; module.cpp only calls
// these in turn.
//
// The GIL rules of these bindings:
// - Python is entered (a hook, an object made) only with the GIL held: every
//   hook MLIR calls (lib/Bindings/RegistryBindings.cpp: run, checkOptions,
//   expand) takes it first, whatever thread the pass manager runs it on.
// - The GIL is released only around C++ that cannot reach Python: packing
//   and lifetime tables (plain arrays), or MLIR work under a DiagnosticHold
//   (memplan/Passes/HeldDiagnostics.h), taken with the GIL held and emitted
//   once it is held again. MLIR reaches Python only through the diagnostic
//   handlers the Python bindings attach to a context, which do not take the
//   GIL themselves: held back, they run with it. Passes in a released
//   section that are Python take the GIL in their hook.
// - A release around MLIR code that may run memplan passes (memplan-opt's
//   driver, a nested pipeline, memplan.run_pipeline's run) is needed, and is
//   an MlirWithoutGil: the pass manager may run those passes on its worker
//   threads, which would wait forever for a GIL held by the thread waiting
//   for them. Where a caller holds the GIL all along (upstream's
//   PassManager.run) and MLIR runs a memplan pass on a worker thread (a
//   memplan pass anchored on several nested modules), the pass fails with a
//   located error instead of waiting forever.
// The releases: PackingBindings (pack, bounds, verify_packing),
// LifetimesBindings (analyze_lifetimes, chain_pools: arrays only),
// GraphBindings (print_asm, held), RegistryBindings (a nested pipeline,
// held), OptBindings (opt_main: MlirOptMain's own contexts, whose handlers
// are its C++ ones; memplan passes take the GIL in their hook).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_BINDINGS_BINDINGS_H
#define MEMPLAN_BINDINGS_BINDINGS_H

#include "memplan/Passes/OptionValues.h"

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

/// Releases the GIL for MLIR work that may run memplan passes (a pass
/// manager's run) and marks that a thread waits for it without the GIL: the
/// passes MLIR runs meanwhile on its worker threads may take the GIL. A
/// worker thread finding no such section knows that the GIL may be held by
/// the thread waiting for it (upstream's `PassManager.run` holds it) and
/// fails the pass instead of waiting forever (RegistryBindings.cpp).
class MlirWithoutGil {
public:
  MlirWithoutGil() = default;
  MlirWithoutGil(const MlirWithoutGil &) = delete;
  MlirWithoutGil &operator=(const MlirWithoutGil &) = delete;
  /// Whether some thread is in such a section now.
  static bool active();

private:
  struct Count {
    Count();
    ~Count();
  };
  Count count; // before the release: counted while the GIL is released
  nanobind::gil_scoped_release release;
};

/// The values of `options`, a dict by option name in either spelling
/// (`buffer_alignment` or `buffer-alignment`), typed as Python types them
/// (a negative int signed, any other unsigned).
OptionValues optionValues(const nanobind::dict &options);

/// Options (a MEMPLAN_OPTIONS_STRUCT) read from `options` (as
/// optionValues), the rest their defaults; raises ValueError on a name the
/// table lacks or a value of another type.
template <typename Options> Options readOptions(const nanobind::dict &options) {
  Options out;
  if (std::string error = readOptions(optionValues(options), out);
      !error.empty())
    throw nanobind::value_error(error.c_str());
  return out;
}

/// A table's rows as Python (name, type, default, help, choices or None)
/// tuples: what python/memplan/passes/declarations.py declares a pass'
/// options from.
nanobind::tuple optionRows(const std::vector<OptionRow> &rows);

void registerAllocsToViewsBindings(nanobind::module_ &m);
void registerDeallocationBindings(nanobind::module_ &m);
void registerGraphBindings(nanobind::module_ &m);
void registerHeapBindings(nanobind::module_ &m);
void registerNumericsBindings(nanobind::module_ &m);
void registerPackingBindings(nanobind::module_ &m);
void registerLifetimesBindings(nanobind::module_ &m);
void registerRegistryBindings(nanobind::module_ &m);
void registerInplaceBindings(nanobind::module_ &m);
void registerOptBindings(nanobind::module_ &m);
void registerTransformsBindings(nanobind::module_ &m);
} // namespace memplan

#endif // MEMPLAN_BINDINGS_BINDINGS_H
