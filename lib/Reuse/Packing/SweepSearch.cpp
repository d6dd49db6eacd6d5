//===- SweepSearch.cpp - Sweep search for the memory packer ---------------===//
//
// A depth-first search over program points in order (SweepSearch.h). At
// each point where buffers start, the buffers live from before are placed,
// and the free space is a list of gaps. The starting buffers go into the
// gaps from the lowest up: into the current gap, a buffer at its bottom, or,
// where the point has bytes to spare, a buffer at its top or nothing more
// (the gap is closed). Where the point has no byte to spare, each gap must
// be filled exactly, and filling it from the bottom up meets every way to.
// Buffers that are interchangeable at a point (same units, end and highest
// top) are tried once.
//
// Inference: the buffers still to place at a point, and those starting at
// the next points that the placed buffers reach, must fit the gaps they
// have: for each size s, the buffers of size >= s need no more units than
// the gaps of size >= s hold. Where a later point has no byte to spare, each
// gap there that the buffers of the current point cannot reach is filled
// exactly, by buffers that start once the placed buffers that held its
// bytes have ended: a gap freed by buffers that all end at that point takes
// only buffers starting there.
//
// Runs restart with limits from the Luby sequence under a few orders of the
// candidates (size first, end first, area first) and then noisy variants.
// The search counts its steps; the budget is in steps. It spends a probe's
// part of its budget, and the rest only where it makes headway.
//
//===----------------------------------------------------------------------===//

#include "SweepSearch.h"
#include "Restarts.h"
#include "StepPrice.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace memplan {
namespace packing_detail {
namespace {

/// Restarts (Restarts.h) under three static orders of the candidates, items
/// the buffers.
constexpr RestartShape kRestarts{/*orders=*/3, /*unit=*/400, /*noise=*/0.8};
/// 2 steps here cost 3 of the exact search's (CPU time, measured on the
/// generated instances: 1.4-1.9 ns against 2.8-3.6 ns).
constexpr StepPrice kPrice{3, 2};
/// The probe takes 1 / kProbeShare of the budget.
constexpr int64_t kProbeShare = 10;
/// Headway that earns the sweep its whole budget after the probe: a run
/// reached this fraction of the events, and the live bytes are at the
/// capacity at this fraction of the events' points at least.
constexpr double kHeadway = 1.0 / 3, kTightShare = 0.5;

/// For each size s among `items`: the items of size >= s need no more than
/// the gaps of size >= s hold. Sorts both (descending).
bool fitsGaps(std::vector<int64_t> &items, std::vector<int64_t> &gaps) {
  std::sort(items.begin(), items.end(), std::greater<int64_t>());
  std::sort(gaps.begin(), gaps.end(), std::greater<int64_t>());
  int64_t need = 0, room = 0;
  size_t g = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    need += items[k];
    if (k + 1 < items.size() && items[k + 1] == items[k])
      continue;
    while (g < gaps.size() && gaps[g] >= items[k])
      room += gaps[g++];
    if (need > room)
      return false;
  }
  return true;
}

/// Each gap must be filled exactly: a gap (units, from) must be a sum of
/// some of the items (start, units) with start >= from. Counts its word
/// operations in `work`.
bool gapsSums(const std::vector<std::pair<int64_t, int64_t>> &items,
              const std::vector<std::pair<int64_t, int64_t>> &gaps,
              std::vector<uint64_t> &bits, int64_t &work) {
  for (const auto &[g, from] : gaps) {
    // Cheap answers first: too few units, all of the items, or one alone.
    int64_t total = 0;
    bool one = false;
    for (const auto &[start, u] : items)
      if (u <= g && start >= from) {
        total += u;
        one |= u == g;
      }
    work += int64_t(items.size()) / 8 + 1;
    if (total < g)
      return false;
    if (one || total == g)
      continue;
    const size_t words = size_t(g) / 64 + 1;
    bits.assign(words, 0);
    bits[0] = 1;
    for (const auto &[start, u] : items) {
      if (u > g || start < from)
        continue;
      // bits |= bits << u, from the top word down.
      const size_t ws = size_t(u) / 64, bs = size_t(u) % 64;
      for (size_t w = words; w-- > ws;) {
        uint64_t v = bits[w - ws] << bs;
        if (bs && w - ws > 0)
          v |= bits[w - ws - 1] >> (64 - bs);
        bits[w] |= v;
      }
      work += int64_t(words);
      if (bits[size_t(g) / 64] >> (g % 64) & 1)
        break;
    }
    if (!(bits[size_t(g) / 64] >> (g % 64) & 1))
      return false;
  }
  return true;
}

enum class Result { None, Success, Fail, Abort };

class Sweep {
public:
  Sweep(const Problem &pb, int64_t capacity);

