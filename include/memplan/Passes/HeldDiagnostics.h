//===- HeldDiagnostics.h - Diagnostics held across the GIL ------*- C++ -*-===//
//
// The GIL rule of memplan's bindings: code run without the GIL must never
// reach Python. MLIR code reaches Python through the diagnostic handlers that
// the Python bindings put on a context (`PassManager.run`'s error capture,
// `Context.attach_diagnostic_handler`), and those handlers touch Python
// objects without taking the GIL. A `DiagnosticHold` taken on the context
// before the GIL is released catches every diagnostic emitted meanwhile
// (plain C++: messages and locations copied) and, once the GIL is held again,
// emits them, in order, to the handlers that were there before: Python sees
// the same diagnostics as if nothing had been held.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_PASSES_HELDDIAGNOSTICS_H
#define MEMPLAN_PASSES_HELDDIAGNOSTICS_H

#include "mlir-c/IR.h"

#include <memory>

namespace memplan {

/// Holds back the diagnostics of `context` from construction until `emit()`
/// or destruction. Construct and destroy it with the GIL held; in between,
/// release the GIL for the MLIR work:
///
///   DiagnosticHold hold(context);
///   { nb::gil_scoped_release release; runMlirCode(); }
///   // ~DiagnosticHold: the GIL is held again, Python's handlers see them.
///
/// Diagnostics of other threads on the same context are held too (and then
/// emitted on this one). Holds nest: an inner hold emits into the outer one.
class DiagnosticHold {
public:
  explicit DiagnosticHold(MlirContext context);
  ~DiagnosticHold();
  DiagnosticHold(const DiagnosticHold &) = delete;
  DiagnosticHold &operator=(const DiagnosticHold &) = delete;

  /// Stops holding and emits what was held, to the handlers the context had
  /// before the hold. Called again (or by the destructor) it does nothing.
  void emit();

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace memplan

#endif // MEMPLAN_PASSES_HELDDIAGNOSTICS_H
