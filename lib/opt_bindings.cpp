//===- opt_bindings.cpp - memplan-opt's driver for Python ------------------===//
//
// `opt_main(argv, new_context)` runs the mlir-opt driver of lib/opt/ with the
// contexts made by `new_context()` (an `mlir.ir.Context`);
// `parse_module(context, text, name)` parses as mlir-opt does;
// `emit_diagnostic(location, severity, message, notes)` reports through the
// context's diagnostic handlers.
//
//===----------------------------------------------------------------------===//

#include "memplan/bindings.h"
#include "memplan/opt.h"

#include "mlir-c/IR.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace memplan {
namespace {

/// The C API handle in an object's `_CAPIPtr` capsule (the bindings' interop
/// convention), or null.
void *handleOf(nb::handle object, const char *capsuleName) {
  if (!nb::hasattr(object, "_CAPIPtr"))
    return nullptr;
  nb::object capsule = nb::getattr(object, "_CAPIPtr");
  void *ptr = PyCapsule_GetPointer(capsule.ptr(), capsuleName);
  if (!ptr)
    PyErr_Clear();
  return ptr;
}

MlirContext contextOf(nb::handle context) {
  MlirContext ctx{handleOf(context, "mlir.ir.Context._CAPIPtr")};
  if (mlirContextIsNull(ctx))
    throw nb::type_error("expected an mlir.ir.Context");
  return ctx;
}

MlirContext createContext(void *userData, void **owner) {
  nb::gil_scoped_acquire gil;
  nb::object context = (*static_cast<nb::callable *>(userData))();
  MlirContext ctx = contextOf(context);
  *owner = context.release().ptr();
  return ctx;
}

void releaseContext(void *, void *owner) {
  nb::gil_scoped_acquire gil;
  nb::steal(static_cast<PyObject *>(owner));
}

} // namespace

void registerOptBindings(nb::module_ &m) {
  m.def(
      "opt_main",
      [](const std::vector<std::string> &argv, nb::callable newContext, bool freeIR) {
        ContextFactory factory;
        factory.userData = &newContext;
        factory.create = &createContext;
        factory.release = &releaseContext;
        nb::gil_scoped_release release;
        return optMain(argv, factory, freeIR);
      },
      nb::arg("argv"), nb::arg("new_context"), nb::arg("free_ir") = true,
      "Run memplan-opt (mlir-opt's driver with memplan's passes) on argv; returns the exit "
      "code. new_context() makes the mlir.ir.Context of each input chunk; free_ir=False "
      "leaves the printed IR allocated, for a process that exits right after.");
  m.def(
      "parse_module",
      [](nb::handle context, nb::bytes text, const std::string &name) {
        std::string diagnostics;
        MlirOperation op = parseModuleForTool(contextOf(context), std::string(text.c_str(), text.size()),
                                              name, diagnostics);
        nb::bytes diags(diagnostics.data(), diagnostics.size());
        if (mlirOperationIsNull(op))
          return std::make_tuple(nb::object(nb::none()), diags);
        MlirModule module = mlirModuleFromOperation(op);
        nb::object capsule =
            nb::steal(PyCapsule_New(const_cast<void *>(module.ptr), "mlir.ir.Module._CAPIPtr", nullptr));
        nb::object pyModule = nb::module_::import_("mlir.ir").attr("Module").attr("_CAPICreate")(capsule);
        return std::make_tuple(pyModule, diags);
      },
      nb::arg("context"), nb::arg("text"), nb::arg("name"),
      "Parse MLIR text (or bytecode) as mlir-opt does, implicit module included: (module, '') "
      "or (None, diagnostics as mlir-opt prints them, as bytes).");
  m.def(
      "emit_diagnostic",
      [](nb::handle location, int severity, const std::string &message,
         const std::vector<std::tuple<nb::handle, std::string>> &notes) {
        auto locationOf = [](nb::handle object) {
          MlirLocation loc{handleOf(object, "mlir.ir.Location._CAPIPtr")};
          if (mlirLocationIsNull(loc))
            throw nb::type_error("expected an mlir.ir.Location");
          return loc;
        };
        MlirLocation loc = locationOf(location);
        std::vector<std::pair<MlirLocation, std::string>> attached;
        for (const auto &[noteLocation, note] : notes)
          attached.emplace_back(locationOf(noteLocation), note);
        emitDiagnostic(loc, severity, message, attached);
      },
      nb::arg("location"), nb::arg("severity"), nb::arg("message"),
      nb::arg("notes") = std::vector<std::tuple<nb::handle, std::string>>(),
      "Emit a diagnostic (0 error, 1 warning, 2 remark) at an mlir.ir.Location, with notes "
      "given as (mlir.ir.Location, message) pairs.");
}

} // namespace memplan
