//===- StepPrice.h - What a search's steps cost -----------------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. Every search of the packer is given its
// budget, and reports its work, in the exact search's steps (ExactSearch.cpp),
// so that one budget bounds them all and a plan is the same on any machine.
// A search whose own steps cost more or less CPU time converts at its price.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_STEPPRICE_H
#define MEMPLAN_LIB_REUSE_PACKING_STEPPRICE_H

#include <cstdint>

namespace memplan {
namespace packing_detail {

/// What a search's own steps are worth: `per` of them cost `weight` of the
/// exact search's steps (their CPU time against the exact search's, measured
/// per search).
struct StepPrice {
  int64_t weight, per;

  /// The own steps a budget of `exactSteps` buys: whole weights only.
  constexpr int64_t stepsFor(int64_t exactSteps) const {
    return exactSteps / weight * per;
  }
  /// What `steps` own steps cost in the exact search's steps, rounded down.
  constexpr int64_t costOf(int64_t steps) const { return steps * weight / per; }
  /// The same, charging whole groups of `per` steps only.
  constexpr int64_t costOfWholeGroups(int64_t steps) const {
    return steps / per * weight;
  }
};

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_STEPPRICE_H
