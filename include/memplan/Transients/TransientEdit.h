//===- TransientEdit.h - A transient plan as data, one edit -----*- C++ -*-===//
//
// memplan-emplace-transients plans in Python (python/memplan/transients/)
// and states the whole rewrite of the module as a TransientEdit: plain data,
// no op handles. One call, applyTransientEdit, then makes every change on
// MLIR's C++ API: the storage arguments, the size arithmetic at each
// function's entry (slices cloned, the size check), the storage views passed
// to callees and the heap buffers of callers without storage, the
// allocations made views of the storage and their deallocs erased; for
// memplan-materialize-transient-size-queries, each query function (its
// size arithmetic cloned from its function's entry) and the attribute naming
// it.
//
// Bound to Python as memplan._core.TransientEdit (fields in snake_case) and
// applied by memplan._core.apply_transient_edit after a check against the
// graph (lib/Bindings/AllocsToViewsBindings.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_TRANSIENTS_TRANSIENTEDIT_H
#define MEMPLAN_TRANSIENTS_TRANSIENTEDIT_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

class Graph;

/// A module's transient rewrite. Op and value ids are those of the Graph it
/// was planned on; step operands are indices of earlier steps.
struct TransientEdit {
  /// Functions given a `memref<?xi8>` argument after their last one, before
  /// the steps run: its attributes empty, or the unit attribute
  /// `storageMarker` when that is not empty.
  std::vector<int32_t> newArguments;
  std::string storageMarker;
  /// The program, in creation order (memplan/Reuse/EditSteps.def):
  /// (step, a, b, c), positioned by EntryBegin, Before and After steps.
  std::vector<std::array<int64_t, 4>> steps;
  /// The operands of the Clone steps.
  std::vector<int64_t> cloneOperands;
  /// The heap buffers' (Pool steps') alignment, in bytes.
  int64_t alignment = 0;
  /// The Assert steps' message.
  std::string message;
  /// The Function steps' names.
  std::vector<std::string> names;
  /// The steps whose op gets the unit attribute `marker`, and those whose op
  /// loses it.
  std::vector<int64_t> marked, unmarked;
  std::string marker;
  /// (op, name): op gets `symbolAttribute`, a reference to names[name].
  std::vector<std::array<int32_t, 2>> symbols;
  std::string symbolAttribute;
  /// Per allocation placed in storage: its alloc, its dealloc (or -1), and
  /// the steps giving its buffer and its byte offset in it.
  std::vector<int32_t> allocs, deallocs, bufferStep, offsetStep;
  /// Other ops to erase (further deallocs).
  std::vector<int32_t> erase;
  /// (call, argument, step): the call passes the step's value as that
  /// argument, appended when it is one past the last; its argument
  /// attributes are dropped.
  std::vector<std::array<int32_t, 3>> calls;
};

/// Applies `edit`, which the caller has checked (ids in range, step operands
/// earlier steps of the right types, steps positioned before they create).
void applyTransientEdit(const Graph &g, const TransientEdit &edit);

} // namespace memplan

#endif // MEMPLAN_TRANSIENTS_TRANSIENTEDIT_H
