//===- ExactSearch.h - Exact search for the memory packer -------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. A complete search for a packing under a
// capacity, and the driver that uses it to close the gap between a lower
// bound and a known packing within a deterministic work budget.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_EXACTSEARCH_H
#define MEMPLAN_LIB_REUSE_PACKING_EXACTSEARCH_H

#include "PackingEngine.h"

#include <cstdint>
#include <vector>

namespace memplan {
namespace packing_detail {

/// What the exact search ends with.
struct ExactOutcome {
  /// The smallest pool known: the search's, or the incumbent's if it found
  /// nothing smaller.
  int64_t pool = 0;
  /// Offsets of the active buffers for `pool`.
  std::vector<int64_t> offsets;
  /// Proven: no packing has a smaller pool. pool == bound means optimal.
  int64_t bound = 0;
  /// Search steps used (deterministic; about 10^8 a second here).
  int64_t work = 0;
  /// Whether the search found `pool` (else it is the incumbent's).
  bool improved = false;
};

/// Searches packings of `pb` between `lowerBound` (a proven bound, e.g. the
/// aligned live-bytes peak) and the incumbent packing (`incumbentPool` with
/// `incumbentOffsets`), spending at most about `budget` steps. With `capacity`
/// >= 0, a packing that fits in `capacity` bytes is looked for first, for up
/// to `capacityBudget` steps (at least `budget`); what follows a fit stops at
/// `budget` steps in all.
///
/// The search tries one capacity at a time, from the lower bound up: it either
/// finds a packing within it, proves that none exists (then the bound rises),
/// or runs out of its share of the budget (then it tries larger capacities,
/// halfway to the incumbent).
ExactOutcome searchExact(const Problem &pb, int64_t lowerBound,
                         int64_t incumbentPool,
                         const std::vector<int64_t> &incumbentOffsets,
                         int64_t budget, int64_t capacity,
                         int64_t capacityBudget);

/// Whether searchExact can run on `pb`: the search keeps every pair of
/// buffers whose lifetimes overlap, which must fit in memory.
bool exactSearchFits(const Problem &pb);

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_EXACTSEARCH_H
