//===- Improve.cpp - Squeaky wheel and peak repair ------------------------===//
//
// The squeaky-wheel iteration and PeakRepair (Improve.h).
//
//===----------------------------------------------------------------------===//

#include "Improve.h"

namespace memplan {
namespace packing_detail {
namespace {

//===----------------------------------------------------------------------===//
// Improvement: squeaky wheel and peak repair
//===----------------------------------------------------------------------===//

/// The topmost buffer of a packing, and the busiest slot of its lifetime:
/// where the pool is decided.
std::pair<int32_t, int32_t> peakOf(const Problem &pb,
                                   const std::vector<int64_t> &live,
                                   const std::vector<int64_t> &off) {
  size_t j = 0;
  for (size_t i = 1; i < pb.count(); ++i)
    if (off[i] + pb.size[i] > off[j] + pb.size[j])
      j = i;
  int32_t peak = pb.lo[j];
  for (int32_t t = pb.lo[j]; t < pb.hi[j]; ++t)
    if (live[t] > live[peak])
      peak = t;
  return {int32_t(j), peak};
}

/// Local search on a finished packing: re-place the buffers around the
/// pool's peak, the others staying put as obstacles, and keep the change if
/// it lowers the pool, or keeps it and lowers the bytes sticking out above the
/// bound (so that a second peak of the same height does not block progress).
///
/// The peak is the busiest slot in the lifetime of the topmost buffer; the
/// excess over the bound is usually a hole in the stack of buffers live there,
/// left by a buffer that is not. A move re-places the short-lived buffers near
/// the peak, first those of the peak stack that sit above a hole (or the
/// whole stack), then the rest by offset (or by size); over a narrow window,
/// then a wide one. By offset, a buffer can only go down, as its old spot
/// stays free. A long-lived buffer on top cannot drop locally (it needs a
/// hole across its whole life), so then the long-lived buffers of the peak
/// stack go first in a global round instead.
class PeakRepair {
public:
  PeakRepair(const Problem &pb, Placer &placer, int64_t bound,
             const std::vector<int64_t> &live)
      : pb_(pb), placer_(placer), bound_(bound), live_(live), m_(pb.count()),
        lifetimes_(pb.lo, pb.hi, pb.numSlots), role_(m_, Role::None),
        promoted_(m_, 0) {
    for (size_t i = 0; i < m_; ++i)
      lifetimes_.insert(int32_t(i));
  }

  /// Improves `off`, produced by the global first-fit `order`, until no move
  /// helps or the placer's work reaches `budget`. Returns the pool.
  int64_t run(std::vector<int64_t> &off, std::vector<int32_t> order,
              int64_t budget) {
    Score score = scoreOf(off);
    std::vector<int64_t> trial;
    while (score.pool > bound_ && placer_.work() < budget) {
      bool improved = false;
      auto [j, peak] = peakOf(pb_, live_, off);
      if (pb_.hi[j] - pb_.lo[j] > kMaxSpan) {
        std::vector<int32_t> promoted = promote(order, peak);
        if (promoted.empty())
          break;
        placer_.place(promoted, Fit::First, trial);
        if (accept(trial, off, score))
          order.swap(promoted);
        continue;
      }
      // Within an alignment unit of the bound only padding is left: the buffer
      // of the peak stack wasting the most on it should go on top.
      const bool padding = score.pool - bound_ < pb_.alignment;
      for (int32_t window : {kWindow, 8 * kWindow}) {
        for (Move move : {Move::PaddedLast, Move::HolesFirst, Move::StackFirst,
                          Move::HolesFirstBySize, Move::StackFirstBySize}) {
          if ((move == Move::PaddedLast) != padding)
            continue;
          trial = off;
          replaceNear(peak, window, move, trial);
          if ((improved = accept(trial, off, score)))
            break;
        }
        if (improved || placer_.work() >= budget)
          break;
      }
      if (!improved)
        break;
    }
    return score.pool;
  }

private:
  /// Buffers within kWindow slots of the peak are re-placed if they live at
  /// most 4 windows: longer ones drag too many obstacles along.
  static constexpr int32_t kWindow = 64;
  static constexpr int32_t kMaxSpan = 4 * kWindow;

  enum class Move {
    HolesFirst,
    StackFirst,
    HolesFirstBySize,
    StackFirstBySize,
    PaddedLast
  };
  /// What a buffer is to the move being built.
  enum class Role : uint8_t { None, Region, First, Last, Fixed };

  struct Score {
    int64_t pool, excess;
    bool operator<(const Score &o) const {
      return pool != o.pool ? pool < o.pool : excess < o.excess;
    }
  };

  Score scoreOf(const std::vector<int64_t> &off) const {
    Score s{poolOf(pb_, off), 0};
    for (size_t i = 0; i < m_; ++i) // saturating: many buffers may stick out
      s.excess = std::min(
          INT64_MAX - kLimit,
          s.excess + std::max<int64_t>(0, off[i] + pb_.size[i] - bound_));
    return s;
  }

