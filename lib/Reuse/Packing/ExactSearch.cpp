//===- ExactSearch.cpp - Exact search for the memory packer ---------------===//
//
// A complete depth-first search for a packing under a capacity, on the ideas
// of MiniMalloc (Moffitt, ASPLOS 2023), and the driver that closes the gap
// between a lower bound and a known packing with it (ExactSearch.h).
//
// Canonical packings. Drop every buffer of a packing to the lowest offset
// where it fits, as long as one moves: no offset grew, so neither did the
// pool. Such a packing is built by placing its buffers in order of (offset,
// rank), each at the lowest aligned offset above the placed buffers it
// overlaps in time (its floor): the search only chooses which buffer comes
// next, and the (offset, rank) of successive choices must increase, so each
// packing is met once. Rank is an order on the buffers of a part (below).
//
// Pruning, each sound for canonical packings:
// - Capacity: a buffer's floor plus its size must fit.
// - Slot inference: in each slot (a span of time with the same live buffers)
//   the unplaced buffers need their summed sizes above the lowest offset any
//   of them can still take: their lowest floor, or, where that is at or below
//   the current offset, the current offset (later offsets are not lower).
//   Slots with no room to spare at the current offset must be covered there
//   by buffers that may still go at it, without overlap in time: an exact
//   cover by intervals, checked by reachability over slot boundaries.
// - Dominance: a buffer placed at or above the top some unplaced buffer would
//   have at its floor leaves that space free for good, so that buffer could
//   drop: not canonical.
// - Hatless buffers: a buffer with no unplaced buffer overlapping it keeps its
//   floor forever, so choices ordered after it would leave it unplaceable.
// - Identical buffers (same lifetime and size) are placed in id order.
// - Decomposition: once no unplaced buffer crosses a slot boundary, the two
//   sides are independent and are searched one after the other, each part
//   ordered anew by the bytes it has left to place. Every buffer still to
//   place comes after the one just placed in the order, so the whole part
//   passes slot inference first and the parts keep its offset as their floor.
//
// Restarts. How long one order takes is heavy-tailed: runs restart with
// limits from the Luby sequence, under three static orders (long-lived first,
// or busiest slots first, with area and the other key breaking ties) and
// then under noisy variants of them.
//
// Each capacity is first given to the sweep search (SweepSearch.h) with a
// part of its budget, which it spends where it makes headway: an incomplete
// search by program point that fits long, tight programs this search gets
// lost in. Before it, where the capacity leaves no byte to spare at any
// point, the tight search (TightSearch.h) settles the capacity, as a rule in
// far fewer steps. After it, this search and the pair-order search
// (PairOrderSearch.h), which learns from its conflicts and fits programs
// with holes left all over them that this search gets lost in, take turns
// in slices that double, each resuming where it stopped.
//
// Offsets and sizes are in alignment units: with aligned offsets, two buffers
// are disjoint in bytes iff their unit ranges are. Only the capacity depends
// on a buffer's bytes within its last unit.
//
// The search is iterative (an explicit stack of frames), so deep searches do
// not use the thread's stack, and counts its steps: the budget is in steps,
// so results do not depend on the machine or its load.
//
//===----------------------------------------------------------------------===//

#include "ExactSearch.h"
#include "PairOrderSearch.h"
#include "Restarts.h"
#include "SweepSearch.h"
#include "TightSearch.h"

#include <algorithm>
#include <memory>
#include <tuple>

namespace memplan {
namespace packing_detail {
namespace {

/// Directed pairs of overlapping buffers the search keeps at most (32 MiB).
constexpr int64_t kMaxNeighbours = int64_t(1) << 23;
/// Restarts (Restarts.h) under three static orders (the keys of `attempt`),
/// items the buffers and slots.
constexpr RestartShape kRestarts{/*orders=*/3, /*unit=*/3000, /*noise=*/0.6};
/// The part of a capacity's budget the sweep search may take first (it
/// probes with a tenth of that, SweepSearch.h).
constexpr double kSweepShare = 0.5;
/// The complete searches take turns in slices that start at this fraction
/// of what is left of a capacity's budget, and double; the pair-order
/// search's are this many times smaller. (Measured: with equal slices, three
/// of MiniMalloc's challenging instances that this search fits alone in
/// 1.3-1.7 * 10^9 steps ran out of budget or took twice the time; with a
/// quarter, the pair-order search still fits every generated instance with
/// holes, in at most 4.6 CPU s.)
constexpr int64_t kFirstSlices = 64, kPairOrderPart = 4;

enum class Verdict { Found, Infeasible, OutOfBudget };

/// How a frame of the search ended, or None while it runs.
enum class Result { None, Success, Fail, Abort };

/// The search for a packing under one capacity, and its state.
class CanonicalSearch {
public:
  explicit CanonicalSearch(const Problem &pb);

