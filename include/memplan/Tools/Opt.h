//===- Opt.h - memplan-opt; parsing as MLIR tools do ------------*- C++ -*-===//
//
// `memplan-opt` is upstream's mlir-opt driver (`MlirOptMain`) with memplan's
// passes in MLIR's pass registry. The Python side parses and reports
// diagnostics the way that driver does, through the same MLIR functions.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_TOOLS_OPT_H
#define MEMPLAN_TOOLS_OPT_H

#include "mlir-c/IR.h"

#include <string>
#include <utility>
#include <vector>

namespace memplan {

/// Runs MLIR's mlir-opt driver on `args` (args[0] is the program name) with
/// the dialects and extensions registered in `dialects` (a context of the
/// Python bindings); returns the exit code. Every pass in MLIR's pass
/// registry is available. Call it once per process: it parses LLVM's
/// command line.
int optMain(const std::vector<std::string> &args, MlirContext dialects);

/// Why the pass plugin (or, with `dialectPlugin`, the dialect plugin) at
/// `path` does not load, in MLIR's loader's words; empty when it loads.
std::string pluginLoadError(const std::string &path, bool dialectPlugin);

/// Parses `text` (named `name` in locations) as mlir-opt does, implicit
/// module included, and returns the module (null on failure, with MLIR's
/// diagnostics, source line and caret, in `diagnostics`).
MlirOperation parseModuleForTool(MlirContext context, const std::string &text,
                                 const std::string &name,
                                 std::string &diagnostics);

/// Emits a diagnostic of `severity` (0 error, 1 warning, otherwise remark) at
/// `location`, with `notes` attached, through the context's handlers.
void emitDiagnostic(
    MlirLocation location, int severity, const std::string &message,
    const std::vector<std::pair<MlirLocation, std::string>> &notes = {});

} // namespace memplan

#endif // MEMPLAN_TOOLS_OPT_H