  bool accept(std::vector<int64_t> &trial, std::vector<int64_t> &off,
              Score &score) {
    Score s = scoreOf(trial);
    if (!(s < score))
      return false;
    score = s;
    off.swap(trial);
    return true;
  }

  /// `order` with the long-lived buffers live at `peak` (and those promoted
  /// before) first; empty if there are no new ones.
  std::vector<int32_t> promote(const std::vector<int32_t> &order,
                               int32_t peak) {
    bool fresh = false;
    for (size_t i = 0; i < m_; ++i)
      if (pb_.hi[i] - pb_.lo[i] > kMaxSpan && pb_.lo[i] <= peak &&
          peak < pb_.hi[i] && !promoted_[i])
        fresh = promoted_[i] = true;
    if (!fresh)
      return {};
    std::vector<int32_t> out;
    for (int32_t i : order)
      if (promoted_[i])
        out.push_back(i);
    for (int32_t i : order)
      if (!promoted_[i])
        out.push_back(i);
    return out;
  }

  void replaceNear(int32_t peak, int32_t window, Move move,
                   std::vector<int64_t> &off) {
    // The region: short-lived buffers near the peak. Obstacles: every other
    // buffer whose lifetime overlaps one of theirs.
    region_.clear();
    int32_t from = std::max(0, peak - window);
    int32_t to = std::min<int32_t>(int32_t(pb_.numSlots), peak + window + 1);
    lifetimes_.forEachOverlap(from, to, [&](int32_t i) {
      if (pb_.hi[i] - pb_.lo[i] <= 4 * window) {
        region_.push_back(i);
        role_[i] = Role::Region;
      }
    });
    fixed_.clear();
    for (int32_t r : region_)
      lifetimes_.forEachOverlap(pb_.lo[r], pb_.hi[r], [&](int32_t i) {
        if (role_[i] == Role::None) {
          role_[i] = Role::Fixed;
          fixed_.push_back(i);
        }
      });

    // Who goes first: walk the peak stack (every buffer live at the peak) up
    // by offset; region buffers above a hole, or all for StackFirst.
    stack_.clear();
    for (const auto *ids : {&region_, &fixed_})
      for (int32_t i : *ids)
        if (pb_.lo[i] <= peak && peak < pb_.hi[i])
          stack_.push_back(i);
    std::sort(stack_.begin(), stack_.end(),
              [&](int32_t x, int32_t y) { return off[x] < off[y]; });
    int64_t top = 0;
    int32_t padded = -1;
    auto padding = [&](int32_t i) {
      return alignUp(pb_.size[i], pb_.alignment) - pb_.size[i];
    };
    for (int32_t i : stack_) {
      bool wholeStack =
          move == Move::StackFirst || move == Move::StackFirstBySize;
      if (move == Move::PaddedLast) {
        if (role_[i] == Role::Region &&
            (padded < 0 || padding(i) > padding(padded)))
          padded = i;
      } else if (role_[i] == Role::Region &&
                 (wholeStack || off[i] > alignUp(top, pb_.alignment))) {
        role_[i] = Role::First;
      }
      top = std::max(top, off[i] + pb_.size[i]);
    }
    if (padded >= 0)
      role_[padded] = Role::Last;
    const bool bySize =
        move == Move::HolesFirstBySize || move == Move::StackFirstBySize;
    std::sort(region_.begin(), region_.end(), [&](int32_t x, int32_t y) {
      bool fx = role_[x] == Role::First, fy = role_[y] == Role::First;
      if (fx != fy)
        return fx;
      bool lx = role_[x] == Role::Last, ly = role_[y] == Role::Last;
      if (lx != ly)
        return ly;
      if (bySize && pb_.size[x] != pb_.size[y])
        return pb_.size[x] > pb_.size[y];
      return off[x] != off[y] ? off[x] < off[y] : x < y;
    });

    placer_.clear();
    for (int32_t i : fixed_)
      placer_.occupy(i, off[i]);
    for (int32_t i : region_) {
      off[i] = placer_.lowest(i, Fit::First);
      placer_.occupy(i, off[i]);
    }
    for (const auto *ids : {&region_, &fixed_})
      for (int32_t i : *ids)
        role_[i] = Role::None;
  }

  const Problem &pb_;
  Placer &placer_;
  const int64_t bound_;
  const std::vector<int64_t> &live_;
  const size_t m_;
  IntervalIndex lifetimes_; ///< Every buffer, to find neighbours.
  std::vector<Role> role_;
  std::vector<bool> promoted_;
  std::vector<int32_t> region_, fixed_, stack_;
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
/// Squeaky-wheel optimization (Improve.h).
class SqueakyWheel {
public:
  /// `greedy`, if given, is the greedy-by-size packing: the first round.
  SqueakyWheel(const Problem &pb, Placer &placer, Squeak how, int64_t bound,
               const Seed *greedy)
      : pb_(pb), placer_(placer), how_(how), bound_(bound), greedy_(greedy),
        m_(pb.count()), live_(liveBytes(pb)), order_(orderBySize(pb)),
        priority_(m_) {
    for (size_t r = 0; r < m_; ++r)
      priority_[order_[r]] = double(r);
  }

