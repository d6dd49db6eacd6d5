//===- packing.cpp - Offset assignment for buffers with lifetimes ---------===//
//
// All placement heuristics share one engine: visit the buffers in some order
// and put each into a gap between the already-placed buffers whose lifetimes
// overlap its own. What makes that fast is IntervalIndex, which reports exactly
// those placed buffers in O(log T + k) instead of scanning all of them.
//
//===----------------------------------------------------------------------===//

#include "memplan/packing.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <exception>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>

namespace memplan {
namespace {

/// Every size, offset and pool stays below this, so sums never overflow.
constexpr int64_t kLimit = int64_t(1) << 62;

int64_t alignUp(int64_t x, int64_t a) { return (x + a - 1) & -a; }

bool isActive(const BufferSet &b, size_t i) {
  return b.size[i] > 0 && b.start[i] < b.end[i];
}

//===----------------------------------------------------------------------===//
// Segment-tree plumbing over P (a power of two) leaves; node 1 is the root
// and leaf x is node P + x.
//===----------------------------------------------------------------------===//

size_t leavesFor(size_t n) {
  size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// The O(log P) disjoint nodes whose leaves make up exactly [lo, hi).
template <class F>
void forCoverNodes(size_t P, size_t lo, size_t hi, F &&f) {
  for (lo += P, hi += P; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1)
      f(lo++);
    if (hi & 1)
      f(--hi);
  }
}

/// Leaf x and all its ancestors.
template <class F>
void forPathNodes(size_t P, size_t x, F &&f) {
  for (x += P; x > 0; x >>= 1)
    f(x);
}

//===----------------------------------------------------------------------===//
// IntervalIndex
//===----------------------------------------------------------------------===//

/// A growing set of intervals [lo[id], hi[id]) over slots 0..S-1 that reports
/// the members overlapping a query range in O(log S + k).
///
/// An interval overlapping [a, b) either contains slot a or starts inside
/// (a, b), never both. So each member is filed twice: in the canonical cover
/// nodes of its range (those on the root-to-leaf path of a are exactly the
/// members containing a), and in every node above its first slot (the
/// canonical nodes of (a, b) then hold exactly the members starting there).
///
/// All possible members are known up front, so the per-node lists live in one
/// flat array with fixed capacities and no allocation happens after
/// construction. Erased members are dropped lazily by the queries that meet
/// them, each at most once per node, which keeps queries output-sensitive.
class IntervalIndex {
public:
  IntervalIndex(const std::vector<int32_t> &lo, const std::vector<int32_t> &hi,
                size_t numSlots)
      : lo_(lo), hi_(hi), P_(leavesFor(std::max<size_t>(numSlots, 1))),
        nodes_(2 * P_ + 1), dead_(lo.size(), 0) {
    // Count each node's capacity into the next node's begin, then prefix-sum.
    for (size_t id = 0; id < lo.size(); ++id) {
      forCoverNodes(P_, lo[id], hi[id], [&](size_t n) { ++nodes_[n + 1].cover.begin; });
      forPathNodes(P_, lo[id], [&](size_t n) { ++nodes_[n + 1].starts.begin; });
    }
    for (size_t n = 1; n < nodes_.size(); ++n) {
      nodes_[n].cover.begin += nodes_[n - 1].cover.begin;
      nodes_[n].starts.begin += nodes_[n - 1].starts.begin;
    }
    coverItems_.resize(nodes_.back().cover.begin);
    startItems_.resize(nodes_.back().starts.begin);
  }

  /// Empties the set, keeping the storage.
  void clear() {
    for (Node &n : nodes_)
      n.cover.fill = n.starts.fill = 0;
    std::fill(dead_.begin(), dead_.end(), 0);
    anyDead_ = false;
  }

  /// Each id may be inserted at most once between clears.
  void insert(int32_t id) {
    forCoverNodes(P_, lo_[id], hi_[id], [&](size_t n) {
      List &l = nodes_[n].cover;
      coverItems_[l.begin + l.fill++] = id;
    });
    forPathNodes(P_, lo_[id], [&](size_t n) {
      List &l = nodes_[n].starts;
      startItems_[l.begin + l.fill++] = id;
    });
  }

