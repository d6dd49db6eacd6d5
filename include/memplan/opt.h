//===- opt.h - memplan-opt's driver: mlir-opt's on the C++ API ---*- C++ -*-===//
//
// `memplan-opt` behaves like `mlir-opt`: the same command line (parsed by
// LLVM's command-line library, with MLIR's own option registrations), the same
// diagnostics (MLIR's source-manager handlers), `-verify-diagnostics`,
// `--split-input-file`, the implicit module, bytecode in and out, timing, IR
// printing and pass statistics, and the same output file handling. memplan's
// passes are in MLIR's pass registry, so flag-form passes and textual
// pipelines name them like upstream passes.
//
// The MLIR contexts come from the Python bindings (a Python-defined pass
// needs the bindings to know its context): the driver asks for one per input
// chunk through `ContextFactory`, after the command line has been parsed, so
// the context honours MLIR's context options (`--mlir-disable-threading`, ...).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_OPT_H
#define MEMPLAN_OPT_H

#include "mlir-c/IR.h"

#include <string>
#include <utility>
#include <vector>

namespace memplan {

/// Makes and releases the MLIR context of one input chunk.
struct ContextFactory {
  void *userData = nullptr;
  /// A fresh context with every upstream dialect registered; `*owner` is
  /// handed back to `release` once the chunk is done.
  MlirContext (*create)(void *userData, void **owner) = nullptr;
  void (*release)(void *userData, void *owner) = nullptr;
};

/// Runs memplan-opt on `args` (args[0] is the program name); returns the exit
/// code: 0 on success, 1 when the command line, the input, a pass or the
/// expected diagnostics fail, as mlir-opt does. Without `freeIR`, the
/// printed IR is left allocated (for a process that exits right after).
int optMain(const std::vector<std::string> &args, const ContextFactory &contexts, bool freeIR = true);

/// Parses `text` (named `name` in locations) as mlir-opt does, implicit
/// module included, and returns the module (null on failure, with MLIR's
/// diagnostics, source line and caret, in `diagnostics`).
MlirOperation parseModuleForTool(MlirContext context, const std::string &text,
                                 const std::string &name, std::string &diagnostics);

/// Emits a diagnostic of `severity` (0 error, 1 warning, otherwise remark) at
/// `location`, with `notes` attached, through the context's handlers.
void emitDiagnostic(MlirLocation location, int severity, const std::string &message,
                    const std::vector<std::pair<MlirLocation, std::string>> &notes = {});

} // namespace memplan

#endif // MEMPLAN_OPT_H