  /// Returns the best pool, its offsets in `best`.
  int64_t run(std::vector<int64_t> &best) {
    globalRounds();
    if (!done(bestPool_)) {
      PeakRepair repair(pb_, placer_, bound_, live_);
      bestPool_ = repair.run(best_, bestOrder_, placer_.work() + kRepairWork);
    }
    best.swap(best_);
    return bestPool_;
  }

private:
  static constexpr int kMaxRounds = 200;
  static constexpr int kStaleRounds = 50;
  /// Work budgets, in Placer::work() units: ~5 global rounds for 100k
  /// buffers with ~16 conflicts each, hundreds for 1k.
  static constexpr int64_t kGlobalWork = 36'000'000;
  static constexpr int64_t kRepairWork = 14'000'000;

  bool done(int64_t pool) const { return pool <= bound_; }

  /// Within an alignment unit of the bound only the padding of the topmost
  /// buffer can still improve: worth an eighth of the budget at most.
  int64_t budgetLeft(int64_t start) const {
    int64_t budget =
        bestPool_ - bound_ < pb_.alignment ? kGlobalWork / 8 : kGlobalWork;
    return start + budget - placer_.work();
  }

  bool record(int64_t pool, const std::vector<int64_t> &off) {
    if (pool >= bestPool_)
      return false;
    bestPool_ = pool;
    best_ = off;
    return true;
  }

  int64_t top(const std::vector<int64_t> &off, size_t i) const {
    return off[i] + pb_.size[i];
  }

  /// Moves the buffers to blame for packing `off` (of pool `pool`, with its
  /// peak in slot `peak`) forward in order_. Only they move, so the new order
  /// is a merge of the untouched rest with them, not a full sort.
  void blame(const std::vector<int64_t> &off, int64_t pool, int32_t peak) {
    // In bytes: how far a buffer reaches above the bound, and at least half
    // the excess for those in the peak stack.
    auto bytes = [&](int32_t i) {
      bool atPeak = pb_.lo[i] <= peak && peak < pb_.hi[i];
      return std::max<int64_t>(top(off, i) - bound_,
                               atPeak ? (pool - bound_) / 2 : 0);
    };
    std::vector<int32_t> blamed, rest;
    for (int32_t i : order_)
      (bytes(i) > 0 ? blamed : rest).push_back(i);
    if (how_ == Squeak::ToFront) {
      double front = priority_[order_.front()] - double(blamed.size());
      for (int32_t i : blamed)
        priority_[i] = front++;
      order_ = std::move(blamed);
      order_.insert(order_.end(), rest.begin(), rest.end());
      return;
    }
    const double scale = 0.5 * double(m_) / double(pool - bound_);
    for (int32_t i : blamed)
      priority_[i] -= scale * double(bytes(i));
    auto before = [&](int32_t x, int32_t y) {
      return priority_[x] != priority_[y] ? priority_[x] < priority_[y] : x < y;
    };
    std::sort(blamed.begin(), blamed.end(), before);
    order_.clear();
    std::merge(blamed.begin(), blamed.end(), rest.begin(), rest.end(),
               std::back_inserter(order_), before);
  }

  void globalRounds() {
    std::vector<int64_t> off;
    const int64_t start = placer_.work();
    int64_t roundWork = greedy_ ? greedy_->work : 0; // the cost of one round
    for (int round = 0, stale = 0; round < kMaxRounds; ++round) {
      int64_t pool;
      if (round == 0 && greedy_) { // order_ starts as greedy-by-size
        off = greedy_->offsets;
        pool = poolOf(pb_, off);
      } else {
        int64_t before = placer_.work();
        pool = placer_.place(order_, Fit::First, off);
        roundWork = placer_.work() - before;
      }
      if (record(pool, off)) {
        bestOrder_ = order_;
        stale = 0;
      } else {
        ++stale;
      }
      if (done(pool) || stale >= kStaleRounds || roundWork > budgetLeft(start))
        return;
      blame(off, pool, peakOf(pb_, live_, off).second);
    }
  }

  const Problem &pb_;
  Placer &placer_;
  const Squeak how_;
  const int64_t bound_;
  const Seed *greedy_;
  const size_t m_;
  std::vector<int64_t> live_;    ///< Bytes live in each slot.
  std::vector<int32_t> order_;   ///< This round's order: by priority_, then id.
  std::vector<double> priority_; ///< Lower goes first.
  std::vector<int64_t> best_;
  int64_t bestPool_ = INT64_MAX;
  std::vector<int32_t> bestOrder_; ///< The global round that found best_.
};

} // namespace

int64_t squeakyWheel(const Problem &pb, Placer &placer, Squeak how,
                     int64_t bound, const Seed *greedy,
                     std::vector<int64_t> &best) {
  return SqueakyWheel(pb, placer, how, bound, greedy).run(best);
}

} // namespace packing_detail
} // namespace memplan
