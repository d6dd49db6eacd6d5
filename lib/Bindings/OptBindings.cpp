//===- OptBindings.cpp - memplan-opt's driver for Python ------------------===//
//
// `opt_main(argv, dialects)` runs MLIR's mlir-opt driver with the dialects of
// `dialects` (an `mlir.ir.Context`); `plugin_load_error(path, dialect_plugin)`
// says why a plugin does not load;
// `parse_module(context, text, name)` parses as mlir-opt does;
// `emit_diagnostic(location, severity, message, notes)` reports through the
// context's diagnostic handlers.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Tools/Opt.h"

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

} // namespace

void registerOptBindings(nb::module_ &m) {
  m.def(
      "opt_main",
      [](const std::vector<std::string> &argv, nb::handle dialects) {
        MlirContext ctx = contextOf(dialects);
        // MlirOptMain's contexts have its C++ handlers; memplan passes take
        // the GIL in their hook, on whatever thread MLIR runs them.
        MlirWithoutGil release;
        return optMain(argv, ctx);
      },
      nb::arg("argv"), nb::arg("dialects"),
      "Run memplan-opt, MLIR's mlir-opt driver with every registered pass, on "
      "argv (argv[0] "
      "is the program name) with the dialects registered in the "
      "mlir.ir.Context `dialects`; "
      "returns the exit code. Once per process: it parses LLVM's command "
      "line.");
  m.def("plugin_load_error", &pluginLoadError, nb::arg("path"),
        nb::arg("dialect_plugin"),
        "Why the pass (or dialect) plugin at path does not load, in MLIR's "
        "words; '' when it "
        "loads.");
  m.def(
      "parse_module",
      [](nb::handle context, nb::bytes text, const std::string &name) {
        std::string diagnostics;
        MlirOperation op = parseModuleForTool(
            contextOf(context), std::string(text.c_str(), text.size()), name,
            diagnostics);
        nb::bytes diags(diagnostics.data(), diagnostics.size());
        if (mlirOperationIsNull(op))
          return std::make_tuple(nb::object(nb::none()), diags);
        MlirModule module = mlirModuleFromOperation(op);
        nb::object capsule =
            nb::steal(PyCapsule_New(const_cast<void *>(module.ptr),
                                    "mlir.ir.Module._CAPIPtr", nullptr));
        nb::object pyModule =
            nb::module_::import_("mlir.ir").attr("Module").attr("_CAPICreate")(
                capsule);
        return std::make_tuple(pyModule, diags);
      },
      nb::arg("context"), nb::arg("text"), nb::arg("name"),
      "Parse MLIR text (or bytecode) as mlir-opt does, implicit module "
      "included: (module, '') "
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
      "Emit a diagnostic (0 error, 1 warning, 2 remark) at an "
      "mlir.ir.Location, with notes "
      "given as (mlir.ir.Location, message) pairs.");
}

} // namespace memplan
