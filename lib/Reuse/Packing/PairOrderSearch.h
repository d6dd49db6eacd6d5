//===- PairOrderSearch.h - Search of pair orders ----------------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. A complete search for a packing under a
// capacity that decides, for each pair of buffers whose lifetimes overlap,
// which one lies below the other, and learns from its conflicts.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_PAIRORDERSEARCH_H
#define MEMPLAN_LIB_REUSE_PACKING_PAIRORDERSEARCH_H

#include "PackingEngine.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace memplan {
namespace packing_detail {

class PairOrderSolver;

/// A search for a packing of a problem within a capacity that can be run a
/// slice of steps at a time. Complete: given the steps, it finds a packing
/// or proves that none exists.
class PairOrderSearch {
public:
  enum class Status { Found, Infeasible, OutOfBudget };

  /// A search of `pb` (which must outlive it) within `capacity` bytes.
  PairOrderSearch(const Problem &pb, int64_t capacity);
  ~PairOrderSearch();

  /// Goes on for about `budget` more steps (counted in the exact search's
  /// steps; deterministic).
  Status resume(int64_t budget);
  /// After Found: the packing (bytes, per active buffer).
  std::vector<int64_t> offsets() const;
  /// Steps used so far.
  int64_t work() const;

  /// Whether the search can run on `pb`: it keeps a few words for each pair
  /// of buffers whose lifetimes overlap, which must fit in memory.
  static bool fits(const Problem &pb);

private:
  std::unique_ptr<PairOrderSolver> solver_;
};

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_PAIRORDERSEARCH_H