  /// Looks for a packing within `capacity` bytes: starts runs while it has
  /// used less than `budget` steps, each of which may go on to at most
  /// `cap` steps in all (>= budget), so that a run is not cut short where
  /// the search is given its steps a slice at a time. On Found, `offsets`
  /// (bytes, per active buffer) fits.
  Verdict attempt(int64_t capacity, int64_t budget, int64_t cap,
                  std::vector<int64_t> &offsets);

  int64_t work() const { return work_; }

private:
  /// A set of buffers searched together, live within slots [sLo, sHi); the
  /// unplaced ones are items_[begin, begin + count).
  struct Part {
    uint32_t begin, count;
    int32_t sLo, sHi;
  };
  /// A choice at a node: buffer at its floor `off`, and its list position.
  struct Cand {
    int64_t off;
    int32_t rank, buffer;
    uint32_t index;
  };
  /// A search node (place one buffer of `part`), or a split (search the parts
  /// [partNext, partEnd) one after the other).
  struct Frame {
    bool split;
    int32_t part;
    /// The (offset, rank) the choices must exceed; a split passes the offset
    /// on to its parts.
    int64_t lastOff = 0;
    int32_t lastRank = -1;
    // Node: candidates cands_[candBegin, candEnd) and the next one to try.
    uint32_t candBegin = 0, candEnd = 0, next = 0;
    // Node with a child: the buffer placed for it.
    int32_t placed = -1;
    uint32_t placedIndex = 0;
    bool hatless = false;
    size_t undoMark = 0;
    // Split: its parts, and the arena sizes to restore when it ends.
    uint32_t partNext = 0, partEnd = 0;
    size_t partsMark = 0, itemsMark = 0, rankMark = 0;
  };
  /// The keys of the orders: lifetime, area, busiest slot's load.
  enum class Key { WidthFirst, TotalThenArea, TotalThenWidth };

  std::vector<int32_t> order(Key key, const std::vector<double> &noise) const;
  Verdict run(const std::vector<int32_t> &rank, Key key, int64_t limit);
  void reset(const std::vector<int32_t> &rank);
  Result enterNode(size_t frame);
  bool slotsFit(int64_t cur, int32_t curRank, const Part &p);
  /// Buffer j, unplaced or just placed, no longer has floor `old` in its slots.
  void leaveLowest(int32_t j, int64_t old);
  bool place(size_t frame, const Cand &c);
  void unplace(size_t frame);
  /// Pushes a split of part `p` at the slot boundaries in cuts_.
  void pushSplit(int32_t p, int64_t lastOff);
  void pushNode(int32_t part, int64_t lastOff, int32_t lastRank);

  const Problem &pb_;
  const size_t m_, S_;
  const int64_t a_;
  std::vector<int64_t> unit_;
  std::vector<uint32_t> nbrBegin_;
  std::vector<int32_t> nbr_;
  std::vector<int32_t> cls_,
      clsPos_; ///< Class of identical buffers, rank in it.
  std::vector<double> width_, area_, total_; ///< Order keys.
  SlotMembers live_;                         ///< The buffers live in each slot.
  std::vector<int64_t> remInit_;             ///< Units live in each slot.
  std::vector<int32_t> cutInit_; ///< Buffers across each slot boundary.

