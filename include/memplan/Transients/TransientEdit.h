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

/// A module's transient rewrite (its fields:
/// memplan/Transients/TransientEditFields.def).
struct TransientEdit {
#define MEMPLAN_TRANSIENT_EDIT_FIELD(Field, Py, Init, Doc, ...)                \
  __VA_ARGS__ Field = Init;
#include "memplan/Transients/TransientEditFields.def"
};

/// Applies `edit`, which the caller has checked (ids in range, step operands
/// earlier steps of the right types, steps positioned before they create).
void applyTransientEdit(const Graph &g, const TransientEdit &edit);

} // namespace memplan

#endif // MEMPLAN_TRANSIENTS_TRANSIENTEDIT_H
