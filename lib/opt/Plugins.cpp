//===- Plugins.cpp - mlir-opt's pass and dialect plugins ------------------===//
//
// A plugin is a shared library exporting `mlirGetPassPluginInfo` (or
// `mlirGetDialectPluginInfo`) that returns the plugin's API version, name,
// version and registration callback (mlir/Tools/Plugins/*.h). The library
// stays loaded for the life of the process, as MLIR's loader keeps it.
//
//===----------------------------------------------------------------------===//

#include "Plugins.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <dlfcn.h>

namespace memplan {
namespace {

/// The plugin's entry point `symbol`, or null with `error` set (MLIR's
/// loader's wording).
void *findEntryPoint(const std::string &path, const char *symbol, std::string &error) {
  void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_GLOBAL);
  if (!handle) {
    const char *reason = dlerror();
    error = "Could not load library '" + path + "': " + (reason ? reason : "unknown error");
    return nullptr;
  }
  void *entry = dlsym(handle, symbol);
  if (!entry)
    error = "Plugin entry point not found in '" + path + "'.";
  return entry;
}

template <typename Info>
std::string checkVersion(const std::string &path, const Info &info) {
  if (info.apiVersion == MLIR_PLUGIN_API_VERSION)
    return "";
  return "Wrong API version on plugin '" + path + "'. Got version " +
         std::to_string(info.apiVersion) + ", supported version is " +
         std::to_string(MLIR_PLUGIN_API_VERSION) + ".";
}

} // namespace

std::string loadPassPlugin(const std::string &path) {
  std::string error;
  auto *get = reinterpret_cast<mlir::PassPluginLibraryInfo (*)()>(
      findEntryPoint(path, "mlirGetPassPluginInfo", error));
  if (!get)
    return error;
  mlir::PassPluginLibraryInfo info = get();
  error = checkVersion(path, info);
  if (error.empty() && info.registerPassRegistryCallbacks)
    info.registerPassRegistryCallbacks();
  return error;
}

std::string loadDialectPlugin(const std::string &path, mlir::DialectRegistry &registry) {
  std::string error;
  auto *get = reinterpret_cast<mlir::DialectPluginLibraryInfo (*)()>(
      findEntryPoint(path, "mlirGetDialectPluginInfo", error));
  if (!get)
    return error;
  mlir::DialectPluginLibraryInfo info = get();
  error = checkVersion(path, info);
  if (error.empty() && info.registerDialectRegistryCallbacks)
    info.registerDialectRegistryCallbacks(&registry);
  return error;
}

} // namespace memplan