  /// Whether each buffer fits under the capacity at all.
  bool possible() const { return possible_; }
  /// The events, and how many of them the deepest run so far reached.
  size_t events() const { return evSlot_.size(); }
  size_t reached() const { return size_t(deepest_) + 1; }
  /// How many events start at a point with no byte to spare.
  size_t tightEvents() const;
  /// One run under candidate order `key` (noisy if `noise` is not empty).
  Result run(int key, const std::vector<double> &noise, int64_t limit);
  void offsets(std::vector<int64_t> &out) const;
  int64_t work() const { return work_; }
  size_t count() const { return m_; }

private:
  enum class Kind : uint8_t { Bottom, Top, Close };
  struct Cand {
    double prio;
    int32_t buffer;
    uint32_t index;
    int64_t off;
    Kind kind;
  };
  /// A choice point: the next step at event `event`, in gap `gap`, whose
  /// free part still open is [lo, hi).
  struct Frame {
    int32_t event;
    uint32_t gapBegin, gapEnd, gap;
    int64_t lo, hi;
    bool topPhase, slack;
    uint32_t pendBegin, pendCount;
    uint32_t candBegin = 0, candEnd = 0, next = 0;
    // The choice made for the child, to undo.
    int32_t placed = -1;
    uint32_t placedIndex = 0;
    // Set on the first frame of an event: the arena sizes it restores.
    bool owns = false;
    size_t gapsMark = 0, pendMark = 0;
  };

  bool pushEvent(int32_t e);
  Result enter(Frame &f);
  /// Applies candidate `c` of frame `fi`; false if the result fails at once.
  bool apply(size_t fi, const Cand &c);
  void undo(size_t fi);
  /// Whether the buffers live at slot s still fit there, with frame `f` of
  /// the event at slot t (all of it placed if `done`).
  bool slotFits(int32_t s, int32_t t, const Frame &f, bool done);
  /// slotFits at the events after f's up to slot `until` (included).
  bool lookahead(const Frame &f, int32_t until, bool done);
  /// gapsSums on items_ and free_ where they add up to the same.
  bool exactFill() {
    int64_t need = 0, room = 0;
    for (int64_t u : items_)
      need += u;
    for (int64_t g : free_)
      room += g;
    if (need != room)
      return true;
    later_.clear();
    closed_.clear();
    for (int64_t u : items_)
      later_.push_back({0, u});
    for (int64_t g : free_)
      closed_.push_back({g, 0});
    return gapsSums(later_, closed_, bits_, work_);
  }
  void popFrame();

  const Problem &pb_;
  const size_t m_;
  int64_t capQ_ = 0;
  bool possible_ = true;
  std::vector<int64_t> unit_, cap_;
  SlotMembers live_; ///< The buffers live in each slot.
  std::vector<int32_t> evSlot_, evHorizon_;
  std::vector<uint32_t> evBegin_;
  std::vector<int32_t> starters_;