  void erase(int32_t id) {
    dead_[id] = 1;
    anyDead_ = true;
  }

  /// Calls f(id) once for every member overlapping [lo, hi).
  template <class F>
  void forEachOverlap(size_t lo, size_t hi, F &&f) {
    forPathNodes(P_, lo, [&](size_t n) { scan(nodes_[n].cover, coverItems_, f); });
    forCoverNodes(P_, lo + 1, hi,
                  [&](size_t n) { scan(nodes_[n].starts, startItems_, f); });
  }

private:
  /// A node's members are items[begin, begin + fill).
  struct List {
    uint32_t begin = 0, fill = 0;
  };
  struct Node {  // both lists side by side: one cache miss per node
    List cover, starts;
  };

  template <class F>
  void scan(List &l, std::vector<int32_t> &items, F &f) {
    int32_t *it = items.data() + l.begin;
    for (uint32_t k = 0; k < l.fill;) {
      int32_t id = it[k];
      if (anyDead_ && dead_[id]) {
        it[k] = it[--l.fill];
        continue;
      }
      f(id);
      ++k;
    }
  }

  const std::vector<int32_t> &lo_, &hi_;
  size_t P_;
  std::vector<Node> nodes_;
  std::vector<int32_t> coverItems_, startItems_;
  std::vector<char> dead_;
  bool anyDead_ = false;
};

//===----------------------------------------------------------------------===//
// The problem in dense form
//===----------------------------------------------------------------------===//

/// The active buffers, renumbered 0..m-1 in input order, with lifetimes
/// mapped to slots: slot k is the span between the k-th and (k+1)-th distinct
/// time point. Overlap of [lo, hi) slot ranges is overlap of the lifetimes.
struct Problem {
  std::vector<int32_t> id;  ///< Input index of each active buffer.
  std::vector<int64_t> size, start;
  std::vector<uint64_t> length;  ///< end - start, which may not fit in int64.
  std::vector<int32_t> lo, hi;
  size_t numSlots = 0;
  int64_t alignment = 1;
  int64_t minPool = 0;  ///< Largest inactive buffer: it sits at offset 0.

  size_t count() const { return id.size(); }
};

/// Replaces the endpoints of intervals [lo[k], hi[k]) by their ranks among
/// the distinct endpoint values, which preserves every overlap relation.
/// Returns the number of slots (distinct values - 1).
size_t compress(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi,
                std::vector<int32_t> &loRank, std::vector<int32_t> &hiRank) {
  const size_t m = lo.size();
  std::vector<std::pair<int64_t, uint32_t>> ends(2 * m);  // (value, 2k or 2k+1)
  for (size_t k = 0; k < m; ++k) {
    ends[2 * k] = {lo[k], uint32_t(2 * k)};
    ends[2 * k + 1] = {hi[k], uint32_t(2 * k + 1)};
  }
  std::sort(ends.begin(), ends.end());
  loRank.resize(m);
  hiRank.resize(m);
  int32_t rank = -1;
  for (size_t e = 0; e < ends.size(); ++e) {
    if (e == 0 || ends[e].first != ends[e - 1].first)
      ++rank;
    uint32_t k = ends[e].second;
    (k & 1 ? hiRank : loRank)[k >> 1] = rank;
  }
  return rank > 0 ? size_t(rank) : 0;
}

Problem makeProblem(const BufferSet &b, int64_t alignment) {
  Problem pb;
  pb.alignment = alignment;
  std::vector<int64_t> end;
  for (size_t i = 0; i < b.count; ++i) {
    if (!isActive(b, i)) {
      pb.minPool = std::max(pb.minPool, b.size[i]);
      continue;
    }
    pb.id.push_back(int32_t(i));
    pb.size.push_back(b.size[i]);
    pb.start.push_back(b.start[i]);
    end.push_back(b.end[i]);
    pb.length.push_back(uint64_t(b.end[i]) - uint64_t(b.start[i]));
  }
  pb.numSlots = compress(pb.start, end, pb.lo, pb.hi);
  return pb;
}

int64_t poolOf(const Problem &pb, const std::vector<int64_t> &off) {
  int64_t pool = pb.minPool;
  for (size_t i = 0; i < pb.count(); ++i)
    pool = std::max(pool, off[i] + pb.size[i]);
  return pool;
}

//===----------------------------------------------------------------------===//
// Placement engine
//===----------------------------------------------------------------------===//

enum class Fit {
  First,  ///< The lowest gap that fits.
  Best,   ///< The smallest gap that fits (lowest on ties), else the top.
};

/// The placement engine and its scratch space; one per thread.
class Placer {
public:
  explicit Placer(const Problem &pb)
      : pb_(pb), index_(pb.lo, pb.hi, pb.numSlots), span_(pb.count()) {}

