//===- DebuggerHook.h - mlir-opt's debugger hook on actions -----*- C++ -*-===//
//
// mlir-opt's `--mlir-enable-debugger-hook`: actions stop on breakpoints that a
// debugger sets, and the debugger controls them, through the extern "C"
// functions MLIR's debug library offers (mlirDebuggerAddTagBreakpoint,
// mlirDebuggerSetControl, mlirDebuggerPrintContext, the cursor functions, and
// mlirDebuggerBreakpointHook, the function a debugger breaks in). That
// library is not exported by the bindings' library; this is memplan's own
// code on MLIRContext::registerActionHandler, with the same names and
// behaviour, exported by memplan's extension.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_OPT_DEBUGGERHOOK_H
#define MEMPLAN_LIB_OPT_DEBUGGERHOOK_H

#include "mlir/IR/Action.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Unit.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace memplan {

/// Registers `--mlir-enable-debugger-hook` (once; before the command line is
/// parsed).
void registerDebuggerHookFlag();

/// Whether `--mlir-enable-debugger-hook` was given.
bool debuggerHookEnabled();

/// Prints an IR unit as MLIR's IRUnit::print does (not exported): an op, a
/// region or a block by its number in its op, with the block's operations
/// when `flags` does not skip regions.
void printIRUnit(llvm::raw_ostream &os, const mlir::IRUnit &unit,
                 mlir::OpPrintingFlags flags =
                     mlir::OpPrintingFlags().skipRegions().useLocalScope());

/// Runs the actions of one context under the debugger: MLIR's
/// ExecutionContext with the debugger's callback and breakpoints.
class DebuggerHook {
public:
  /// Runs `transform` for `action` unless the debugger skips it. `before` is
  /// told the breakpoint that stopped the action (empty when none) and
  /// whether it runs; `after` is called once it has run.
  void execute(llvm::function_ref<void()> transform,
               const mlir::tracing::Action &action,
               llvm::function_ref<void(llvm::StringRef breakpoint, bool willExecute)> before,
               llvm::function_ref<void()> after);

private:
  /// Actions at this depth or above stop without a breakpoint (after a step,
  /// next or finish).
  std::optional<int> depthToBreak;
};

} // namespace memplan

#endif // MEMPLAN_LIB_OPT_DEBUGGERHOOK_H
