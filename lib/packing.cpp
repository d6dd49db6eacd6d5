//===- packing.cpp - Offset assignment for buffers with lifetimes ---------===//
//
// Every heuristic here but linear-scan shares one engine (Placer): visit the
// buffers in some order and put each into a gap between the already-placed
// buffers whose lifetimes overlap its own. PlacedSet finds those buffers
// without scanning the others; the orders differ per algorithm. The
// squeaky-wheel algorithms iterate the engine, and PeakRepair re-runs it on
// the neighbourhood of the pool's peak.
//
// Buffers are renumbered densely (only active ones) and time is compressed to
// slots between distinct time points, so all structures are plain arrays.
//
//===----------------------------------------------------------------------===//

#include "memplan/packing.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <exception>
#include <iterator>
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

/// Bytes live in each slot.
std::vector<int64_t> liveBytes(const Problem &pb) {
  std::vector<int64_t> live(pb.numSlots + 1, 0);
  for (size_t i = 0; i < pb.count(); ++i) {
    live[pb.lo[i]] += pb.size[i];
    live[pb.hi[i]] -= pb.size[i];
  }
  std::partial_sum(live.begin(), live.end(), live.begin());
  return live;
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
    longIndex_ = std::make_unique<IntervalIndex>(blockLo_, blockHi_, S / kBlockSlots + 1);
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
  template <class F>
  void forEachOverlap(int32_t i, F &&f) {
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

  struct Info {  // what a query needs of a buffer, in one cache line
    int32_t lo, hi, longId;  ///< longId: index into long_, or -1 if short.
    int64_t size;
  };
  struct Bucket {  ///< Short buffers starting in one slot: entries_[begin, +fill).
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
  std::vector<uint64_t> nonEmpty_;  ///< Bit per bucket, to skip empty ones.
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
  int64_t place(const std::vector<int32_t> &order, Fit fit, std::vector<int64_t> &off) {
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
    placed_.forEachOverlap(i, [&](int64_t lo, int64_t hi) { busy_.push_back({lo, hi}); });
    // Sorting dominates with many conflicts: count k (1 + log2(k) / 2), which
    // radix sorting caps at 5k.
    const int64_t k = int64_t(busy_.size());
    work_ += kPlaceWork + k * (1 + std::min(63 - __builtin_clzll(uint64_t(k) | 1), 8) / 2);
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
  std::vector<int64_t> breadth = liveBytes(pb);
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

//===----------------------------------------------------------------------===//
// Improvement: squeaky wheel and peak repair
//===----------------------------------------------------------------------===//

/// The topmost buffer of a packing, and the busiest slot of its lifetime:
/// where the pool is decided.
std::pair<int32_t, int32_t> peakOf(const Problem &pb, const std::vector<int64_t> &live,
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
        lifetimes_(pb.lo, pb.hi, pb.numSlots), role_(m_, Role::None), promoted_(m_, 0) {
    for (size_t i = 0; i < m_; ++i)
      lifetimes_.insert(int32_t(i));
  }

  /// Improves `off`, produced by the global first-fit `order`, until no move
  /// helps or the placer's work reaches `budget`. Returns the pool.
  int64_t run(std::vector<int64_t> &off, std::vector<int32_t> order, int64_t budget) {
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

  enum class Move { HolesFirst, StackFirst, HolesFirstBySize, StackFirstBySize, PaddedLast };
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
    for (size_t i = 0; i < m_; ++i)  // saturating: many buffers may stick out
      s.excess = std::min(INT64_MAX - kLimit,
                          s.excess + std::max<int64_t>(0, off[i] + pb_.size[i] - bound_));
    return s;
  }

  bool accept(std::vector<int64_t> &trial, std::vector<int64_t> &off, Score &score) {
    Score s = scoreOf(trial);
    if (!(s < score))
      return false;
    score = s;
    off.swap(trial);
    return true;
  }

  /// `order` with the long-lived buffers live at `peak` (and those promoted
  /// before) first; empty if there are no new ones.
  std::vector<int32_t> promote(const std::vector<int32_t> &order, int32_t peak) {
    bool fresh = false;
    for (size_t i = 0; i < m_; ++i)
      if (pb_.hi[i] - pb_.lo[i] > kMaxSpan && pb_.lo[i] <= peak && peak < pb_.hi[i] &&
          !promoted_[i])
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

  void replaceNear(int32_t peak, int32_t window, Move move, std::vector<int64_t> &off) {
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
    auto padding = [&](int32_t i) { return alignUp(pb_.size[i], pb_.alignment) - pb_.size[i]; };
    for (int32_t i : stack_) {
      bool wholeStack = move == Move::StackFirst || move == Move::StackFirstBySize;
      if (move == Move::PaddedLast) {
        if (role_[i] == Role::Region && (padded < 0 || padding(i) > padding(padded)))
          padded = i;
      } else if (role_[i] == Role::Region &&
                 (wholeStack || off[i] > alignUp(top, pb_.alignment))) {
        role_[i] = Role::First;
      }
      top = std::max(top, off[i] + pb_.size[i]);
    }
    if (padded >= 0)
      role_[padded] = Role::Last;
    const bool bySize = move == Move::HolesFirstBySize || move == Move::StackFirstBySize;
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
  IntervalIndex lifetimes_;  ///< Every buffer, to find neighbours.
  std::vector<Role> role_;
  std::vector<bool> promoted_;
  std::vector<int32_t> region_, fixed_, stack_;
};

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
class SqueakyWheel {
public:
  /// `greedy`, if given, is the greedy-by-size packing: the first round.
  SqueakyWheel(const Problem &pb, Placer &placer, Squeak how, int64_t bound,
               const Seed *greedy)
      : pb_(pb), placer_(placer), how_(how), bound_(bound), greedy_(greedy),
        m_(pb.count()), live_(liveBytes(pb)), order_(orderBySize(pb)), priority_(m_) {
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
    int64_t budget = bestPool_ - bound_ < pb_.alignment ? kGlobalWork / 8 : kGlobalWork;
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
      return std::max<int64_t>(top(off, i) - bound_, atPeak ? (pool - bound_) / 2 : 0);
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
    int64_t roundWork = greedy_ ? greedy_->work : 0;  // the cost of one round
    for (int round = 0, stale = 0; round < kMaxRounds; ++round) {
      int64_t pool;
      if (round == 0 && greedy_) {  // order_ starts as greedy-by-size
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
  std::vector<int64_t> live_;     ///< Bytes live in each slot.
  std::vector<int32_t> order_;    ///< This round's order: by priority_, then id.
  std::vector<double> priority_;  ///< Lower goes first.
  std::vector<int64_t> best_;
  int64_t bestPool_ = INT64_MAX;
  std::vector<int32_t> bestOrder_;  ///< The global round that found best_.
};

//===----------------------------------------------------------------------===//
// The algorithm table and the runner
//===----------------------------------------------------------------------===//

/// What an algorithm may use besides the problem.
struct Context {
  PoolLowerBound lowerBound;
  /// The greedy-by-size packing, once known (squeaky-wheel starts from it).
  const Seed *greedy = nullptr;
};

struct Algorithm {
  const char *name;
  /// Writes offsets of the active buffers, returns the pool size.
  int64_t (*run)(const Problem &, Placer &, const Context &, std::vector<int64_t> &);
  bool improver;  ///< Starts from greedy-by-size when that ran: goes last.
};

/// All single algorithms, in the order "best" prefers them on ties.
const std::vector<Algorithm> &algorithms() {
  using Ctx = const Context &;
  using Off = std::vector<int64_t> &;
  static const std::vector<Algorithm> all = {
      {"greedy-by-size",
       [](const Problem &pb, Placer &p, Ctx, Off off) {
         return p.place(orderBySize(pb), Fit::First, off);
       },
       false},
      {"greedy-by-size-best-fit",
       [](const Problem &pb, Placer &p, Ctx, Off off) {
         return p.place(orderBySize(pb), Fit::Best, off);
       },
       false},
      {"greedy-by-breadth",
       [](const Problem &pb, Placer &p, Ctx, Off off) {
         return p.place(orderByBreadth(pb), Fit::Best, off);
       },
       false},
      {"best-fit",
       [](const Problem &pb, Placer &p, Ctx, Off off) {
         return p.place(orderByStart(pb), Fit::Best, off);
       },
       false},
      {"linear-scan",
       [](const Problem &pb, Placer &, Ctx, Off off) {
         linearScan(pb, off);
         return poolOf(pb, off);
       },
       false},
      {"squeaky-wheel",
       [](const Problem &pb, Placer &p, Ctx c, Off off) {
         return SqueakyWheel(pb, p, Squeak::Blame, c.lowerBound.aligned, c.greedy).run(off);
       },
       true},
      {"squeaky-wheel-to-front",
       [](const Problem &pb, Placer &p, Ctx c, Off off) {
         return SqueakyWheel(pb, p, Squeak::ToFront, c.lowerBound.aligned, c.greedy).run(off);
       },
       true},
  };
  return all;
}

/// Runs tasks 0..count-1 on up to placers.size() threads, thread k using
/// placers[k] (built on first use: it is the big allocation). Rethrows the
/// first failure.
void runTasks(const Problem &pb, size_t count, std::vector<std::unique_ptr<Placer>> &placers,
              const std::function<void(size_t, Placer &)> &task) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  auto worker = [&](size_t k) {
    for (size_t t; (t = next++) < count;) {
      try {
        if (!placers[k])
          placers[k] = std::make_unique<Placer>(pb);
        task(t, *placers[k]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  try {
    for (size_t k = 1; k < std::min(placers.size(), count); ++k)
      threads.emplace_back(worker, k);
  } catch (const std::system_error &) {
    // No more threads to be had: the ones we have (at least this one) suffice.
  }
  worker(0);
  for (std::thread &t : threads)
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
  size_t threads = pb.count() < 4096 ? 1 : 8;
  threads = std::min<size_t>(threads, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<Placer>> placers(threads);
  // Improvers go second, from the greedy-by-size result of the first phase.
  Context context{result.lowerBound};
  Seed greedy;
  for (bool improvers : {false, true}) {
    std::vector<size_t> tasks;
    for (size_t t = 0; t < chosen.size(); ++t)
      if (chosen[t]->improver == improvers)
        tasks.push_back(t);
    runTasks(pb, tasks.size(), placers, [&](size_t k, Placer &placer) {
      size_t t = tasks[k];
      int64_t before = placer.work();
      pools[t] = chosen[t]->run(pb, placer, context, offsets[t]);
      if (chosen[t]->name == std::string("greedy-by-size"))
        greedy = {offsets[t], placer.work() - before};
    });
    if (!greedy.offsets.empty() || pb.count() == 0)
      context.greedy = &greedy;
  }

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