  /// Places the active buffers one by one in `order`, each into an aligned gap
  /// between the already-placed buffers whose lifetimes overlap its own.
  /// Returns the pool size.
  int64_t place(const std::vector<int32_t> &order, Fit fit, std::vector<int64_t> &off) {
    index_.clear();
    off.assign(pb_.count(), 0);
    const int64_t a = pb_.alignment;
    for (int32_t i : order) {
      busy_.clear();
      index_.forEachOverlap(pb_.lo[i], pb_.hi[i],
                            [&](int32_t j) { busy_.push_back(span_[j]); });
      work_ += kPlaceWork + int64_t(busy_.size());
      std::sort(busy_.begin(), busy_.end(),
                [](const auto &x, const auto &y) { return x.first < y.first; });
      const int64_t need = pb_.size[i];
      int64_t top = 0, at = -1, atGap = INT64_MAX;
      for (auto [lo, hi] : busy_) {
        int64_t cand = alignUp(top, a);
        int64_t gap = lo - cand;
        if (gap >= need && gap < atGap) {
          at = cand;
          atGap = gap;
          if (fit == Fit::First)
            break;
        }
        top = std::max(top, hi);
      }
      off[i] = at >= 0 ? at : alignUp(top, a);
      span_[i] = {off[i], off[i] + need};
      index_.insert(i);
    }
    return poolOf(pb_, off);
  }

  /// Roughly proportional to the time spent placing so far.
  int64_t work() const { return work_; }

private:
  /// Cost of one placement besides its conflicts, in conflicts.
  static constexpr int64_t kPlaceWork = 16;

