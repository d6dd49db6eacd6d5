//===- lifetimes.h - Live intervals of buffers over the graph ---*- C++ -*-===//
//
// The hot path of the buffer lifetime analysis. Given the graph, a role for
// every op name (what the op does with memref operands, computed in Python
// from the name table) and the root values to follow (allocation results, or
// pool views for the checker), compute per root:
//   * its live interval [start, end) over pre-order op ids, with every use of
//     every alias lifted to the op in the root's block that encloses it (so a
//     use inside a region keeps the buffer live across the whole region op);
//   * its dealloc (a `memref.dealloc` of the root itself, in the root's block);
//   * its pooling scope (the entry block of the function, or the body of the
//     nearest parallel op), hoisting through known sequential region ops;
//   * a bit mask of reasons why it cannot be pooled.
// One breadth-first walk over the alias closure per root: O(uses * depth).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIFETIMES_H
#define MEMPLAN_LIFETIMES_H

#include "memplan/graph.h"

#include <cstdint>
#include <vector>

namespace memplan {

/// What an op does with a memref (or tensor) operand. Low byte of a role word.
enum LifetimeRole : int32_t {
  kRoleOther = 0,      ///< Unknown memory effects: `unknown-user`.
  kRoleAlloc = 1,      ///< memref.alloc
  kRoleAlloca = 2,     ///< memref.alloca
  kRoleDealloc = 3,    ///< memref.dealloc
  kRoleAlias = 4,      ///< Every shaped result aliases the operand (views, casts).
  kRoleAccess = 5,     ///< Reads/writes through the operand, no alias, no escape.
  kRoleStore = 6,      ///< Like access, but operand 0 is stored into memory.
  kRoleReturn = 7,     ///< func.return: escapes.
  kRoleCall = 8,       ///< func.call: escapes.
  kRoleYield = 9,      ///< scf.yield: flows to the parent's results (and iter_args).
  kRoleCondition = 10, ///< scf.condition: operand i+1 flows to while result i.
  kRoleFor = 11,       ///< scf.for: init operand flows to iter_arg and result.
  kRoleWhile = 12,     ///< scf.while: init operand flows to before-region args.
  kRoleRegion = 13,    ///< Understood region op, no memref operand flow (scf.if).
  kRoleFunc = 14,      ///< func.func: a pooling scope.
  kRoleParallel = 15,  ///< scf.parallel / scf.forall: a pooling scope.
};

/// Flags above the role byte.
enum LifetimeRoleFlag : int32_t {
  kFlagCaptureOk = 1 << 8,   ///< Its regions may use outer buffers.
  kFlagSequential = 1 << 9,  ///< Its regions run sequentially: hoisting is safe.
};

/// Reasons a root is not pooled, as bits; lower bits take precedence.
enum LifetimeReason : int32_t {
  kReasonAlloca = 0,
  kReasonUnknownRegion = 1,
  kReasonUnstructured = 2,
  kReasonEscapesReturn = 3,
  kReasonEscapesCall = 4,
  kReasonEscapesStore = 5,
  kReasonEscapesBlock = 6,
  kReasonCaptured = 7,
  kReasonUnknownUser = 8,
  kReasonNoDealloc = 9,
  kReasonDeallocOtherBlock = 10,
  kReasonMultipleDeallocs = 11,
  kReasonDeallocAlias = 12,
  kReasonMemorySpace = 13,
  kReasonLayout = 14,
  kNumCppReasons = 15,
};

struct LifetimeTable {
  std::vector<int32_t> op;       ///< Defining op of the root.
  std::vector<int32_t> value;    ///< Root value.
  std::vector<int32_t> start;    ///< First program point (op id).
  std::vector<int32_t> end;      ///< One past the last program point.
  std::vector<int32_t> lastUse;  ///< Last live op id (end - 1), before dealloc extension.
  std::vector<int32_t> dealloc;  ///< The dealloc op, or -1.
  std::vector<int32_t> scope;    ///< Pooling scope block, or -1.
  std::vector<int32_t> reasons;  ///< Bit mask of LifetimeReason.
  std::vector<int32_t> numUses;  ///< Uses over the alias closure (deallocs excluded).
};

/// Analyze the given roots. `roles[nameId]` is a role word. When
/// `extendToDealloc` is set for a root with reasons, its end also covers its
/// dealloc (or, without one, the rest of its block).
LifetimeTable analyzeLifetimes(const Graph &g, const std::vector<int32_t> &roles,
                               const int32_t *roots, size_t numRoots);

}  // namespace memplan

#endif  // MEMPLAN_LIFETIMES_H
