//===- ActionTracing.h - mlir-opt's action logging and profiling -*- C++ -*-===//
//
// mlir-opt's `--log-actions-to=<file>|-` (with `--log-mlir-actions-filter`),
// `--profile-actions-to=<file>|-` and the debug counters (ActionCounter.h),
// on what the bindings' library exports: MLIRContext::registerActionHandler
// and tracing::Action. MLIR's tracing library (ExecutionContext,
// ActionLogger, ActionProfiler) is not exported; this is memplan's own code
// writing what those write.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_OPT_ACTIONTRACING_H
#define MEMPLAN_LIB_OPT_ACTIONTRACING_H

#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace memplan {

/// Registers the flags (once; before the command line is parsed).
void registerActionTracingFlags();

/// Forgets the filters of a previous command line.
void resetActionTracingFlags();

/// Whether a `--log-mlir-actions-filter` value was rejected (it has been
/// reported; mlir-opt exits with 1 then).
bool actionFilterRejected();

/// Traces or counts the actions of one chunk's context, as the flags ask,
/// while it lives: mlir-opt's InstallDebugHandler.
class ActionTracing {
public:
  explicit ActionTracing(mlir::MLIRContext &context);
  ~ActionTracing();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  mlir::MLIRContext &context;
};

} // namespace memplan

#endif // MEMPLAN_LIB_OPT_ACTIONTRACING_H
