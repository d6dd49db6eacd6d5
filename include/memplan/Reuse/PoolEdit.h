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

/// One pool's rewrite. Op and value ids are those of the Graph it was
/// planned on; step operands are indices of earlier steps.
struct PoolEdit {
  /// The op the pool's alloc and its arithmetic are created before (their
  /// location is this op's).
  int32_t insertBefore = -1;
  /// The op the pool's dealloc is created after.
  int32_t deallocAfter = -1;
  /// The pool alloc's alignment, in bytes.
  int64_t alignment = 0;
  /// Ops moved before `insertBefore`, in this order (what computes the
  /// dynamic sizes).
  std::vector<int32_t> hoist;
  /// (alloc op, operand index, value id): the operand becomes that value,
  /// the size the pool was planned with, before the steps run.
  std::vector<std::array<int32_t, 3>> sizeOperands;
  /// The `index` program, in creation order: (EditStep, a, b, c). Exactly
  /// one step is EditStep::Pool.
  std::vector<std::array<int64_t, 4>> steps;
  /// Per member: its alloc, its dealloc (or -1) and the step giving its
  /// byte offset in the pool.
  std::vector<int32_t> allocs, deallocs, offsetStep;
  /// Other deallocs to erase (those of merged branch results).
  std::vector<int32_t> erase;
};

/// Applies `edit`, which the caller has checked (ids in range, step
/// operands earlier steps, one Pool step).
void applyPoolEdit(const Graph &g, const PoolEdit &edit);

} // namespace memplan

#endif // MEMPLAN_REUSE_POOLEDIT_H
