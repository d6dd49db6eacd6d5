//===- OptMain.cpp - memplan-opt: upstream's mlir-opt driver --------------===//
//
// memplan-opt is MLIR's own mlir-opt driver, `MlirOptMain`, with the
// dialects of the Python bindings' contexts and every pass in MLIR's pass
// registry: upstream's, and memplan's (registered when `memplan` is
// imported). The bindings' library does not export the driver; it is linked
// in from the dev wheel's static archives (CMakeLists.txt says which objects,
// and why they add no second copy of state the library holds).
//
// Two of the driver's answers to a bad command line are aborts: a plugin
// that does not load (an unchecked llvm::Expected), and a fatal error such as
// a malformed `--mlir-debug-counter`. memplan-opt checks plugins first and
// ends on a fatal error with its message and exit code 1, as on an output it
// could not write.
//
//===----------------------------------------------------------------------===//

#include "memplan/Tools/Opt.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace mlir;

namespace memplan {
namespace {

/// A fatal error ends the run with its message and exit code 1 (LLVM would
/// abort), after removing the files the driver registered for removal.
void exitOnFatalError(void *, const char *reason, bool) {
  std::string message = std::string("LLVM ERROR: ") + reason + "\n";
  ssize_t written = ::write(2, message.data(), message.size());
  (void)written;
  llvm::sys::RunInterruptHandlers();
  ::_exit(1);
}

} // namespace

std::string pluginLoadError(const std::string &path, bool dialectPlugin) {
  llvm::Error error = dialectPlugin ? DialectPlugin::load(path).takeError()
                                    : PassPlugin::load(path).takeError();
  return error ? llvm::toString(std::move(error)) : std::string();
}

int optMain(const std::vector<std::string> &args, MlirContext dialects) {
  DialectRegistry registry;
  unwrap(dialects)->getDialectRegistry().appendTo(registry);
  std::vector<std::string> owned(args);
  std::vector<char *> argv;
  for (std::string &arg : owned)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  llvm::install_fatal_error_handler(exitOnFatalError);
  int code = asMainReturnCode(
      MlirOptMain(static_cast<int>(owned.size()), argv.data(),
                  "memplan-opt: mlir-opt with memplan's passes\n", registry));
  // The output `-` is llvm::outs(), which reports a failed write (a closed
  // pipe: Python ignores SIGPIPE) only when it is destroyed at exit; the
  // process leaves before that.
  llvm::outs().flush();
  if (!llvm::outs().has_error())
    return code;
  llvm::errs() << "LLVM ERROR: IO failure on output stream: "
               << llvm::outs().error().message() << "\n";
  llvm::outs().clear_error();
  return 1;
}

} // namespace memplan
