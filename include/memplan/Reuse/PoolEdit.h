//===- PoolEdit.h - A pool plan as data, applied in one edit ----*- C++ -*-===//
//
// memplan-buffer-reuse plans each pool in Python (python/memplan/reuse/) and
// states the whole edit as a PoolEdit: plain data, no op handles. One call,
// applyPoolEdit, then makes every change on MLIR's C++ API: the pool's byte
// buffer and its offset arithmetic, the views replacing its members, its
// dealloc, and the erasure of what the views replace.
//
// Bound to Python as memplan._core.PoolEdit (fields in snake_case) and
// applied by memplan._core.apply_pool_edit after a check against the
// graph (lib/Bindings/AllocsToViewsBindings.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMPLAN_REUSE_POOLEDIT_H
#define MEMPLAN_REUSE_POOLEDIT_H

#include "memplan/Reuse/EditStep.h"

#include <array>
#include <cstdint>
#include <vector>

namespace memplan {

class Graph;

/// One pool's rewrite (its fields: memplan/Reuse/PoolEditFields.def).
struct PoolEdit {
#define MEMPLAN_POOL_EDIT_FIELD(Field, Py, Init, Doc, ...)                     \
  __VA_ARGS__ Field = Init;
#include "memplan/Reuse/PoolEditFields.def"
};

/// Applies `edit`, which the caller has checked (ids in range, step
/// operands earlier steps, one Pool step).
void applyPoolEdit(const Graph &g, const PoolEdit &edit);

} // namespace memplan

#endif // MEMPLAN_REUSE_POOLEDIT_H