  std::vector<double> prio_;
  std::vector<int64_t> off_;
  std::vector<std::pair<int64_t, int64_t>> gaps_;
  std::vector<int32_t> pend_;
  std::vector<Cand> cands_;
  std::vector<Frame> frames_;
  std::vector<std::pair<int64_t, int64_t>> occ_;
  std::vector<int64_t> items_, free_;
  /// For gapsSums: buffers (start, units) and gaps (units, earliest start).
  std::vector<std::pair<int64_t, int64_t>> later_, closed_;
  /// The placed buffers live at the lookahead's event: (offset, top, end).
  std::vector<std::tuple<int64_t, int64_t, int32_t>> held_;
  std::vector<uint64_t> bits_;
  bool solved_ = false;
  int64_t work_ = 0;
  int32_t deepest_ = 0;
};

Sweep::Sweep(const Problem &pb, int64_t capacity) : pb_(pb), m_(pb.count()) {
  UnitCapacity uc = unitCapacity(pb, capacity);
  unit_ = std::move(uc.unit);
  cap_ = std::move(uc.cap);
  capQ_ = uc.capQ;
  for (size_t i = 0; i < m_; ++i)
    possible_ &= unit_[i] <= cap_[i];
  possible_ &= pb.minPool <= capacity;

  live_ = slotMembers(pb);
  work_ += int64_t(live_.members.size() + m_);

  starters_ = sortedIds(m_, [&](int32_t i) { return pb.lo[i]; });
  for (size_t k = 0; k < m_; ++k) {
    const int32_t i = starters_[k];
    if (evSlot_.empty() || evSlot_.back() != pb.lo[i]) {
      evSlot_.push_back(pb.lo[i]);
      evBegin_.push_back(uint32_t(k));
      evHorizon_.push_back(pb.hi[i]);
    }
    evHorizon_.back() = std::max(evHorizon_.back(), pb.hi[i]);
  }
  evBegin_.push_back(uint32_t(m_));
  off_.assign(m_, -1);
  prio_.assign(m_, 0);
  frames_.reserve(2 * m_ + 2);
}

void Sweep::offsets(std::vector<int64_t> &out) const {
  out.resize(m_);
  for (size_t i = 0; i < m_; ++i)
    out[i] = off_[i] * pb_.alignment;
}

size_t Sweep::tightEvents() const {
  size_t n = 0;
  for (int32_t t : evSlot_) {
    int64_t load = 0;
    for (uint32_t k = live_.begin[t]; k < live_.begin[t + 1]; ++k)
      load += unit_[live_.members[k]];
    n += load == capQ_;
  }
  return n;
}

bool Sweep::pushEvent(int32_t e) {
  deepest_ = std::max(deepest_, e);
  const int32_t t = evSlot_[e];
  // The gaps between the buffers placed and live at t.
  occ_.clear();
  for (uint32_t k = live_.begin[t]; k < live_.begin[t + 1]; ++k) {
    const int32_t j = live_.members[k];
    if (off_[j] >= 0)
      occ_.push_back({off_[j], off_[j] + unit_[j]});
  }
  std::sort(occ_.begin(), occ_.end());
  work_ += int64_t(occ_.size()) + (evBegin_[e + 1] - evBegin_[e]);
  Frame f;
  f.event = e;
  f.owns = true;
  f.gapsMark = gaps_.size();
  f.pendMark = pend_.size();
  f.gapBegin = uint32_t(gaps_.size());
  int64_t at = 0, room = 0, need = 0;
  for (const auto &[lo, hi] : occ_) {
    if (lo > at) {
      gaps_.push_back({at, lo});
      room += lo - at;
    }
    at = std::max(at, hi);
  }
  if (at < capQ_) {
    gaps_.push_back({at, capQ_});
    room += capQ_ - at;
  }
  f.gapEnd = uint32_t(gaps_.size());
  f.pendBegin = uint32_t(pend_.size());
  for (uint32_t k = evBegin_[e]; k < evBegin_[e + 1]; ++k) {
    pend_.push_back(starters_[k]);
    need += unit_[starters_[k]];
  }
  f.pendCount = uint32_t(pend_.size()) - f.pendBegin;
  if (need > room || f.gapBegin == f.gapEnd) {
    gaps_.resize(f.gapsMark);
    pend_.resize(f.pendMark);
    return false;
  }
  f.slack = need < room;
  f.gap = f.gapBegin;
  f.lo = gaps_[f.gap].first;
  f.hi = gaps_[f.gap].second;
  f.topPhase = false;
  frames_.push_back(f);
  return true;
}

void Sweep::popFrame() {
  const Frame &f = frames_.back();
  cands_.resize(f.candBegin);
  if (f.owns) {
    gaps_.resize(f.gapsMark);
    pend_.resize(f.pendMark);
  }
  frames_.pop_back();
}

Result Sweep::enter(Frame &f) {
  f.candBegin = f.candEnd = f.next = uint32_t(cands_.size());
  if (f.gap >= f.gapEnd)
    return Result::Fail;
  const int32_t *pend = pend_.data() + f.pendBegin;
  items_.clear();
  free_.clear();
  for (uint32_t k = 0; k < f.pendCount; ++k)
    items_.push_back(unit_[pend[k]]);
  if (f.hi > f.lo)
    free_.push_back(f.hi - f.lo);
  for (uint32_t g = f.gap + 1; g < f.gapEnd; ++g)
    free_.push_back(gaps_[g].second - gaps_[g].first);
  work_ += 2 * int64_t(items_.size() + free_.size());
  if (!fitsGaps(items_, free_) || !exactFill())
    return Result::Fail;

  // Bottom placements (in the top phase only those filling the gap), then
  // top placements and closing the gap where the point has room to spare.
  for (int pass = 0; pass < 2; ++pass) {
    const uint32_t first = uint32_t(cands_.size());
    for (uint32_t k = 0; k < f.pendCount; ++k) {
      const int32_t j = pend[k];
      const int64_t u = unit_[j], top = std::min(f.hi, cap_[j]);
      if (f.lo + u > top)
        continue;
      Kind kind = Kind::Bottom;
      int64_t off = f.lo;
      if (pass == 0) {
        if (f.topPhase && f.lo + u != f.hi)
          continue;
      } else {
        if (!f.slack || top - u == f.lo)
          continue;
        kind = Kind::Top;
        off = top - u;
      }
      // One of each class of interchangeable buffers.
      bool seen = false;
      for (uint32_t c = first; c < cands_.size() && !seen; ++c) {
        const int32_t o = cands_[c].buffer;
        seen = unit_[o] == u && pb_.hi[o] == pb_.hi[j] && cap_[o] == cap_[j];
      }
      if (!seen)
        cands_.push_back(Cand{prio_[j], j, k, off, kind});
    }
    work_ += int64_t(f.pendCount) * (1 + int64_t(cands_.size() - first));
    std::sort(cands_.begin() + first, cands_.end(),
              [](const Cand &x, const Cand &y) {
                return x.prio != y.prio ? x.prio > y.prio : x.buffer < y.buffer;
              });
  }
  if (f.lo == f.hi || f.slack)
    cands_.push_back(Cand{0, -1, 0, 0, Kind::Close});
  f.candEnd = uint32_t(cands_.size());
  return Result::None;
}

bool Sweep::slotFits(int32_t s, int32_t t, const Frame &f, bool done) {
  occ_.clear();
  items_.clear();
  later_.clear();
  int64_t load = 0;
  for (uint32_t k = live_.begin[s]; k < live_.begin[s + 1]; ++k) {
    const int32_t j = live_.members[k];
    load += unit_[j];
    if (off_[j] >= 0) {
      occ_.push_back({off_[j], off_[j] + unit_[j]});
    } else {
      items_.push_back(unit_[j]);
      if (pb_.lo[j] > t)
        later_.push_back({pb_.lo[j], unit_[j]});
    }
  }
  std::sort(occ_.begin(), occ_.end());
  work_ += 3 * int64_t(live_.begin[s + 1] - live_.begin[s]);
  // The free space at s, and the parts of it not free at t that the buffers
  // starting at t may still take: (lo, hi) of the frame and its later gaps.
  free_.clear();
  closed_.clear();
  uint32_t g = done ? f.gapEnd : f.gap;
  auto undecidedIn = [&](int64_t lo, int64_t hi) {
    bool in = false;
    for (; g < f.gapEnd; ++g) {
      const int64_t ulo = g == f.gap ? f.lo : gaps_[g].first;
      const int64_t uhi = g == f.gap ? f.hi : gaps_[g].second;
      if (ulo >= hi)
        break;
      in |= ulo < uhi && uhi > lo;
    }
    return in;
  };
  // A buffer in [lo, hi) starts once every placed buffer that held part of
  // it at t has ended (they all started by t), and after t.
  auto from = [&](int64_t lo, int64_t hi) {
    auto k =
        std::partition_point(held_.begin(), held_.end(), [&](const auto &h) {
          return std::get<1>(h) <= lo;
        });
    int64_t at = lo, first = std::numeric_limits<int64_t>::max();
    for (; k != held_.end() && std::get<0>(*k) < hi; ++k) {
      if (std::get<0>(*k) > at)
        break;
      first = std::min<int64_t>(first, std::get<2>(*k));
      at = std::get<1>(*k);
    }
    return at < hi ? int64_t(t) + 1 : first;
  };
  const bool tight = load == capQ_;
  int64_t at = 0;
  auto gap = [&](int64_t lo, int64_t hi) {
    free_.push_back(hi - lo);
    if (tight && !undecidedIn(lo, hi))
      closed_.push_back({hi - lo, from(lo, hi)});
  };
  for (const auto &[lo, hi] : occ_) {
    if (lo > at)
      gap(at, lo);
    at = std::max(at, hi);
  }
  if (at < capQ_)
    gap(at, capQ_);
  if (!fitsGaps(items_, free_))
    return false;
  // With no byte to spare at s, a gap the buffers of t cannot reach is
  // filled exactly by buffers starting after t.
  return closed_.empty() || gapsSums(later_, closed_, bits_, work_);
}

bool Sweep::lookahead(const Frame &f, int32_t until, bool done) {
  const int32_t t = evSlot_[f.event];
  held_.clear();
  for (uint32_t k = live_.begin[t]; k < live_.begin[t + 1]; ++k) {
    const int32_t j = live_.members[k];
    if (off_[j] >= 0)
      held_.push_back({off_[j], off_[j] + unit_[j], pb_.hi[j]});
  }
  std::sort(held_.begin(), held_.end());
  work_ += 2 * int64_t(held_.size());
  for (size_t n = size_t(f.event) + 1;
       n < evSlot_.size() && evSlot_[n] <= until; ++n)
    if (!slotFits(evSlot_[n], t, f, done))
      return false;
  return true;
}

bool Sweep::apply(size_t fi, const Cand &c) {
  Frame &f = frames_[fi];
  Frame child = f;
  child.owns = false;
  child.placed = -1;
  f.placed = c.buffer;
  f.placedIndex = c.index;
  if (c.kind == Kind::Close) {
    ++child.gap;
    child.topPhase = false;
    if (child.gap < child.gapEnd) {
      child.lo = gaps_[child.gap].first;
      child.hi = gaps_[child.gap].second;
    }
    if (!lookahead(child, evHorizon_[f.event], false))
      return false;
    frames_.push_back(child);
    return true;
  }
  const int32_t i = c.buffer;
  int32_t *pend = pend_.data() + f.pendBegin;
  std::swap(pend[c.index], pend[f.pendCount - 1]);
  off_[i] = c.off;
  --child.pendCount;
  if (c.kind == Kind::Bottom) {
    child.lo = c.off + unit_[i];
  } else {
    child.hi = c.off;
    child.topPhase = true;
  }
  if (child.pendCount > 0) {
    if (!lookahead(child, pb_.hi[i], false))
      return false;
    frames_.push_back(child);
    return true;
  }
  // The event is done: look ahead, then go on to the next one.
  if (!lookahead(child, evHorizon_[f.event], true))
    return false;
  if (size_t(f.event) + 1 == evSlot_.size()) {
    solved_ = true;
    return true;
  }
  return pushEvent(f.event + 1);
}

void Sweep::undo(size_t fi) {
  Frame &f = frames_[fi];
  if (f.placed < 0)
    return;
  off_[f.placed] = -1;
  int32_t *pend = pend_.data() + f.pendBegin;
  std::swap(pend[f.placedIndex], pend[f.pendCount - 1]);
  f.placed = -1;
}

Result Sweep::run(int key, const std::vector<double> &noise, int64_t limit) {
  for (size_t i = 0; i < m_; ++i) {
    const double u = double(unit_[i]), end = double(pb_.hi[i]);
    const double len = double(pb_.hi[i] - pb_.lo[i]);
    double p = key == 0 ? u * 1e6 + end : key == 1 ? end * 1e9 + u : u * len;
    prio_[i] = noise.empty() ? p : p * noise[i];
  }
  std::fill(off_.begin(), off_.end(), -1);
  frames_.clear();
  cands_.clear();
  gaps_.clear();
  pend_.clear();
  solved_ = false;
  if (!possible_ || !pushEvent(0))
    return Result::Fail;
  Result res = Result::None;
  while (!frames_.empty()) {
    const size_t top = frames_.size() - 1;
    if (res == Result::None) {
      res = work_ > limit ? Result::Abort : enter(frames_[top]);
      if (res != Result::None) {
        popFrame();
        continue;
      }
    } else {
      if (res != Result::Fail) {
        popFrame();
        continue;
      }
      undo(top);
    }
    res = Result::Fail;
    while (frames_[top].next < frames_[top].candEnd) {
      const Cand c = cands_[frames_[top].next++];
      ++work_;
      if (apply(top, c)) {
        res = solved_ ? Result::Success : Result::None;
        break;
      }
      undo(top);
    }
    if (res == Result::Fail)
      popFrame();
  }
  return res;
}

} // namespace