  const Problem &pb_;
  IntervalIndex index_;
  std::vector<std::pair<int64_t, int64_t>> span_;  ///< Placed [offset, end).
  std::vector<std::pair<int64_t, int64_t>> busy_;
  int64_t work_ = 0;
};

/// Ids 0..m-1 sorted by key(id), ties by id. The keys are computed once, as
/// sorting with an indirect comparator is cache-hostile.
template <class KeyFn>
std::vector<int32_t> sortedIds(size_t m, KeyFn key) {
  std::vector<std::pair<decltype(key(0)), int32_t>> keyed(m);
  for (size_t i = 0; i < m; ++i)
    keyed[i] = {key(int32_t(i)), int32_t(i)};
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> order(m);
  for (size_t i = 0; i < m; ++i)
    order[i] = keyed[i].second;
  return order;
}

/// Largest first, so big buffers claim the bottom and small ones fill holes;
/// among equal sizes the longer-lived first, as they constrain more buffers.
std::vector<int32_t> orderBySize(const Problem &pb) {
  return sortedIds(pb.count(), [&](int32_t i) {
    return std::make_tuple(-pb.size[i], ~pb.length[i], pb.start[i]);
  });
}

/// Program order, the way an online allocator would see the buffers.
std::vector<int32_t> orderByStart(const Problem &pb) {
  return sortedIds(pb.count(),
                   [&](int32_t i) { return std::make_pair(pb.start[i], -pb.size[i]); });
}

/// TFLite-style "greedy by breadth": visit program points from the one with
/// the most live bytes down, and at each the not yet placed live buffers from
/// largest down. A buffer is thus placed at the busiest point of its lifetime,
/// i.e. it sorts by the best breadth rank over its slots (a range minimum).
std::vector<int32_t> orderByBreadth(const Problem &pb) {
  const size_t S = pb.numSlots, P = leavesFor(std::max<size_t>(S, 1));
  std::vector<int64_t> breadth(S + 1, 0);
  for (size_t i = 0; i < pb.count(); ++i) {
    breadth[pb.lo[i]] += pb.size[i];
    breadth[pb.hi[i]] -= pb.size[i];
  }
  std::partial_sum(breadth.begin(), breadth.end(), breadth.begin());
  std::vector<int32_t> slots(S);
  std::iota(slots.begin(), slots.end(), 0);
  std::sort(slots.begin(), slots.end(), [&](int32_t x, int32_t y) {
    return breadth[x] != breadth[y] ? breadth[x] > breadth[y] : x < y;
  });
  std::vector<int32_t> minRank(2 * P, INT32_MAX);
  for (size_t r = 0; r < S; ++r)
    minRank[P + slots[r]] = int32_t(r);
  for (size_t n = P - 1; n >= 1; --n)
    minRank[n] = std::min(minRank[2 * n], minRank[2 * n + 1]);
  std::vector<int32_t> key(pb.count(), INT32_MAX);
  for (size_t i = 0; i < pb.count(); ++i)
    forCoverNodes(P, pb.lo[i], pb.hi[i],
                  [&](size_t n) { key[i] = std::min(key[i], minRank[n]); });
  return sortedIds(pb.count(), [&](int32_t i) {
    return std::make_tuple(key[i], -pb.size[i], ~pb.length[i]);
  });
}

/// Slot-based reuse in program order, the baseline of the MLIR buffer-reuse
/// RFC: the pool is a stack of slots, each as big as the largest buffer it ever
/// held. A buffer takes the smallest free slot that fits, else grows the
/// largest free slot, else opens a new slot on top. Slot offsets are fixed only
/// at the end, so growing any slot is fine: slots never share bytes.
void linearScan(const Problem &pb, std::vector<int64_t> &off) {
  using Entry = std::pair<int64_t, int32_t>;  // (key, slot)
  std::vector<int64_t> slotSize;
  std::vector<int32_t> slotOf(pb.count());
  std::set<Entry> freeSlots;  // (size, slot)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> busy;  // (hi, slot)
  std::vector<int32_t> order = sortedIds(pb.count(), [&](int32_t i) { return pb.start[i]; });
  for (int32_t i : order) {
    while (!busy.empty() && busy.top().first <= pb.lo[i]) {
      int32_t s = busy.top().second;
      busy.pop();
      freeSlots.emplace(slotSize[s], s);
    }
    const int64_t need = alignUp(pb.size[i], pb.alignment);
    int32_t s;
    auto fit = freeSlots.lower_bound({need, INT32_MIN});
    if (fit == freeSlots.end() && !freeSlots.empty())
      fit = std::prev(freeSlots.end());
    if (fit != freeSlots.end()) {
      s = fit->second;
      freeSlots.erase(fit);
      slotSize[s] = std::max(slotSize[s], need);
    } else {
      s = int32_t(slotSize.size());
      slotSize.push_back(need);
    }
    slotOf[i] = s;
    busy.emplace(pb.hi[i], s);
  }
  std::vector<int64_t> base(slotSize.size() + 1, 0);
  std::partial_sum(slotSize.begin(), slotSize.end(), base.begin() + 1);
  off.resize(pb.count());
  for (size_t i = 0; i < pb.count(); ++i)
    off[i] = base[slotOf[i]];
}

/// Live bytes peak over time; see PoolLowerBound.
PoolLowerBound lowerBoundOf(const Problem &pb) {
  const int64_t alignment = pb.alignment;
  const size_t S = pb.numSlots, P = leavesFor(std::max<size_t>(S, 1));
  std::vector<int64_t> raw(S + 1, 0), aligned(S + 1, 0);
  std::vector<int64_t> maxPad(2 * P, 0);  // chmax stored on cover nodes
  for (size_t i = 0; i < pb.count(); ++i) {
    int64_t a = alignUp(pb.size[i], alignment);
    raw[pb.lo[i]] += pb.size[i];
    raw[pb.hi[i]] -= pb.size[i];
    aligned[pb.lo[i]] += a;
    aligned[pb.hi[i]] -= a;
    int64_t pad = a - pb.size[i];
    forCoverNodes(P, pb.lo[i], pb.hi[i],
                  [&](size_t n) { maxPad[n] = std::max(maxPad[n], pad); });
  }
  for (size_t n = 1; n < P; ++n)  // push down to the leaves
    for (size_t c : {2 * n, 2 * n + 1})
      maxPad[c] = std::max(maxPad[c], maxPad[n]);
  PoolLowerBound lb{pb.minPool, pb.minPool};
  int64_t r = 0, al = 0;
  for (size_t s = 0; s < S; ++s) {
    r += raw[s];
    al += aligned[s];
    lb.raw = std::max(lb.raw, r);
    lb.aligned = std::max(lb.aligned, al - maxPad[P + s]);
  }
  return lb;
}


/// Squeaky-wheel optimization (Joslin & Clements, 1999) over greedy first-fit.
/// The buffers that end up above the lower bound are the squeaky wheels: they
/// get placed earlier in the next round, and the best packing seen is kept.
/// Rounds stop at the bound, after kMaxRounds, or when the work budget is
/// spent; never on a clock, so the result is deterministic.
enum class Squeak {
  /// Classic: a priority per buffer, lowered each round in proportion to how
  /// far the buffer sticks out above the bound. Moves gradually.
  Blame,
  /// All squeaky buffers jump to the front, in their current order. Erratic,
  /// which helps it escape where Blame settles.
  ToFront,
};

constexpr int kMaxRounds = 100;
constexpr int64_t kSqueakyWork = 6'000'000;

int64_t squeakyWheel(const Problem &pb, Placer &placer, Squeak how,
                     int64_t bound, std::vector<int64_t> &best) {
  const size_t m = pb.count();
  std::vector<int32_t> order = orderBySize(pb);
  std::vector<double> priority(m);
  for (size_t r = 0; r < m; ++r)
    priority[order[r]] = double(r);
  std::vector<int64_t> off;
  int64_t bestPool = INT64_MAX;
  const int64_t budget = placer.work() + kSqueakyWork;
  for (int round = 0; round < kMaxRounds; ++round) {
    int64_t pool = placer.place(order, Fit::First, off);
    if (pool < bestPool) {
      bestPool = pool;
      best = off;
    }
    if (pool <= bound || placer.work() >= budget)
      break;
    auto squeaks = [&](int32_t i) { return off[i] + pb.size[i] > bound; };
    if (how == Squeak::ToFront) {
      std::stable_partition(order.begin(), order.end(), squeaks);
      continue;
    }
    const double scale = 0.5 * double(m) / double(pool - bound);
    for (size_t i = 0; i < m; ++i)
      if (squeaks(int32_t(i)))
        priority[i] -= scale * double(off[i] + pb.size[i] - bound);
    order = sortedIds(m, [&](int32_t i) { return priority[i]; });
  }
  return bestPool;
}

struct Algorithm {
  const char *name;
  /// Writes offsets of the active buffers, returns the pool size.
  int64_t (*run)(const Problem &, Placer &, const PoolLowerBound &, std::vector<int64_t> &);
};

/// All single algorithms, in the order "best" prefers them on ties.
const std::vector<Algorithm> &algorithms() {
  using LB = const PoolLowerBound &;
  using Off = std::vector<int64_t> &;
  static const std::vector<Algorithm> all = {
      {"greedy-by-size",
       [](const Problem &pb, Placer &p, LB, Off off) {
         return p.place(orderBySize(pb), Fit::First, off);
       }},
      {"greedy-by-size-best-fit",
       [](const Problem &pb, Placer &p, LB, Off off) {
         return p.place(orderBySize(pb), Fit::Best, off);
       }},
      {"greedy-by-breadth",
       [](const Problem &pb, Placer &p, LB, Off off) {
         return p.place(orderByBreadth(pb), Fit::Best, off);
       }},
      {"best-fit",
       [](const Problem &pb, Placer &p, LB, Off off) {
         return p.place(orderByStart(pb), Fit::Best, off);
       }},
      {"linear-scan",
       [](const Problem &pb, Placer &, LB, Off off) {
         linearScan(pb, off);
         return poolOf(pb, off);
       }},
      {"squeaky-wheel",
       [](const Problem &pb, Placer &p, LB lb, Off off) {
         return squeakyWheel(pb, p, Squeak::Blame, lb.aligned, off);
       }},
      {"squeaky-wheel-to-front",
       [](const Problem &pb, Placer &p, LB lb, Off off) {
         return squeakyWheel(pb, p, Squeak::ToFront, lb.aligned, off);
       }},
  };
  return all;
}

/// Runs tasks 0..count-1 on up to `threads` threads, each with its own Placer
/// (built lazily: it is the big allocation). Rethrows the first failure.
void runTasks(const Problem &pb, size_t count, size_t threads,
              const std::function<void(size_t, Placer &)> &task) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  auto worker = [&] {
    std::unique_ptr<Placer> placer;
    for (size_t t; (t = next++) < count;) {
      try {
        if (!placer)
          placer = std::make_unique<Placer>(pb);
        task(t, *placer);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (size_t k = 1; k < threads; ++k)
      pool.emplace_back(worker);
  } catch (const std::system_error &) {
    // No more threads to be had: the ones we have (at least this one) suffice.
  }
  worker();
  for (std::thread &t : pool)
    t.join();
  for (std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}

}  // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

const char *violationKindName(PackingViolation::Kind kind) {
  switch (kind) {
  case PackingViolation::Kind::Overlap:
    return "overlap";
  case PackingViolation::Kind::Misaligned:
    return "misaligned";
  case PackingViolation::Kind::Negative:
    return "negative";
  case PackingViolation::Kind::OutOfPool:
    return "out-of-pool";
  }
  return "?";
}

const std::vector<std::string> &packingAlgorithms() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Algorithm &alg : algorithms())
      v.push_back(alg.name);
    v.push_back("best");
    return v;
  }();
  return names;
}

