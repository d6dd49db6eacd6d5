//===- Improve.h - Squeaky wheel and peak repair ----------------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. Improvement on top of the engine: the
// squeaky-wheel iteration, with PeakRepair, the local search around the peak.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_IMPROVE_H
#define MEMPLAN_LIB_REUSE_PACKING_IMPROVE_H

#include "PackingEngine.h"

#include <cstdint>
#include <vector>

namespace memplan {
namespace packing_detail {

/// A finished packing and the Placer::work() it took.
struct Seed {
  std::vector<int64_t> offsets;
  int64_t work = 0;
};

/// How blamed buffers move forward.
enum class Squeak {
  /// Classic: a priority per buffer, lowered each round in proportion to the
  /// blame. Moves gradually.
  Blame,
  /// All blamed buffers jump to the front, keeping their order. Erratic, which
  /// helps where Blame settles.
  ToFront,
};

/// Squeaky-wheel optimization (Joslin & Clements, 1999) over greedy first-fit:
/// place, find the buffers to blame for the pool exceeding the lower bound
/// (the squeaky wheels), place them earlier next round, and keep the best
/// packing seen. Blamed are the buffers reaching above the bound and those
/// live at the busiest point of the topmost buffer's lifetime: the excess is
/// usually a hole in that stack, which the buffers above it cannot see.
///
/// A round re-places every buffer, which large inputs cannot afford often;
/// PeakRepair then polishes the best packing locally.
///
/// Rounds stop at the bound, after kStaleRounds without progress, or when the
/// next round would exceed the work budget (an eighth of it once within an
/// alignment unit of the bound); never on a clock, so the result is
/// deterministic.
///
/// `greedy`, if given, is the greedy-by-size packing: the first round.
/// Returns the best pool, its offsets in `best`.
int64_t squeakyWheel(const Problem &pb, Placer &placer, Squeak how,
                     int64_t bound, const Seed *greedy,
                     std::vector<int64_t> &best);

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_IMPROVE_H
