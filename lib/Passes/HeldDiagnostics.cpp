//===- HeldDiagnostics.cpp - Diagnostics held across a GIL release --------===//
//
// See include/memplan/Passes/HeldDiagnostics.h.
//
//===----------------------------------------------------------------------===//

#include "memplan/Passes/HeldDiagnostics.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/Debug.h"

#include <optional>
#include <vector>

#define DEBUG_TYPE "memplan-held-diagnostics"

using namespace mlir;

namespace memplan {

struct DiagnosticHold::Impl {
  MLIRContext *context;
  std::optional<DiagnosticEngine::HandlerID> handler;
  /// Copies that own their text: a diagnostic's arguments may point into
  /// strings of the code that emitted it, gone once it returns.
  std::vector<Diagnostic> held;

  static Diagnostic copy(const Diagnostic &diag) {
    Diagnostic out(diag.getLocation(), diag.getSeverity());
    out << diag.str();
    for (const Diagnostic &note : diag.getNotes())
      out.attachNote(note.getLocation()) << note.str();
    return out;
  }
};

DiagnosticHold::DiagnosticHold(MlirContext context)
    : impl(std::make_unique<Impl>()) {
  impl->context = unwrap(context);
  Impl *state = impl.get();
  impl->handler = impl->context->getDiagEngine().registerHandler(
      [state](Diagnostic &diag) -> LogicalResult {
        // MLIR calls a context's handlers under its engine's lock: one at a
        // time, whatever the thread.
        state->held.push_back(Impl::copy(diag));
        return success();
      });
}

DiagnosticHold::~DiagnosticHold() { emit(); }

void DiagnosticHold::emit() {
  if (!impl->handler)
    return;
  DiagnosticEngine &engine = impl->context->getDiagEngine();
  engine.eraseHandler(*impl->handler);
  impl->handler.reset();
  std::vector<Diagnostic> held;
  held.swap(impl->held);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] emitting " << held.size()
                          << " held diagnostics\n");
  for (Diagnostic &diag : held)
    engine.emit(std::move(diag));
}

} // namespace memplan
