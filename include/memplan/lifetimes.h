//===- lifetimes.h - Live intervals of buffers over the graph ---*- C++ -*-===//
//
// The hot path of the buffer lifetime analysis. Given the graph (with the
// role of every op and the forwarding table of region-branch operands, both
// from MLIR's interfaces: memplan/op_roles.h) and the root values to follow
// (allocation results, or pool views for the checker), compute per root:
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
#include "memplan/op_roles.h"

#include <cstdint>
#include <vector>

namespace memplan {

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
  kReasonAsyncNotAwaited = 15,
  kNumCppReasons = 16,
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

/// Analyze the given roots. A root with reasons stays live until its dealloc
/// (or, without one, the end of its block).
LifetimeTable analyzeLifetimes(const Graph &g, const int32_t *roots, size_t numRoots);

}  // namespace memplan

#endif  // MEMPLAN_LIFETIMES_H