  // The state of a run.
  Key key_ = Key::WidthFirst;
  std::vector<int32_t> rank_;
  std::vector<std::pair<int32_t, int32_t>> rankUndo_; ///< (buffer, old rank)
  int64_t capQ_ = 0;         ///< Slot capacity in units.
  std::vector<int64_t> cap_; ///< Highest unit top of each buffer.
  std::vector<int64_t> off_; ///< Units, -1 if unplaced.
  std::vector<int64_t> sol_; ///< Last offset each buffer was placed at.
  std::vector<int64_t> minOff_, rem_;
  /// Per slot: the lowest floor of an unplaced buffer live there (INT64_MAX
  /// if none), and how many have it.
  std::vector<int64_t> lowest_;
  std::vector<int32_t> lowestCount_;
  std::vector<int32_t> degLeft_, cut_, clsFill_;
  /// Undo log: a floor (what >= 0) or a slot's lowest and count (~slot).
  struct Undo {
    int32_t what;
    int32_t count;
    int64_t value;
  };
  std::vector<Undo> undo_;
  std::vector<int32_t> items_, cuts_;
  std::vector<Part> parts_;
  std::vector<Cand> cands_;
  std::vector<Frame> frames_;
  std::vector<std::pair<int32_t, int32_t>> fresh_; ///< Scratch: lifetimes.
  std::vector<char> reach_; ///< Scratch: slot boundaries reached.
  std::vector<std::tuple<double, double, double, int32_t>> keys_; ///< Scratch.
  int64_t work_ = 0;
  /// The restarts of the attempts at capacity restartsFor_.
  std::unique_ptr<RestartSchedule> restarts_;
  int64_t restartsFor_ = -1;
};

CanonicalSearch::CanonicalSearch(const Problem &pb)
    : pb_(pb), m_(pb.count()), S_(pb.numSlots), a_(pb.alignment) {
  unit_ = unitCapacity(pb, 0).unit;

  std::vector<std::vector<int32_t>> adj(m_);
  forEachOverlappingPair(pb, [&](int32_t i, int32_t j) {
    adj[i].push_back(j);
    adj[j].push_back(i);
  });
  nbrBegin_.assign(m_ + 1, 0);
  for (size_t i = 0; i < m_; ++i)
    nbrBegin_[i + 1] = nbrBegin_[i] + uint32_t(adj[i].size());
  nbr_.reserve(nbrBegin_[m_]);
  for (auto &list : adj) {
    std::sort(list.begin(), list.end());
    nbr_.insert(nbr_.end(), list.begin(), list.end());
  }

  // Classes of identical buffers; ids in a class are ascending.
  std::vector<int32_t> byShape = sortedIds(m_, [&](int32_t i) {
    return std::make_tuple(pb.lo[i], pb.hi[i], pb.size[i]);
  });
  cls_.assign(m_, 0);
  clsPos_.assign(m_, 0);
  int32_t classes = 0;
  for (size_t k = 0; k < m_; ++k) {
    int32_t i = byShape[k], prev = k ? byShape[k - 1] : -1;
    bool same = prev >= 0 && pb.lo[i] == pb.lo[prev] &&
                pb.hi[i] == pb.hi[prev] && pb.size[i] == pb.size[prev];
    if (!same)
      ++classes;
    cls_[i] = classes - 1;
    clsPos_[i] = same ? clsPos_[prev] + 1 : 0;
  }
  clsFill_.assign(size_t(classes), 0);

  // Slot loads, boundary crossings and the buffers live in each slot.
  remInit_.assign(S_ + 1, 0);
  std::vector<int32_t> crossing(S_ + 1, 0);
  for (size_t i = 0; i < m_; ++i) {
    remInit_[pb.lo[i]] += unit_[i];
    remInit_[pb.hi[i]] -= unit_[i];
    ++crossing[pb.lo[i]];
    --crossing[pb.hi[i] - 1];
  }
  for (size_t s = 1; s <= S_; ++s) {
    remInit_[s] += remInit_[s - 1];
    crossing[s] += crossing[s - 1];
  }
  cutInit_.assign(crossing.begin(), crossing.end());
  live_ = slotMembers(pb);

  // Order keys; the busiest slot of each lifetime by a range maximum.
  const size_t P = leavesFor(std::max<size_t>(S_, 1));
  std::vector<int64_t> maxLoad(2 * P, 0);
  for (size_t s = 0; s < S_; ++s)
    maxLoad[P + s] = remInit_[s];
  for (size_t n = P - 1; n >= 1; --n)
    maxLoad[n] = std::max(maxLoad[2 * n], maxLoad[2 * n + 1]);
  width_.resize(m_);
  area_.resize(m_);
  total_.assign(m_, 0);
  for (size_t i = 0; i < m_; ++i) {
    width_[i] = double(pb.length[i]);
    area_[i] = double(pb.size[i]) * double(pb.length[i]);
    forCoverNodes(P, pb.lo[i], pb.hi[i], [&](size_t n) {
      total_[i] = std::max(total_[i], double(maxLoad[n]));
    });
  }

  off_.resize(m_);
  sol_.resize(m_);
  minOff_.resize(m_);
  degLeft_.resize(m_);
  reach_.resize(S_ + 1);
  // Node and split frames alternate at worst: one node per buffer, one split
  // per node and the root.
  frames_.reserve(2 * m_ + 2);
}

/// Ranks (position in the order) under `key`, each buffer's keys scaled by
/// its `noise` factor (empty: none); ties by id.
std::vector<int32_t>
CanonicalSearch::order(Key key, const std::vector<double> &noise) const {
  auto scaled = [&](const std::vector<double> &v, int32_t i) {
    return noise.empty() ? v[i] : v[i] * noise[i];
  };
  std::vector<int32_t> byKey = sortedIds(m_, [&](int32_t i) {
    double w = scaled(width_, i), a = area_[i], t = scaled(total_, i);
    switch (key) {
    case Key::WidthFirst:
      return std::make_tuple(-w, -a, -t);
    case Key::TotalThenArea:
      return std::make_tuple(-t, -a, -w);
    case Key::TotalThenWidth:
      break;
    }
    return std::make_tuple(-t, -w, -a);
  });
  std::vector<int32_t> rank(m_);
  for (size_t r = 0; r < m_; ++r)
    rank[byKey[r]] = int32_t(r);
  return rank;
}

void CanonicalSearch::reset(const std::vector<int32_t> &rank) {
  rank_ = rank;
  rankUndo_.clear();
  std::fill(off_.begin(), off_.end(), -1);
  std::fill(minOff_.begin(), minOff_.end(), 0);
  lowest_.assign(S_, INT64_MAX);
  lowestCount_.assign(S_, 0);
  for (size_t t = 0; t < S_; ++t)
    if (live_.begin[t + 1] > live_.begin[t]) {
      lowest_[t] = 0;
      lowestCount_[t] = int32_t(live_.begin[t + 1] - live_.begin[t]);
    }
  std::fill(clsFill_.begin(), clsFill_.end(), 0);
  for (size_t i = 0; i < m_; ++i)
    degLeft_[i] = int32_t(nbrBegin_[i + 1] - nbrBegin_[i]);
  rem_ = remInit_;
  cut_ = cutInit_;
  undo_.clear();
  items_.resize(m_);
  std::iota(items_.begin(), items_.end(), 0);
  parts_.assign(1, Part{0, uint32_t(m_), 0, int32_t(S_)});
  cands_.clear();
  frames_.clear();
}

void CanonicalSearch::pushNode(int32_t part, int64_t lastOff,
                               int32_t lastRank) {
  Frame f{};
  f.split = false;
  f.part = part;
  f.lastOff = lastOff;
  f.lastRank = lastRank;
  frames_.push_back(f);
}

void CanonicalSearch::pushSplit(int32_t p, int64_t lastOff) {
  Frame f{};
  f.split = true;
  f.part = p;
  f.lastOff = lastOff;
  f.partsMark = parts_.size();
  f.itemsMark = items_.size();
  f.rankMark = rankUndo_.size();
  std::sort(cuts_.begin(), cuts_.end());
  const Part whole = parts_[p];
  // Part k holds the buffers starting after k cuts; cut b separates slot b
  // from slot b + 1, and no unplaced buffer crosses it.
  std::vector<uint32_t> count(cuts_.size() + 1, 0);
  auto partOf = [&](int32_t i) {
    return size_t(std::lower_bound(cuts_.begin(), cuts_.end(), pb_.lo[i]) -
                  cuts_.begin());
  };
  for (uint32_t k = 0; k < whole.count; ++k)
    ++count[partOf(items_[whole.begin + k])];
  f.partNext = uint32_t(parts_.size());
  std::vector<uint32_t> at(count.size());
  uint32_t fill = uint32_t(items_.size());
  for (size_t k = 0; k < count.size(); ++k) {
    at[k] = fill;
    if (!count[k])
      continue;
    int32_t lo = k ? cuts_[k - 1] + 1 : whole.sLo;
    int32_t hi = k < cuts_.size() ? cuts_[k] + 1 : whole.sHi;
    parts_.push_back(Part{fill, count[k], lo, hi});
    fill += count[k];
  }
  items_.resize(fill);
  for (uint32_t k = 0; k < whole.count; ++k) {
    int32_t i = items_[whole.begin + k];
    items_[at[partOf(i)]++] = i;
  }
  f.partEnd = uint32_t(parts_.size());
  work_ += whole.count;

  // Below the root, each part is ordered anew by the run's key, with the
  // busiest slot counted in the bytes still to place.
  if (!frames_.empty()) {
    for (uint32_t q = f.partNext; q < f.partEnd; ++q) {
      const Part &part = parts_[q];
      keys_.clear();
      for (uint32_t k = 0; k < part.count; ++k) {
        int32_t j = items_[part.begin + k];
        int64_t total = 0;
        for (int32_t t = pb_.lo[j]; t < pb_.hi[j]; ++t)
          total = std::max(total, rem_[t]);
        work_ += pb_.hi[j] - pb_.lo[j];
        double w = width_[j], a = area_[j], t = double(total);
        switch (key_) {
        case Key::WidthFirst:
          keys_.emplace_back(-w, -a, -t, j);
          break;
        case Key::TotalThenArea:
          keys_.emplace_back(-t, -a, -w, j);
          break;
        case Key::TotalThenWidth:
          keys_.emplace_back(-t, -w, -a, j);
          break;
        }
      }
      std::sort(keys_.begin(), keys_.end());
      for (size_t r = 0; r < keys_.size(); ++r) {
        int32_t j = std::get<3>(keys_[r]);
        rankUndo_.push_back({j, rank_[j]});
        rank_[j] = int32_t(r);
      }
    }
  }
  frames_.push_back(f);
}

Result CanonicalSearch::enterNode(size_t frame) {
  Frame &f = frames_[frame];
  const Part &p = parts_[f.part];
  if (p.count == 0)
    return Result::Success;
  work_ += p.count;
  const int32_t *items = items_.data() + p.begin;
  using Pos = std::pair<int64_t, int32_t>;
  int64_t minHeight = INT64_MAX;
  Pos hatless{INT64_MAX, INT32_MAX};
  for (uint32_t k = 0; k < p.count; ++k) {
    int32_t j = items[k];
    minHeight = std::min(minHeight, minOff_[j] + unit_[j]);
    if (degLeft_[j] == 0)
      hatless = std::min(hatless, Pos{minOff_[j], rank_[j]});
  }
  const Pos last{f.lastOff, f.lastRank};
  // A buffer that can no longer be placed, one whose floor would stay empty
  // below the offsets still to come, or slots that cannot be filled.
  if (hatless < last || minHeight <= f.lastOff ||
      !slotsFit(f.lastOff, f.lastRank, p))
    return Result::Fail;
  f.candBegin = uint32_t(cands_.size());
  for (uint32_t k = 0; k < p.count; ++k) {
    int32_t j = items[k];
    Pos key{minOff_[j], rank_[j]};
    if (key <= last || key > hatless || key.first >= minHeight ||
        clsPos_[j] != clsFill_[cls_[j]])
      continue;
    cands_.push_back(Cand{key.first, key.second, j, k});
  }
  std::sort(cands_.begin() + f.candBegin, cands_.end(),
            [](const Cand &x, const Cand &y) {
              return x.off != y.off ? x.off < y.off : x.rank < y.rank;
            });
  f.candEnd = uint32_t(cands_.size());
  f.next = f.candBegin;
  return Result::None;
}

bool CanonicalSearch::slotsFit(int64_t cur, int32_t curRank, const Part &p) {
  work_ += p.sHi - p.sLo;
  bool exact = false;
  for (int32_t t = p.sLo; t < p.sHi; ++t) {
    if (rem_[t] == 0)
      continue;
    if (lowest_[t] > cur) {
      if (lowest_[t] + rem_[t] > capQ_)
        return false;
    } else if (cur + rem_[t] > capQ_) {
      return false;
    } else if (cur + rem_[t] == capQ_) {
      exact = true;
    }
  }
  if (!exact)
    return true;
  // Slots with no room to spare at the current offset must be covered there,
  // by buffers whose floor is the current offset and that come later in the
  // order, and those, all at one offset, must not overlap in time.
  fresh_.clear();
  const int32_t *items = items_.data() + p.begin;
  for (uint32_t k = 0; k < p.count; ++k) {
    int32_t j = items[k];
    if (minOff_[j] == cur && rank_[j] > curRank)
      fresh_.push_back({pb_.lo[j], pb_.hi[j]});
  }
  std::sort(fresh_.begin(), fresh_.end());
  work_ += p.count + 2 * (p.sHi - p.sLo) + fresh_.size();
  std::fill(reach_.begin() + p.sLo, reach_.begin() + p.sHi + 1, 0);
  reach_[p.sLo] = 1;
  size_t next = 0;
  for (int32_t t = p.sLo; t < p.sHi; ++t) {
    while (next < fresh_.size() && fresh_[next].first < t)
      ++next;
    if (!reach_[t])
      continue;
    for (size_t k = next; k < fresh_.size() && fresh_[k].first == t; ++k)
      reach_[fresh_[k].second] = 1;
    if (!(rem_[t] && lowest_[t] <= cur && cur + rem_[t] == capQ_))
      reach_[t + 1] = 1; // may stay uncovered at the current offset
  }
  return reach_[p.sHi];
}

void CanonicalSearch::leaveLowest(int32_t j, int64_t old) {
  for (int32_t t = pb_.lo[j]; t < pb_.hi[j]; ++t) {
    if (lowest_[t] != old)
      continue;
    undo_.push_back(Undo{~t, lowestCount_[t], lowest_[t]});
    if (--lowestCount_[t] > 0)
      continue;
    // j was the last with that floor: find the new lowest.
    int64_t low = INT64_MAX;
    int32_t count = 0;
    for (uint32_t k = live_.begin[t]; k < live_.begin[t + 1]; ++k) {
      int32_t i = live_.members[k];
      if (off_[i] >= 0)
        continue;
      if (minOff_[i] < low) {
        low = minOff_[i];
        count = 0;
      }
      count += minOff_[i] == low;
    }
    work_ += live_.begin[t + 1] - live_.begin[t];
    lowest_[t] = low;
    lowestCount_[t] = count;
  }
  work_ += pb_.hi[j] - pb_.lo[j];
}

bool CanonicalSearch::place(size_t frame, const Cand &c) {
  Frame &f = frames_[frame];
  Part &p = parts_[f.part];
  const int32_t i = c.buffer;
  f.placed = i;
  f.placedIndex = c.index;
  f.undoMark = undo_.size();
  f.hatless = degLeft_[i] == 0;
  std::swap(items_[p.begin + c.index], items_[p.begin + p.count - 1]);
  --p.count;
  off_[i] = sol_[i] = c.off;
  ++clsFill_[cls_[i]];
  leaveLowest(i, c.off);
  const int64_t top = c.off + unit_[i];
  bool fits = top <= cap_[i];
  for (uint32_t k = nbrBegin_[i]; k < nbrBegin_[i + 1]; ++k) {
    int32_t j = nbr_[k];
    --degLeft_[j];
    if (off_[j] < 0 && minOff_[j] < top) {
      const int64_t old = minOff_[j];
      undo_.push_back(Undo{j, 0, old});
      minOff_[j] = top;
      fits &= top + unit_[j] <= cap_[j];
      leaveLowest(j, old);
    }
  }
  cuts_.clear();
  for (int32_t t = pb_.lo[i]; t < pb_.hi[i]; ++t) {
    rem_[t] -= unit_[i];
    if (t + 1 < pb_.hi[i] && --cut_[t] == 0 && t + 1 < p.sHi)
      cuts_.push_back(t);
  }
  work_ += (nbrBegin_[i + 1] - nbrBegin_[i]) + (pb_.hi[i] - pb_.lo[i]);
  return fits;
}

void CanonicalSearch::unplace(size_t frame) {
  Frame &f = frames_[frame];
  Part &p = parts_[f.part];
  const int32_t i = f.placed;
  for (int32_t t = pb_.lo[i]; t < pb_.hi[i]; ++t) {
    rem_[t] += unit_[i];
    if (t + 1 < pb_.hi[i])
      ++cut_[t];
  }
  while (undo_.size() > f.undoMark) {
    const Undo &u = undo_.back();
    if (u.what >= 0) {
      minOff_[u.what] = u.value;
    } else {
      lowest_[~u.what] = u.value;
      lowestCount_[~u.what] = u.count;
    }
    undo_.pop_back();
  }
  for (uint32_t k = nbrBegin_[i]; k < nbrBegin_[i + 1]; ++k)
    ++degLeft_[nbr_[k]];
  --clsFill_[cls_[i]];
  off_[i] = -1;
  ++p.count;
  std::swap(items_[p.begin + f.placedIndex], items_[p.begin + p.count - 1]);
  f.placed = -1;
}

Verdict CanonicalSearch::run(const std::vector<int32_t> &rank, Key key,
                             int64_t limit) {
  reset(rank);
  key_ = key;
  cuts_.clear();
  for (size_t s = 0; s + 1 < S_; ++s)
    if (cut_[s] == 0)
      cuts_.push_back(int32_t(s));
  pushSplit(0, 0);
  Result res = Result::None;
  while (!frames_.empty()) {
    const size_t top = frames_.size() - 1;
    if (frames_[top].split) {
      Frame &f = frames_[top];
      if (res == Result::None || res == Result::Success) {
        if (f.partNext < f.partEnd) {
          pushNode(int32_t(f.partNext++), f.lastOff, -1);
          res = Result::None;
          continue;
        }
        res = Result::Success;
      }
      while (rankUndo_.size() > f.rankMark) {
        rank_[rankUndo_.back().first] = rankUndo_.back().second;
        rankUndo_.pop_back();
      }
      parts_.resize(f.partsMark);
      items_.resize(f.itemsMark);
      frames_.pop_back();
      continue;
    }

    if (res == Result::None) {
      res = work_ > limit ? Result::Abort : enterNode(top);
      if (res != Result::None) {
        frames_.pop_back();
        continue;
      }
    } else {
      unplace(top);
      if (res != Result::Fail || frames_[top].hatless) {
        cands_.resize(frames_[top].candBegin);
        frames_.pop_back();
        continue;
      }
    }

    // Try the next candidates until one passes the checks. Before a split,
    // the whole part must pass slot inference: every buffer still to place
    // comes after this one in the order.
    res = Result::Fail;
    while (frames_[top].next < frames_[top].candEnd) {
      Cand c = cands_[frames_[top].next++];
      if (place(top, c) &&
          (cuts_.empty() ||
           slotsFit(c.off, c.rank, parts_[frames_[top].part]))) {
        res = Result::None;
        if (cuts_.empty())
          pushNode(frames_[top].part, c.off, c.rank);
        else
          pushSplit(frames_[top].part, c.off);
        break;
      }
      unplace(top);
      if (frames_[top].hatless)
        break;
    }
    if (res == Result::Fail) {
      cands_.resize(frames_[top].candBegin);
      frames_.pop_back();
    }
  }
  return res == Result::Success ? Verdict::Found
         : res == Result::Fail  ? Verdict::Infeasible
                                : Verdict::OutOfBudget;
}

Verdict CanonicalSearch::attempt(int64_t capacity, int64_t budget, int64_t cap,
                                 std::vector<int64_t> &offsets) {
  // A further attempt at the same capacity goes on where the last one
  // stopped: the unit tops and the restart schedule (Restarts.h, seeded by
  // the capacity) are set up once per capacity.
  if (restartsFor_ != capacity) {
    restartsFor_ = -1; // until the setup below is done
    if (pb_.minPool > capacity)
      return Verdict::Infeasible;
    UnitCapacity uc = unitCapacity(pb_, capacity);
    cap_ = std::move(uc.cap);
    capQ_ = uc.capQ;
    for (size_t i = 0; i < m_; ++i)
      if (unit_[i] > cap_[i])
        return Verdict::Infeasible;
    for (size_t s = 0; s < S_; ++s)
      if (remInit_[s] > capQ_)
        return Verdict::Infeasible;
    restarts_ = std::make_unique<RestartSchedule>(kRestarts, int64_t(m_ + S_),
                                                  0x9E3779B97F4A7C15ull ^
                                                      uint64_t(capacity));
    restartsFor_ = capacity;
  }
  const Key keys[kRestarts.orders] = {Key::WidthFirst, Key::TotalThenArea,
                                      Key::TotalThenWidth};
  const int64_t start = work_;
  std::vector<double> noise;
  while (true) {
    if (work_ >= start + budget)
      return Verdict::OutOfBudget;
    int64_t limit;
    const Key key = keys[restarts_->next(m_, noise, limit)];
    const int64_t before = work_;
    Verdict v = run(order(key, noise), key,
                    work_ + std::min(limit, start + cap - work_));
    restarts_->spent(work_ - before);
    if (v == Verdict::Found) {
      offsets.resize(m_);
      for (size_t k = 0; k < m_; ++k)
        offsets[k] = sol_[k] * a_;
    }
    if (v != Verdict::OutOfBudget)
      return v;
  }
}

} // namespace

bool exactSearchFits(const Problem &pb) {
  return pb.count() > 0 && 2 * countOverlappingPairs(pb) <= kMaxNeighbours;
}

ExactOutcome searchExact(const Problem &pb, int64_t lowerBound,
                         int64_t incumbentPool,
                         const std::vector<int64_t> &incumbentOffsets,
                         int64_t budget, int64_t capacity,
                         int64_t capacityBudget) {
  ExactOutcome out;
  out.pool = incumbentPool;
  out.offsets = incumbentOffsets;
  out.bound = std::min(lowerBound, incumbentPool);
  if (incumbentPool <= lowerBound || budget <= 0 || !exactSearchFits(pb))
    return out;

  // Every pool is some k * alignment + tail, the bytes of a buffer's last
  // alignment unit: only those capacities are worth trying.
  const int64_t a = pb.alignment;
  std::vector<int64_t> tails;
  for (int64_t size : pb.size)
    tails.push_back(size - ((size + a - 1) / a - 1) * a);
  std::sort(tails.begin(), tails.end());
  tails.erase(std::unique(tails.begin(), tails.end()), tails.end());
  auto atLeast = [&](int64_t x) {
    const int64_t base = x > 0 ? (x - 1) / a * a : 0;
    auto t = std::lower_bound(tails.begin(), tails.end(), x - base);
    return t != tails.end() ? base + *t : base + a + tails.front();
  };

  CanonicalSearch search(pb);
  // The bound itself need not be such a value (it may be an idle buffer's
  // size); every capacity tried after it is.
  int64_t lo = lowerBound, hi = incumbentPool;
  int64_t gaveUp = -1; ///< The largest capacity whose attempt ran out.
  bool capacityTried = capacity < lo || capacity >= hi;
  std::vector<int64_t> offsets;
  const bool pairOrderFits = PairOrderSearch::fits(pb);
  int64_t sweepWork = 0, tightWork = 0, pairWork = 0;
  auto used = [&] { return search.work() + sweepWork + tightWork + pairWork; };
  // A capacity is tried by the tight search first where it applies (it is
  // complete there, and fast where the sizes leave few ways to fill the freed
  // bytes), with half the share; then by the sweep, with part of what is
  // left; then by the two complete searches in turn, in slices that double.
  // The search by offset and the pair-order search each fit kinds of
  // programs the other gets lost in (tight at many points; holes left
  // everywhere): the pair-order search costs the search by offset at most a
  // quarter more steps, and the search by offset costs it at most 4 times
  // as many. A run of the search by offset is not cut at a slice's end.
  // `extra` steps past the share go on with the two complete searches (the
  // turns are those of the share: the extra steps only let them run on).
  auto tryCapacity = [&](int64_t target, int64_t share, int64_t extra) {
    const int64_t start = used();
    auto left = [&] { return start + share - used(); };
    auto leftAll = [&] { return left() + extra; };
    switch (searchTight(pb, target, share / 2, offsets, tightWork)) {
    case TightVerdict::Found:
      return Verdict::Found;
    case TightVerdict::Infeasible:
      return Verdict::Infeasible;
    default:
      break;
    }
    SweepOutcome sweep =
        searchSweep(pb, target, int64_t(double(left()) * kSweepShare));
    sweepWork += sweep.work;
    if (sweep.found) {
      offsets = std::move(sweep.offsets);
      return Verdict::Found;
    }
    std::unique_ptr<PairOrderSearch> pairs;
    if (pairOrderFits)
      pairs = std::make_unique<PairOrderSearch>(pb, target);
    for (int64_t slice = std::max<int64_t>(1, left() / kFirstSlices);;
         slice *= 2) {
      if (pairs && leftAll() > 0) {
        const int64_t before = pairs->work();
        const PairOrderSearch::Status status =
            pairs->resume(std::min(slice / kPairOrderPart, leftAll()));
        pairWork += pairs->work() - before;
        if (status == PairOrderSearch::Status::Found) {
          offsets = pairs->offsets();
          return Verdict::Found;
        }
        if (status == PairOrderSearch::Status::Infeasible)
          return Verdict::Infeasible;
      }
      if (leftAll() <= 0)
        return Verdict::OutOfBudget;
      const Verdict v = search.attempt(target, std::min(slice, leftAll()),
                                       leftAll(), offsets);
      if (v != Verdict::OutOfBudget)
        return v;
    }
  };
  while (lo < hi) {
    const int64_t left = budget - used();
    if (left <= 0)
      break;
    int64_t target, share, extra = 0;
    if (!capacityTried) {
      // What the caller must fit in comes first, with all the budget, and
      // the more steps given to fitting it.
      capacityTried = true;
      target = capacity;
      share = left;
      extra = std::max<int64_t>(0, capacityBudget - budget);
    } else if (gaveUp < 0) {
      // The bound itself, with most of the budget: where a proof of
      // optimality or of a higher bound comes from.
      target = lo;
      share = left - left / 4;
    } else {
      // Halfway between the last capacity given up on and the best pool.
      target = atLeast(gaveUp + (hi - gaveUp) / 2);
      if (target >= hi)
        break;
      share = left / 2;
    }
    switch (tryCapacity(target, share, extra)) {
    case Verdict::Found:
      out.offsets = offsets;
      out.improved = true;
      hi = poolOf(pb, offsets);
      break;
    case Verdict::Infeasible:
      lo = std::max(lo, atLeast(target + 1));
      break;
    case Verdict::OutOfBudget:
      gaveUp = std::max(gaveUp, target);
      break;
    }
  }
  out.pool = hi;
  out.bound = std::min(lo, hi);
  out.work = used();
  return out;
}

} // namespace packing_detail
} // namespace memplan
