//===- EditSteps.h - Create the steps of an edit's program ------*- C++ -*-===//
//
// The one interpreter of EditSteps.def, shared by applyPoolEdit
// (ApplyPoolEdit.cpp) and applyTransientEdit (ApplyTransientEdit.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_REUSE_EDITSTEPS_H
#define MEMPLAN_REUSE_EDITSTEPS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace memplan {

class Graph;

/// An edit's program: its steps (EditSteps.def) and what they read besides
/// their operands. The caller has checked it (the bindings do).
struct StepProgram {
  llvm::ArrayRef<std::array<int64_t, 4>> steps;
  /// Clone steps' operands: Clone (op, b) takes the steps listed from b.
  llvm::ArrayRef<int64_t> cloneOperands;
  /// Pool steps' alignment, in bytes.
  int64_t alignment = 0;
  /// Assert steps' message.
  llvm::StringRef message;
  /// Function steps' names.
  llvm::ArrayRef<std::string> names;
};

/// Creates the steps in order at `b`'s insertion point, at `loc` (both moved
/// by the positioning steps). Returns each step's value, null for a step
/// that has none.
llvm::SmallVector<mlir::Value> createSteps(const Graph &g,
                                           const StepProgram &program,
                                           mlir::OpBuilder &b,
                                           mlir::Location loc);

} // namespace memplan

#endif // MEMPLAN_REUSE_EDITSTEPS_H