void validateBuffers(const BufferSet &b, int64_t alignment) {
  if (alignment < 1 || alignment > kLimit || (alignment & (alignment - 1)))
    throw std::invalid_argument("alignment must be a power of two in [1, 2^62], got " +
                                std::to_string(alignment));
  // Keeps IntervalIndex's uint32 list positions from overflowing.
  if (b.count > (size_t(1) << 24))
    throw std::invalid_argument("too many buffers (at most 2^24): " +
                                std::to_string(b.count));
  int64_t total = 0;
  for (size_t i = 0; i < b.count; ++i) {
    std::string which = "buffer " + std::to_string(i);
    if (b.start[i] > b.end[i])
      throw std::invalid_argument(which + ": start " + std::to_string(b.start[i]) +
                                  " > end " + std::to_string(b.end[i]));
    if (b.size[i] < 0)
      throw std::invalid_argument(which + ": negative size " + std::to_string(b.size[i]));
    if (b.size[i] >= kLimit || (total += alignUp(b.size[i], alignment)) >= kLimit)
      throw std::invalid_argument("total aligned size reaches 2^62 bytes at " + which);
  }
}

PoolLowerBound poolLowerBound(const BufferSet &b, int64_t alignment) {
  validateBuffers(b, alignment);
  return lowerBoundOf(makeProblem(b, alignment));
}