SweepOutcome searchSweep(const Problem &pb, int64_t capacity, int64_t budget) {
  SweepOutcome out;
  if (pb.count() == 0 || budget <= 0)
    return out;
  // The budget is in the exact search's steps.
  budget = kPrice.stepsFor(budget);
  const int64_t probe = budget / kProbeShare;
  // Not worth starting with less than a few times the setup's steps.
  int64_t setup = int64_t(pb.count());
  for (size_t i = 0; i < pb.count(); ++i)
    setup += pb.hi[i] - pb.lo[i];
  if (4 * setup > probe)
    return out;
  Sweep sweep(pb, capacity);
  if (!sweep.possible()) {
    out.work = kPrice.costOfWholeGroups(sweep.work());
    return out;
  }
  // Restarts seeded by the capacity (Restarts.h).
  RestartSchedule restarts(kRestarts, int64_t(sweep.count()),
                           0xD1B54A32D192ED03ull ^ uint64_t(capacity));
  std::vector<double> noise;
  int64_t limit = probe;
  bool probing = true;
  for (;;) {
    if (sweep.work() >= limit) {
      // After the probe, go on where the runs get far into a program whose
      // bytes are tight at many points, the programs this search is for.
      if (!probing ||
          double(sweep.reached()) < kHeadway * double(sweep.events()) ||
          double(sweep.tightEvents()) < kTightShare * double(sweep.events()))
        break;
      probing = false;
      limit = budget;
    }
    int64_t runLimit;
    const int key = restarts.next(sweep.count(), noise, runLimit);
    const int64_t before = sweep.work();
    Result res = sweep.run(key, noise, std::min(before + runLimit, limit));
    restarts.spent(sweep.work() - before);
    if (res == Result::Success) {
      out.found = true;
      sweep.offsets(out.offsets);
      break;
    }
    // Every packing the sweep builds was tried: other orders meet the same.
    if (res == Result::Fail)
      break;
  }
  out.work = kPrice.costOfWholeGroups(sweep.work());
  return out;
}

} // namespace packing_detail
} // namespace memplan
