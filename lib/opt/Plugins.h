//===- Plugins.h - mlir-opt's pass and dialect plugins ------------*- C++ -*-===//
//
// `--load-pass-plugin` and `--load-dialect-plugin`: the bindings' library does
// not export MLIR's PassPlugin/DialectPlugin loaders, so the plugin's
// documented entry point (`mlirGetPassPluginInfo`, `mlirGetDialectPluginInfo`)
// is looked up here with dlopen/dlsym.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_OPT_PLUGINS_H
#define MEMPLAN_LIB_OPT_PLUGINS_H

#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace memplan {

/// Loads the pass plugin at `path` and registers its passes; on failure,
/// returns why (the plugin is then ignored).
std::string loadPassPlugin(const std::string &path);

/// Loads the dialect plugin at `path` and adds its dialects to `registry`;
/// on failure, returns why.
std::string loadDialectPlugin(const std::string &path, mlir::DialectRegistry &registry);

} // namespace memplan

#endif // MEMPLAN_LIB_OPT_PLUGINS_H