Packing pack(const BufferSet &b, const std::string &algorithm, int64_t alignment) {
  validateBuffers(b, alignment);
  const auto &names = packingAlgorithms();
  if (std::find(names.begin(), names.end(), algorithm) == names.end()) {
    std::string all;
    for (const std::string &n : names)
      all += (all.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown packing algorithm '" + algorithm +
                                "' (expected one of: " + all + ")");
  }
  Problem pb = makeProblem(b, alignment);
  Packing result;
  result.lowerBound = lowerBoundOf(pb);

  std::vector<const Algorithm *> chosen;
  for (const Algorithm &alg : algorithms())
    if (algorithm == "best" || algorithm == alg.name)
      chosen.push_back(&alg);
  std::vector<int64_t> pools(chosen.size());
  std::vector<std::vector<int64_t>> offsets(chosen.size());
  // Threads only pay off once a placement takes milliseconds.
  size_t threads = pb.count() < 4096 ? 1 : std::min<size_t>(chosen.size(), 8);
  threads = std::min<size_t>(threads, std::max(1u, std::thread::hardware_concurrency()));
  runTasks(pb, chosen.size(), threads, [&](size_t t, Placer &placer) {
    pools[t] = chosen[t]->run(pb, placer, result.lowerBound, offsets[t]);
  });

  size_t win = 0;
  for (size_t t = 0; t < chosen.size(); ++t) {
    result.perAlgorithm.emplace_back(chosen[t]->name, pools[t]);
    if (pools[t] < pools[win])
      win = t;
  }
  result.algorithm = chosen[win]->name;
  result.poolSize = pools[win];
  result.offsets.assign(b.count, 0);
  for (size_t k = 0; k < pb.count(); ++k)
    result.offsets[pb.id[k]] = offsets[win][k];
  return result;
}

