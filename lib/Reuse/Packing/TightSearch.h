//===- TightSearch.h - Search for programs tight at every point -*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. A complete search for a packing under a
// capacity that every program point fills exactly: there, a packing is a
// sequence of the live buffers per point, and PQ-trees hold all the sequences
// at once.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_TIGHTSEARCH_H
#define MEMPLAN_LIB_REUSE_PACKING_TIGHTSEARCH_H

#include "PackingEngine.h"

#include <cstdint>
#include <vector>

namespace memplan {
namespace packing_detail {

enum class TightVerdict {
  NotTight,    ///< Some point has bytes to spare: the search does not apply.
  Found,       ///< A packing fits the capacity.
  Infeasible,  ///< No packing fits the capacity.
  OutOfBudget, ///< Neither, within the budget.
};

/// Looks for a packing of `pb` within `capacity` bytes using at most about
/// `budget` steps, where the live buffers fill `capacity` exactly at every
/// program point (in alignment units, with no buffer able to end in a unit
/// past it); otherwise returns NotTight at once. On Found, `offsets` holds
/// the packing (bytes, per active buffer). Adds the steps used (deterministic,
/// like the exact search's) to `work`.
TightVerdict searchTight(const Problem &pb, int64_t capacity, int64_t budget,
                         std::vector<int64_t> &offsets, int64_t &work);

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_TIGHTSEARCH_H
