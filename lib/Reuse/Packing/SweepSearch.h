//===- SweepSearch.h - Sweep search for the memory packer -------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. A search for a packing under a capacity that
// places buffers in order of their start, one program point after the other.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_SWEEPSEARCH_H
#define MEMPLAN_LIB_REUSE_PACKING_SWEEPSEARCH_H

#include "PackingEngine.h"

#include <cstdint>
#include <vector>

namespace memplan {
namespace packing_detail {

/// What a sweep search ends with.
struct SweepOutcome {
  /// Whether `offsets` (bytes, per active buffer) fits the capacity.
  bool found = false;
  std::vector<int64_t> offsets;
  /// Search steps used (deterministic, like the exact search's).
  int64_t work = 0;
};

/// Looks for a packing of `pb` within `capacity` bytes, using about a tenth
/// of `budget` steps, and up to `budget` where its runs get a third of the
/// way through a program whose live bytes are at the capacity at half of its
/// points or more (elsewhere the exact search makes better use of them).
/// Incomplete: it only builds packings where the buffers that start at a point
/// fill the free space at that point from the edges of its gaps, and only those
/// where every gap is filled exactly wherever the live bytes leave no room to
/// spare. Such packings are found fast on long programs whose bytes are tight
/// at many points, where a search by offset has to revisit the whole program
/// for each mistake.
SweepOutcome searchSweep(const Problem &pb, int64_t capacity, int64_t budget);

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_SWEEPSEARCH_H