std::vector<PackingViolation> verifyPacking(const BufferSet &b, const int64_t *offsets,
                                            int64_t alignment, int64_t poolSize,
                                            int64_t limit) {
  validateBuffers(b, alignment);
  using Kind = PackingViolation::Kind;
  std::vector<PackingViolation> out;
  auto full = [&] { return limit >= 0 && int64_t(out.size()) >= limit; };
  // Byte ends saturate so that absurd offsets cannot overflow.
  auto byteEnd = [&](size_t i) {
    return offsets[i] > INT64_MAX - b.size[i] ? INT64_MAX : offsets[i] + b.size[i];
  };
  for (size_t i = 0; i < b.count && !full(); ++i) {
    if (b.size[i] == 0)
      continue;
    int64_t id = int64_t(i);
    if (offsets[i] < 0)
      out.push_back({Kind::Negative, id, -1});
    else if (offsets[i] & (alignment - 1))
      out.push_back({Kind::Misaligned, id, -1});
    if (poolSize >= 0 && byteEnd(i) > poolSize && !full())
      out.push_back({Kind::OutOfPool, id, -1});
  }

  // Sweep time, keeping the live buffers in an IntervalIndex over bytes: each
  // newly live buffer is checked against the live ones, so every overlapping
  // pair is met exactly once.
  std::vector<int32_t> ids;
  std::vector<int64_t> byteLo, byteHi;
  for (size_t i = 0; i < b.count; ++i)
    if (isActive(b, i)) {
      ids.push_back(int32_t(i));
      byteLo.push_back(offsets[i]);
      byteHi.push_back(byteEnd(i));
    }
  std::vector<int32_t> lo, hi;
  size_t numSlots = compress(byteLo, byteHi, lo, hi);
  const size_t m = ids.size();
  IntervalIndex live(lo, hi, numSlots);
  std::vector<int32_t> byStart(m), byEnd(m);
  std::iota(byStart.begin(), byStart.end(), 0);
  std::iota(byEnd.begin(), byEnd.end(), 0);
  std::sort(byStart.begin(), byStart.end(),
            [&](int32_t x, int32_t y) { return b.start[ids[x]] < b.start[ids[y]]; });
  std::sort(byEnd.begin(), byEnd.end(),
            [&](int32_t x, int32_t y) { return b.end[ids[x]] < b.end[ids[y]]; });
  size_t e = 0;
  for (int32_t k : byStart) {
    if (full())
      break;
    const int64_t t = b.start[ids[k]];
    for (; e < m && b.end[ids[byEnd[e]]] <= t; ++e)  // half-open: end == start is fine
      live.erase(byEnd[e]);
    if (lo[k] == hi[k])  // an offset so large that its end saturated: no bytes
      continue;
    live.forEachOverlap(lo[k], hi[k], [&](int32_t j) {
      if (!full())
        out.push_back({Kind::Overlap, std::min(ids[j], ids[k]), std::max(ids[j], ids[k])});
    });
    live.insert(k);
  }
  return out;
}

}  // namespace memplan
