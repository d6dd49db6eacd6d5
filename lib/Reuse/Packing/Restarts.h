//===- Restarts.h - Restarts of the packer's searches -----------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. How long one run of a depth-first search takes
// is heavy-tailed, so the searches restart: a few static orders in turn, with
// a step limit that doubles every round, alternate with noisy variants of
// them, run j with luby(j) units of steps. Each kind gets about half the
// steps. The noise is seeded, so the runs are deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_RESTARTS_H
#define MEMPLAN_LIB_REUSE_PACKING_RESTARTS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memplan {
namespace packing_detail {

/// The Luby sequence 1 1 2 1 1 2 4 1 1 2 ... at i >= 1.
int64_t luby(int64_t i);

/// A search's restarts: `orders` static orders, step limits in multiples of
/// `unit` steps per item the search places (a buffer, a slot), and noisy
/// orders that scale each item's key by a factor in 1 +- noise / 2.
struct RestartShape {
  int orders;
  int64_t unit;
  double noise;
};

class RestartSchedule {
public:
  /// The restarts of `shape` for a search over `items` items.
  RestartSchedule(const RestartShape &shape, int64_t items, uint64_t seed)
      : orders_(shape.orders), unit_(shape.unit * items), noise_(shape.noise),
        rng_(seed) {}

  /// The next run: its order (< orders), and its step limit. Fills `noise`
  /// with one factor per item for a noisy run, or clears it.
  int next(size_t items, std::vector<double> &noise, int64_t &limit);
  /// The run just made used `work` steps.
  void spent(int64_t work) { (lastStatic_ ? static_ : noisy_) += work; }

private:
  uint64_t random();

  const int orders_;
  const int64_t unit_;
  const double noise_;
  uint64_t rng_;
  int64_t statics_ = 0, noisies_ = 0, static_ = 0, noisy_ = 0;
  bool lastStatic_ = true;
};

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_RESTARTS_H
