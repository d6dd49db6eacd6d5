//===- PackingEngine.h - The shared packing engine --------------*- C++ -*-===//
//
// Private to lib/Reuse/Packing/. The shared packing engine: the dense problem
// (active buffers, compressed time slots), segment-tree interval indexes,
// PlacedSet and the Placer that puts buffers into gaps, the visiting orders,
// linear-scan and the pool lower bound.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_REUSE_PACKING_PACKINGENGINE_H
#define MEMPLAN_LIB_REUSE_PACKING_PACKINGENGINE_H

#include "memplan/Reuse/Packing.h"

#include <algorithm>
#include <climits>
#include <iterator>
#include <memory>
#include <numeric>
#include <queue>
#include <set>

namespace memplan {
namespace packing_detail {

/// Every size, offset and pool stays below this, so sums never overflow.
constexpr int64_t kLimit = int64_t(1) << 62;

inline int64_t alignUp(int64_t x, int64_t a) { return (x + a - 1) & -a; }

inline bool isActive(const BufferSet &b, size_t i) {
  return b.size[i] > 0 && b.start[i] < b.end[i];
}

//===----------------------------------------------------------------------===//
// Segment-tree plumbing over P (a power of two) leaves; node 1 is the root
// and leaf x is node P + x.
//===----------------------------------------------------------------------===//

inline size_t leavesFor(size_t n) {
  size_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// The O(log P) disjoint nodes whose leaves make up exactly [lo, hi).
template <class F> void forCoverNodes(size_t P, size_t lo, size_t hi, F &&f) {
  for (lo += P, hi += P; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1)
      f(lo++);
    if (hi & 1)
      f(--hi);
  }
}

/// Leaf x and all its ancestors.
template <class F> void forPathNodes(size_t P, size_t x, F &&f) {
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
      forCoverNodes(P_, lo[id], hi[id],
                    [&](size_t n) { ++nodes_[n + 1].cover.begin; });
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
  template <class F> void forEachOverlap(size_t lo, size_t hi, F &&f) {
    forPathNodes(P_, lo,
                 [&](size_t n) { scan(nodes_[n].cover, coverItems_, f); });
    forCoverNodes(P_, lo + 1, hi,
                  [&](size_t n) { scan(nodes_[n].starts, startItems_, f); });
  }

private:
  /// A node's members are items[begin, begin + fill).
  struct List {
    uint32_t begin = 0, fill = 0;
  };
  struct Node { // both lists side by side: one cache miss per node
    List cover, starts;
  };

  template <class F> void scan(List &l, std::vector<int32_t> &items, F &f) {
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
  std::vector<int32_t> id; ///< Input index of each active buffer.
  std::vector<int64_t> size, start;
  std::vector<uint64_t> length; ///< end - start, which may not fit in int64.
  std::vector<int32_t> lo, hi;
  size_t numSlots = 0;
  int64_t alignment = 1;
  int64_t minPool = 0; ///< Largest inactive buffer: it sits at offset 0.

  size_t count() const { return id.size(); }
};

/// Replaces the endpoints of intervals [lo[k], hi[k]) by their ranks among
/// the distinct endpoint values, which preserves every overlap relation.
/// Returns the number of slots (distinct values - 1).
size_t compress(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi,
                std::vector<int32_t> &loRank, std::vector<int32_t> &hiRank);

Problem makeProblem(const BufferSet &b, int64_t alignment);

/// Bytes live in each slot.
std::vector<int64_t> liveBytes(const Problem &pb);

int64_t poolOf(const Problem &pb, const std::vector<int64_t> &off);

/// The pairs of buffers whose lifetimes overlap, counted without listing
/// them.
int64_t countOverlappingPairs(const Problem &pb);

/// A capacity in alignment units, as the searches use it: with aligned
/// offsets, two buffers are disjoint in bytes iff their unit ranges are, and
/// only the top limit depends on a buffer's bytes within its last unit.
struct UnitCapacity {
  std::vector<int64_t> unit; ///< Each buffer's size in units, rounded up.
  /// The highest unit each buffer's top may reach: the capacity's whole
  /// units, plus one where the bytes of its last unit fit in the rest.
  std::vector<int64_t> cap;
  int64_t capQ = 0; ///< The highest of the caps.
};
UnitCapacity unitCapacity(const Problem &pb, int64_t capacity);

/// The buffers live in each slot of a problem, in one array: slot t's are
/// members[begin[t]] to members[begin[t + 1] - 1], by ascending id.
struct SlotMembers {
  std::vector<uint32_t> begin; ///< numSlots + 1 offsets into members.
  std::vector<int32_t> members;
};
SlotMembers slotMembers(const Problem &pb);

//===----------------------------------------------------------------------===//
// Placement engine
//===----------------------------------------------------------------------===//

enum class Fit {
  First, ///< The lowest gap that fits.
  Best,  ///< The smallest gap that fits (lowest on ties), else the top.
};

/// The placed buffers, to find those whose lifetimes overlap a new one's.
///
/// Most buffers live a few slots. Those ("short") sit in per-start-slot
/// buckets with their placement inline; a query scans the buckets of its own
/// slots and of the kShortSlots before it, which are adjacent in memory. The
/// others go to an IntervalIndex over blocks of kBlockSlots slots, which keeps
/// its tree shallow; the few false hits near block edges are filtered out.
class PlacedSet {
public:
  explicit PlacedSet(const Problem &pb) : info_(pb.count()) {
    const size_t S = pb.numSlots;
    buckets_.assign(S + 1, {0, 0});
    for (size_t i = 0; i < pb.count(); ++i) {
      info_[i] = {pb.lo[i], pb.hi[i], -1, pb.size[i]};
      if (pb.hi[i] - pb.lo[i] <= kShortSlots) {
        ++buckets_[pb.lo[i] + 1].begin;
        continue;
      }
      info_[i].longId = int32_t(long_.size());
      long_.push_back({pb.lo[i], pb.hi[i], 0, 0});
      blockLo_.push_back(pb.lo[i] / kBlockSlots);
      blockHi_.push_back((pb.hi[i] - 1) / kBlockSlots + 1);
    }
    for (size_t b = 1; b <= S; ++b)
      buckets_[b].begin += buckets_[b - 1].begin;
    entries_.resize(buckets_[S].begin);
    nonEmpty_.assign(S / 64 + 1, 0);
    longIndex_ = std::make_unique<IntervalIndex>(blockLo_, blockHi_,
                                                 S / kBlockSlots + 1);
  }

  int64_t sizeOf(int32_t i) const { return info_[i].size; }

  void clear() {
    for (Bucket &b : buckets_)
      b.fill = 0;
    std::fill(nonEmpty_.begin(), nonEmpty_.end(), 0);
    longIndex_->clear();
  }

  /// Buffer i now occupies bytes [off, end).
  void insert(int32_t i, int64_t off, int64_t end) {
    const Info &in = info_[i];
    if (in.longId >= 0) {
      long_[in.longId].off = off;
      long_[in.longId].end = end;
      longIndex_->insert(in.longId);
      return;
    }
    Bucket &b = buckets_[in.lo];
    entries_[b.begin + b.fill++] = {off, end, in.hi};
    nonEmpty_[in.lo / 64] |= uint64_t(1) << (in.lo % 64);
  }

  /// Calls f(off, end) for each placed buffer whose lifetime overlaps i's.
  template <class F> void forEachOverlap(int32_t i, F &&f) {
    const int32_t lo = info_[i].lo, hi = info_[i].hi;
    // Short buffers overlapping [lo, hi) start in (lo - kShortSlots, hi).
    const int32_t from = std::max(0, lo - kShortSlots + 1);
    for (int32_t w = from / 64; w <= (hi - 1) / 64; ++w) {
      uint64_t bits = nonEmpty_[w];
      if (w == from / 64)
        bits &= ~uint64_t(0) << (from % 64);
      if (w == (hi - 1) / 64 && (hi - 1) % 64 != 63)
        bits &= (uint64_t(1) << ((hi - 1) % 64 + 1)) - 1;
      for (; bits; bits &= bits - 1) {
        int32_t b = w * 64 + __builtin_ctzll(bits);
        const Entry *e = entries_.data() + buckets_[b].begin;
        for (uint32_t k = 0, n = buckets_[b].fill; k < n; ++k)
          if (b >= lo || e[k].hi > lo)
            f(e[k].off, e[k].end);
      }
    }
    longIndex_->forEachOverlap(lo / kBlockSlots, (hi - 1) / kBlockSlots + 1,
                               [&](int32_t k) {
                                 const Long &l = long_[k];
                                 if (l.lo < hi && l.hi > lo)
                                   f(l.off, l.end);
                               });
  }

private:
  static constexpr int32_t kShortSlots = 16;
  static constexpr int32_t kBlockSlots = 8;

  struct Info {             // what a query needs of a buffer, in one cache line
    int32_t lo, hi, longId; ///< longId: index into long_, or -1 if short.
    int64_t size;
  };
  struct Bucket { ///< Short buffers starting in one slot: entries_[begin,
                  ///< +fill).
    uint32_t begin, fill;
  };
  struct Entry {
    int64_t off, end;
    int32_t hi;
  };
  struct Long {
    int32_t lo, hi;
    int64_t off, end;
  };

  std::vector<Info> info_;
  std::vector<Bucket> buckets_;
  std::vector<Entry> entries_;
  std::vector<uint64_t> nonEmpty_; ///< Bit per bucket, to skip empty ones.
  std::vector<Long> long_;
  std::vector<int32_t> blockLo_, blockHi_;
  std::unique_ptr<IntervalIndex> longIndex_;
};

/// The placement engine and its scratch space; one per thread.
class Placer {
public:
  explicit Placer(const Problem &pb) : pb_(pb), placed_(pb) {}

  /// Places the active buffers one by one in `order`, each into an aligned gap
  /// between the already-placed buffers whose lifetimes overlap its own.
  /// Returns the pool size.
  int64_t place(const std::vector<int32_t> &order, Fit fit,
                std::vector<int64_t> &off) {
    clear();
    off.assign(pb_.count(), 0);
    for (int32_t i : order) {
      off[i] = lowest(i, fit);
      occupy(i, off[i]);
    }
    return poolOf(pb_, off);
  }

  /// Forgets every placed buffer.
  void clear() { placed_.clear(); }

  /// Buffer i is placed at `off`.
  void occupy(int32_t i, int64_t off) {
    ++work_;
    placed_.insert(i, off, off + placed_.sizeOf(i));
  }

  /// The offset buffer i would take now.
  int64_t lowest(int32_t i, Fit fit) {
    busy_.clear();
    placed_.forEachOverlap(
        i, [&](int64_t lo, int64_t hi) { busy_.push_back({lo, hi}); });
    // Sorting dominates with many conflicts: count k (1 + log2(k) / 2), which
    // radix sorting caps at 5k.
    const int64_t k = int64_t(busy_.size());
    work_ += kPlaceWork +
             k * (1 + std::min(63 - __builtin_clzll(uint64_t(k) | 1), 8) / 2);
    sortByOffset();
    const int64_t need = placed_.sizeOf(i), a = pb_.alignment;
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
    return at >= 0 ? at : alignUp(top, a);
  }

  /// Roughly proportional to the time spent placing so far.
  int64_t work() const { return work_; }

private:
  /// Cost of one placement besides its conflicts, in conflicts.
  static constexpr int64_t kPlaceWork = 16;
  /// Radix sort pays off from this many conflicts on.
  static constexpr size_t kRadixFrom = 256;

  /// Sorts busy_ by offset. With heavy overlap there are thousands per
  /// placement: then an LSD radix sort on the offsets (in alignment units,
  /// 11 bits a pass) beats comparison sorting several times over.
  void sortByOffset() {
    if (busy_.size() < kRadixFrom) {
      std::sort(busy_.begin(), busy_.end(),
                [](const auto &x, const auto &y) { return x.first < y.first; });
      return;
    }
    const int shift = __builtin_ctzll(uint64_t(pb_.alignment));
    uint64_t maxKey = 0;
    for (const auto &b : busy_)
      maxKey |= uint64_t(b.first) >> shift;
    scratch_.resize(busy_.size());
    constexpr int kBits = 11;
    for (int low = 0; (maxKey >> low) != 0; low += kBits) {
      size_t count[(1 << kBits) + 1] = {};
      auto digit = [&](const std::pair<int64_t, int64_t> &b) {
        return ((uint64_t(b.first) >> shift) >> low) & ((1 << kBits) - 1);
      };
      for (const auto &b : busy_)
        ++count[digit(b) + 1];
      for (int d = 0; d < (1 << kBits); ++d)
        count[d + 1] += count[d];
      for (const auto &b : busy_)
        scratch_[count[digit(b)]++] = b;
      busy_.swap(scratch_);
    }
  }

  const Problem &pb_;
  PlacedSet placed_;
  std::vector<std::pair<int64_t, int64_t>> busy_, scratch_;
  int64_t work_ = 0;
};

//===----------------------------------------------------------------------===//
// Orders and the algorithms that are one pass
//===----------------------------------------------------------------------===//

/// Ids 0..m-1 sorted by key(id), ties by id. The keys are computed once, as
/// sorting with an indirect comparator is cache-hostile.
template <class KeyFn> std::vector<int32_t> sortedIds(size_t m, KeyFn key) {
  std::vector<std::pair<decltype(key(0)), int32_t>> keyed(m);
  for (size_t i = 0; i < m; ++i)
    keyed[i] = {key(int32_t(i)), int32_t(i)};
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> order(m);
  for (size_t i = 0; i < m; ++i)
    order[i] = keyed[i].second;
  return order;
}

/// Calls f(i, j) once for each pair of buffers of `pb` whose lifetimes
/// overlap, i starting no earlier than j (a sweep in start order).
template <class F> void forEachOverlappingPair(const Problem &pb, F &&f) {
  std::vector<int32_t> byStart =
      sortedIds(pb.count(), [&](int32_t i) { return pb.lo[i]; });
  std::vector<int32_t> active;
  for (int32_t i : byStart) {
    size_t keep = 0;
    for (int32_t j : active)
      if (pb.hi[j] > pb.lo[i])
        active[keep++] = j;
    active.resize(keep);
    for (int32_t j : active)
      f(i, j);
    active.push_back(i);
  }
}

/// Largest first, so big buffers claim the bottom and small ones fill holes;
/// among equal sizes the longer-lived first, as they constrain more buffers.
std::vector<int32_t> orderBySize(const Problem &pb);

/// Program order, the way an online allocator would see the buffers.
std::vector<int32_t> orderByStart(const Problem &pb);

/// TFLite-style "greedy by breadth": visit program points from the one with
/// the most live bytes down, and at each the not yet placed live buffers from
/// largest down. A buffer is thus placed at the busiest point of its lifetime,
/// i.e. it sorts by the best breadth rank over its slots (a range minimum).
std::vector<int32_t> orderByBreadth(const Problem &pb);

/// Slot-based reuse in program order, the baseline of the MLIR buffer-reuse
/// RFC: the pool is a stack of slots, each as big as the largest buffer it ever
/// held. A buffer takes the smallest free slot that fits, else grows the
/// largest free slot, else opens a new slot on top. Slot offsets are fixed only
/// at the end, so growing any slot is fine: slots never share bytes.
void linearScan(const Problem &pb, std::vector<int64_t> &off);

/// What the buffers live in each slot need: their summed sizes (`raw`), and
/// their aligned sizes less the largest padding (`aligned`); see
/// PoolLowerBound.
void slotNeeds(const Problem &pb, std::vector<int64_t> &raw,
               std::vector<int64_t> &aligned);

/// Live bytes peak over time; see PoolLowerBound.
PoolLowerBound lowerBoundOf(const Problem &pb);

} // namespace packing_detail
} // namespace memplan

#endif // MEMPLAN_LIB_REUSE_PACKING_PACKINGENGINE_H
