//===- PairOrderSearch.cpp - Clause-learning search over pair orders ------===//
//
// A complete search for a packing under a capacity (PairOrderSearch.h), on
// the model that job-shop schedulers solve with SAT modulo difference logic
// and lazy clause generation.
//
// Model. For each pair of buffers whose lifetimes overlap, one Boolean
// decides which of the two lies below the other. A literal "a below b" is
// the constraint off(b) >= off(a) + size(a): an edge a -> b of weight
// size(a) in a graph whose paths are stacks of buffers. The Booleans fit the
// capacity iff every path from the bottom to the top of the graph fits in it
// (its buffers' sizes, plus what the last one's own top limit takes off the
// capacity). Then each buffer at the length of the longest path into it is a
// packing: every pair that overlaps in time is apart by an edge or a path.
//
// Theory. For each buffer the search keeps the longest path into it (its
// lowest offset) and the longest path out of it to the top, each with the
// edge it came by, and updates them as edges come, forward and backward
// through the graph. A buffer whose two paths do not fit together is a
// conflict, explained by the literals along both paths. An undecided pair
// whose one order would make such a path is decided the other way, with
// the same kind of explanation, taken when it is decided.
//
// Search. Conflict-driven clause learning: decisions by activity (VSIDS)
// with saved phases, first-UIP learning and non-chronological backjumping,
// restarts after Luby-sequence numbers of conflicts. At a restart the clause
// store is cut down to the short and the recent clauses once it outgrows
// its limit. Pairs of identical buffers (same lifetime and size) are ordered
// by id from the start: swapping two of them maps packings to packings.
//
// This search learns which orders of which buffers cannot go together
// wherever in the program they are met, which the searches by offset and by
// program point do not; it fits programs with holes left everywhere, where
// those get lost, and is weak where a program is tight at many points, where
// those are fast. The steps are counted like the exact search's.
//
//===----------------------------------------------------------------------===//

#include "PairOrderSearch.h"
#include "Restarts.h"
#include "StepPrice.h"

#include <algorithm>

namespace memplan {
namespace packing_detail {
namespace {

/// Pairs of overlapping buffers the search takes at most (about 64 MiB).
constexpr int64_t kMaxPairs = int64_t(1) << 19;
/// Restarts come after luby(k) times this many conflicts.
constexpr int64_t kRestartConflicts = 100;
/// Activities decay by this factor at each conflict.
constexpr double kActivityDecay = 0.95;
/// Learnt clauses kept before the first cut; the limit grows by a tenth at
/// each cut. Clauses of at most kKeepSize literals are always kept.
constexpr size_t kFirstLearntLimit = 20000, kKeepSize = 4;
/// 2 steps here cost 7 of the exact search's (CPU time, measured on the
/// generated holes instances and on harder ones: 10.2-10.7 ns a step against
/// about 3).
constexpr StepPrice kPrice{7, 2};

/// 2 * pair + 1 when the pair's second buffer lies below its first.
using Lit = int32_t;

using Status = PairOrderSearch::Status;

} // namespace

class PairOrderSolver {
public:
  PairOrderSolver(const Problem &pb, int64_t capacity);
  /// Runs until a verdict, or until steps() reaches `until`.
  Status solve(int64_t until);
  /// After Found: offsets in bytes.
  std::vector<int64_t> offsets() const;
  int64_t steps() const { return steps_; }

private:
  /// How a pair was decided: by a decision (clause < 0 and no theory
  /// literals), a clause (its first literal is the decided one), or the
  /// theory (the true literals reasonLits_[begin, begin + size)).
  struct Reason {
    int32_t clause = -1;
    uint32_t begin = 0, size = 0;
  };
  /// The two bounds of a buffer: Low, the longest path into it from the
  /// bottom (its lowest offset); High, the longest path out of it to the top,
  /// itself included (the room it needs).
  enum Dir { Low = 0, High = 1 };
  struct TheoryUndo {
    int32_t buffer;
    Dir dir;
    int64_t value;
    Lit via;
  };

  /// The pair of buffers a and b (they overlap in time).
  int32_t pairOf(int32_t a, int32_t b) const;
  /// The literal "a lies below b".
  Lit belowLit(int32_t a, int32_t b) const {
    const int32_t v = pairOf(a, b);
    return 2 * v + (first_[v] == a ? 0 : 1);
  }
  /// How via_ names a bound that slot s's sum gives; its own
  /// inverse.
  static Lit slotVia(int32_t s) { return -2 - s; }
  int32_t below(Lit l) const {
    return l & 1 ? second_[l >> 1] : first_[l >> 1];
  }
  int32_t above(Lit l) const {
    return l & 1 ? first_[l >> 1] : second_[l >> 1];
  }
  /// 1 true, 0 false, -1 undecided.
  int value(Lit l) const {
    const int8_t v = value_[l >> 1];
    return v < 0 ? -1 : int((v == 1) == ((l & 1) == 0));
  }
  int level() const { return int(trailLim_.size()); }

  void assign(Lit l, Reason r);
  /// Returns false on a conflict, left in conflict_ (false literals).
  bool propagate();
  bool addEdge(Lit l);
  /// Raises bound d of buffer b to `value` (for the reason `via`), and the
  /// bounds that follow from it along the graph. False on a conflict, with
  /// its explanation in explain_.
  bool raise(Dir d, int32_t b, int64_t value, Lit via);
  /// Decides the undecided pairs of `b` that its paths leave one order.
  bool implyPairs(int32_t b);
  /// Appends to explain_ the true literals that give b its bound d: the
  /// longest path into b (Low) or out of it (High), as far as a slot's sum.
  void explainBound(Dir d, int32_t b);
  /// Fills learntClause_ (its first literal the one it asserts), or leaves
  /// it empty where the conflict holds no literal of the current level.
  void learn();
  void backtrack(int to);
  /// Backtracks to level 0 and propagates there; cuts the clauses down once
  /// they outgrow their limit. False if that proves nothing fits.
  bool restart();
  /// At level 0: drops satisfied clauses, false literals, and the older half
  /// of the long clauses. False if a clause became empty.
  bool reduceClauses();
  void bump(int32_t v);
  /// Puts variable `v` at heap slot `k`.
  void heapSet(size_t k, int32_t v) {
    heap_[k] = v;
    heapPos_[v] = int32_t(k);
  }
  void heapUp(size_t k);
  void heapDown(size_t k);
  void heapPush(int32_t v);
  int32_t heapPop();

  const Problem &pb_;
  const size_t m_;
  const int64_t a_;
  int64_t capQ_ = 0;
  std::vector<int64_t> unit_, topSlack_;
  std::vector<int32_t> first_, second_;
  std::vector<uint32_t> pairBegin_;
  std::vector<int32_t> pairList_;

  std::vector<int8_t> value_, phase_;
  std::vector<int32_t> level_;
  std::vector<Reason> reason_;
  std::vector<Lit> trail_;
  std::vector<size_t> trailLim_;
  size_t head_ = 0;
  std::vector<Lit> reasonLits_;
  std::vector<size_t> reasonLim_;

  /// Learnt clauses: every clause of the search is one.
  std::vector<std::vector<Lit>> clauses_;
  std::vector<std::vector<int32_t>> watches_;
  size_t learntLimit_ = kFirstLearntLimit;

  /// Per direction and buffer: its bound, the edge or slot it came by, and
  /// the edges it passes on by (Low: those to buffers above; High: those
  /// from buffers below).
  std::vector<int64_t> bound_[2];
  std::vector<Lit> via_[2];
  std::vector<std::vector<Lit>> next_[2];
  std::vector<TheoryUndo> theoryUndo_;
  std::vector<size_t> theoryLim_;
  /// Per buffer and slot of its lifetime (from spanBase_[b]): the units of
  /// the buffers live in that slot known to lie below it, and above it.
  std::vector<uint32_t> spanBase_;
  std::vector<int64_t> belowSum_, aboveSum_;
  /// Undo log of the sums: (index, units added to below (true) or above).
  struct SumUndo {
    uint32_t index;
    bool below;
    int64_t units;
  };
  std::vector<SumUndo> sumUndo_;
  std::vector<size_t> sumLim_;
  std::vector<uint32_t> slotBegin_;
  std::vector<int32_t> slotMembers_;
  std::vector<Lit> edges_;
  std::vector<size_t> edgeLim_;
  /// The buffers whose bounds the literal being propagated changed, each
  /// once: changedIn_ holds the stamp of the literal it was last added for.
  std::vector<int32_t> changed_, stack_;
  std::vector<uint64_t> changedIn_;
  uint64_t stamp_ = 0;

  std::vector<double> activity_;
  double bumpBy_ = 1;
  std::vector<int32_t> heap_, heapPos_;

  bool started_ = false;
  Status verdict_ = Status::OutOfBudget;
  int64_t conflicts_ = 0, restarts_ = 1;
  int64_t nextRestart_ = kRestartConflicts;
  std::vector<Lit> conflict_, explain_, learntClause_;
  std::vector<int8_t> seen_;
  std::vector<int32_t> seenList_;
  int64_t steps_ = 0;
};

PairOrderSolver::PairOrderSolver(const Problem &pb, int64_t capacity)
    : pb_(pb), m_(pb.count()), a_(pb.alignment) {
  // topSlack is what a buffer's own top limit takes off the highest.
  UnitCapacity uc = unitCapacity(pb, capacity);
  unit_ = std::move(uc.unit);
  capQ_ = uc.capQ;
  topSlack_.resize(m_);
  for (size_t i = 0; i < m_; ++i)
    topSlack_[i] = capQ_ - uc.cap[i];

  std::vector<int32_t> degree(m_, 0);
  forEachOverlappingPair(pb, [&](int32_t i, int32_t j) {
    first_.push_back(std::min(i, j));
    second_.push_back(std::max(i, j));
    ++degree[i];
    ++degree[j];
  });
  const size_t pairs = first_.size();
  pairBegin_.assign(m_ + 1, 0);
  for (size_t i = 0; i < m_; ++i)
    pairBegin_[i + 1] = pairBegin_[i] + uint32_t(degree[i]);
  pairList_.resize(2 * pairs);
  std::vector<uint32_t> at(pairBegin_.begin(), pairBegin_.end() - 1);
  for (size_t v = 0; v < pairs; ++v) {
    pairList_[at[first_[v]]++] = int32_t(v);
    pairList_[at[second_[v]]++] = int32_t(v);
  }

  for (size_t i = 0; i < m_; ++i) {
    auto other = [&](int32_t v) {
      return first_[v] == int32_t(i) ? second_[v] : first_[v];
    };
    std::sort(pairList_.begin() + pairBegin_[i],
              pairList_.begin() + pairBegin_[i + 1],
              [&](int32_t x, int32_t y) { return other(x) < other(y); });
  }
  slotBegin_.assign(pb.numSlots + 1, 0);
  spanBase_.assign(m_ + 1, 0);
  for (size_t i = 0; i < m_; ++i) {
    spanBase_[i + 1] = spanBase_[i] + uint32_t(pb.hi[i] - pb.lo[i]);
    for (int32_t t = pb.lo[i]; t < pb.hi[i]; ++t)
      ++slotBegin_[t + 1];
  }
  for (size_t t = 0; t < pb.numSlots; ++t)
    slotBegin_[t + 1] += slotBegin_[t];
  slotMembers_.resize(slotBegin_.back());
  std::vector<uint32_t> fill(slotBegin_.begin(), slotBegin_.end() - 1);
  for (size_t i = 0; i < m_; ++i)
    for (int32_t t = pb.lo[i]; t < pb.hi[i]; ++t)
      slotMembers_[fill[t]++] = int32_t(i);
  belowSum_.assign(spanBase_[m_], 0);
  aboveSum_.assign(spanBase_[m_], 0);

  value_.assign(pairs, -1);
  phase_.assign(pairs, 1);
  level_.assign(pairs, 0);
  reason_.assign(pairs, Reason{});
  seen_.assign(pairs, 0);
  watches_.assign(2 * pairs, {});
  activity_.assign(pairs, 0);
  heapPos_.assign(pairs, -1);
  for (size_t v = 0; v < pairs; ++v)
    heapPush(int32_t(v));
  bound_[Low].assign(m_, 0);
  bound_[High].resize(m_);
  for (size_t i = 0; i < m_; ++i)
    bound_[High][i] = unit_[i] + topSlack_[i];
  for (Dir d : {Low, High}) {
    via_[d].assign(m_, -1);
    next_[d].assign(m_, {});
  }
  changedIn_.assign(m_, 0);
}

std::vector<int64_t> PairOrderSolver::offsets() const {
  std::vector<int64_t> off(m_);
  for (size_t i = 0; i < m_; ++i)
    off[i] = bound_[Low][i] * a_;
  return off;
}

void PairOrderSolver::assign(Lit l, Reason r) {
  const int32_t v = l >> 1;
  value_[v] = (l & 1) ? 0 : 1;
  level_[v] = level();
  reason_[v] = r;
  trail_.push_back(l);
}

int32_t PairOrderSolver::pairOf(int32_t a, int32_t b) const {
  const int32_t *begin = pairList_.data() + pairBegin_[a];
  const int32_t *end = pairList_.data() + pairBegin_[a + 1];
  return *std::lower_bound(begin, end, b, [&](int32_t v, int32_t x) {
    return (first_[v] == a ? second_[v] : first_[v]) < x;
  });
}

void PairOrderSolver::explainBound(Dir d, int32_t b) {
  for (size_t n = 0; via_[d][b] != -1 && n <= m_; ++n) {
    const Lit via = via_[d][b];
    ++steps_;
    if (via >= 0) {
      explain_.push_back(via);
      b = d == Low ? below(via) : above(via);
      continue;
    }
    // A slot's sum: the buffers live there known to lie below b (Low), or
    // above it (High).
    const int32_t t = slotVia(via);
    for (uint32_t k = slotBegin_[t]; k < slotBegin_[t + 1]; ++k) {
      const int32_t y = slotMembers_[k];
      if (y == b)
        continue;
      const Lit l = d == Low ? belowLit(y, b) : belowLit(b, y);
      if (value(l) == 1)
        explain_.push_back(l);
    }
    steps_ += slotBegin_[t + 1] - slotBegin_[t];
    return;
  }
}

bool PairOrderSolver::raise(Dir d, int32_t b, int64_t value, Lit via) {
  std::vector<int64_t> &bound = bound_[d];
  stack_.clear();
  if (value <= bound[b])
    return true;
  theoryUndo_.push_back({b, d, bound[b], via_[d][b]});
  bound[b] = value;
  via_[d][b] = via;
  stack_.push_back(b);
  while (!stack_.empty()) {
    const int32_t x = stack_.back();
    stack_.pop_back();
    if (changedIn_[x] != stamp_) {
      changedIn_[x] = stamp_;
      changed_.push_back(x);
    }
    ++steps_;
    if (bound_[Low][x] + bound_[High][x] > capQ_) {
      explain_.clear();
      explainBound(Low, x);
      explainBound(High, x);
      return false;
    }
    steps_ += int64_t(next_[d][x].size());
    for (Lit e : next_[d][x]) {
      // Low: x's top is below y; High: y's units come below x's room.
      const int32_t y = d == Low ? above(e) : below(e);
      const int64_t reach = bound[x] + (d == Low ? unit_[x] : unit_[y]);
      if (reach > bound[y]) {
        theoryUndo_.push_back({y, d, bound[y], via_[d][y]});
        bound[y] = reach;
        via_[d][y] = e;
        stack_.push_back(y);
      }
    }
  }
  return true;
}

bool PairOrderSolver::addEdge(Lit l) {
  const int32_t u = below(l), w = above(l);
  next_[Low][u].push_back(l);
  next_[High][w].push_back(l);
  edges_.push_back(l);
  // In each slot both live in, u's units are below w and w's above u: the
  // sums bound w's offset from below and u's room above.
  int64_t bestBelow = 0, bestAbove = 0;
  int32_t belowSlot = -1, aboveSlot = -1;
  const int32_t from = std::max(pb_.lo[u], pb_.lo[w]);
  const int32_t to = std::min(pb_.hi[u], pb_.hi[w]);
  for (int32_t t = from; t < to; ++t) {
    const uint32_t iw = spanBase_[w] + uint32_t(t - pb_.lo[w]);
    const uint32_t iu = spanBase_[u] + uint32_t(t - pb_.lo[u]);
    belowSum_[iw] += unit_[u];
    aboveSum_[iu] += unit_[w];
    sumUndo_.push_back({iw, true, unit_[u]});
    sumUndo_.push_back({iu, false, unit_[w]});
    if (belowSum_[iw] > bestBelow) {
      bestBelow = belowSum_[iw];
      belowSlot = t;
    }
    if (aboveSum_[iu] > bestAbove) {
      bestAbove = aboveSum_[iu];
      aboveSlot = t;
    }
  }
  steps_ += to - from;
  return raise(Low, w, bound_[Low][u] + unit_[u], l) &&
         raise(Low, w, bestBelow, slotVia(belowSlot)) &&
         raise(High, u, unit_[u] + bound_[High][w], l) &&
         raise(High, u, unit_[u] + bestAbove, slotVia(aboveSlot));
}

bool PairOrderSolver::implyPairs(int32_t b) {
  steps_ += pairBegin_[b + 1] - pairBegin_[b];
  for (uint32_t k = pairBegin_[b]; k < pairBegin_[b + 1]; ++k) {
    const int32_t v = pairList_[k];
    if (value_[v] >= 0)
      continue;
    const int32_t f = first_[v], s = second_[v];
    const bool firstBelow =
        bound_[Low][f] + unit_[f] + bound_[High][s] <= capQ_;
    const bool secondBelow =
        bound_[Low][s] + unit_[s] + bound_[High][f] <= capQ_;
    if (firstBelow && secondBelow)
      continue;
    explain_.clear();
    if (!firstBelow) {
      explainBound(Low, f);
      explainBound(High, s);
    }
    if (!secondBelow) {
      explainBound(Low, s);
      explainBound(High, f);
    }
    if (!firstBelow && !secondBelow)
      return false;
    std::sort(explain_.begin(), explain_.end());
    explain_.erase(std::unique(explain_.begin(), explain_.end()),
                   explain_.end());
    steps_ += 2 * int64_t(explain_.size());
    Reason r;
    r.begin = uint32_t(reasonLits_.size());
    r.size = uint32_t(explain_.size());
    reasonLits_.insert(reasonLits_.end(), explain_.begin(), explain_.end());
    assign(firstBelow ? 2 * v : 2 * v + 1, r);
  }
  return true;
}

bool PairOrderSolver::propagate() {
  while (head_ < trail_.size()) {
    const Lit l = trail_[head_++];
    // Clauses watching the literal that became false.
    const Lit f = l ^ 1;
    std::vector<int32_t> &ws = watches_[f];
    size_t i = 0, j = 0;
    bool ok = true;
    while (i < ws.size()) {
      const int32_t ci = ws[i++];
      std::vector<Lit> &c = clauses_[ci];
      ++steps_;
      if (c[0] == f)
        std::swap(c[0], c[1]);
      if (value(c[0]) == 1) {
        ws[j++] = ci;
        continue;
      }
      bool moved = false;
      for (size_t k = 2; k < c.size(); ++k) {
        ++steps_;
        if (value(c[k]) != 0) {
          std::swap(c[1], c[k]);
          watches_[c[1]].push_back(ci);
          moved = true;
          break;
        }
      }
      if (moved)
        continue;
      ws[j++] = ci;
      if (value(c[0]) == 0) {
        conflict_.assign(c.begin(), c.end());
        ok = false;
        break;
      }
      Reason r;
      r.clause = ci;
      assign(c[0], r);
    }
    while (i < ws.size())
      ws[j++] = ws[i++];
    ws.resize(j);
    if (!ok)
      return false;

    // The edge, its paths, and the pairs whose order they settle.
    changed_.clear();
    ++stamp_;
    bool fits = addEdge(l);
    for (size_t k = 0; fits && k < changed_.size(); ++k)
      fits = implyPairs(changed_[k]);
    if (!fits) {
      steps_ += 2 * int64_t(explain_.size());
      std::sort(explain_.begin(), explain_.end());
      explain_.erase(std::unique(explain_.begin(), explain_.end()),
                     explain_.end());
      conflict_.clear();
      for (Lit e : explain_)
        conflict_.push_back(e ^ 1);
      return false;
    }
  }
  return true;
}

void PairOrderSolver::learn() {
  // First UIP: resolve the conflict with the reasons of its literals of the
  // current level, latest first, until one is left.
  learntClause_.assign(1, 0);
  seenList_.clear();
  int open = 0;
  size_t index = trail_.size();
  Lit uip = -1;
  auto visit = [&](Lit falseLit) {
    const int32_t v = falseLit >> 1;
    if (seen_[v] || level_[v] == 0)
      return;
    seen_[v] = 1;
    seenList_.push_back(v);
    bump(v);
    if (level_[v] == level())
      ++open;
    else
      learntClause_.push_back(falseLit);
  };
  for (Lit l : conflict_)
    visit(l);
  if (open == 0) {
    // Not from this level: nothing to learn (a conflict always holds the
    // literal being propagated; this only keeps the walk below in bounds).
    for (int32_t v : seenList_)
      seen_[v] = 0;
    learntClause_.clear();
    return;
  }
  while (true) {
    do
      --index;
    while (!seen_[trail_[index] >> 1]);
    uip = trail_[index];
    const int32_t v = uip >> 1;
    seen_[v] = 0;
    if (--open <= 0)
      break;
    const Reason &r = reason_[v];
    steps_ += r.size + 1;
    if (r.clause >= 0) {
      const std::vector<Lit> &c = clauses_[r.clause];
      for (size_t k = 1; k < c.size(); ++k)
        visit(c[k]);
    } else {
      for (uint32_t k = 0; k < r.size; ++k)
        visit(reasonLits_[r.begin + k] ^ 1);
    }
  }
  for (int32_t v : seenList_)
    seen_[v] = 0;
  learntClause_[0] = uip ^ 1;
  bumpBy_ /= kActivityDecay;
}

void PairOrderSolver::backtrack(int to) {
  if (level() <= to)
    return;
  const size_t mark = trailLim_[to];
  for (size_t k = trail_.size(); k-- > mark;) {
    const int32_t v = trail_[k] >> 1;
    ++steps_;
    phase_[v] = value_[v];
    value_[v] = -1;
    heapPush(v);
  }
  trail_.resize(mark);
  head_ = mark;
  for (size_t n = theoryLim_[to]; theoryUndo_.size() > n;) {
    const TheoryUndo &u = theoryUndo_.back();
    bound_[u.dir][u.buffer] = u.value;
    via_[u.dir][u.buffer] = u.via;
    theoryUndo_.pop_back();
  }
  for (size_t n = edgeLim_[to]; edges_.size() > n; edges_.pop_back()) {
    next_[Low][below(edges_.back())].pop_back();
    next_[High][above(edges_.back())].pop_back();
  }
  for (size_t n = sumLim_[to]; sumUndo_.size() > n; sumUndo_.pop_back()) {
    const SumUndo &u = sumUndo_.back();
    (u.below ? belowSum_ : aboveSum_)[u.index] -= u.units;
  }
  sumLim_.resize(to);
  reasonLits_.resize(reasonLim_[to]);
  trailLim_.resize(to);
  theoryLim_.resize(to);
  edgeLim_.resize(to);
  reasonLim_.resize(to);
}

bool PairOrderSolver::restart() {
  backtrack(0);
  if (!propagate())
    return false;
  // Level-0 literals are never resolved on: their reasons can go.
  steps_ += int64_t(trail_.size());
  for (Lit l : trail_)
    reason_[l >> 1] = Reason{};
  reasonLits_.clear();
  if (clauses_.size() <= learntLimit_)
    return true;
  learntLimit_ += learntLimit_ / 10;
  return reduceClauses();
}

bool PairOrderSolver::reduceClauses() {
  size_t longLearnt = 0;
  for (const std::vector<Lit> &c : clauses_)
    longLearnt += c.size() > kKeepSize;
  // Of the long learnt clauses, the older half goes.
  size_t dropLong = longLearnt / 2;
  size_t keep = 0;
  for (size_t ci = 0; ci < clauses_.size(); ++ci) {
    std::vector<Lit> &c = clauses_[ci];
    steps_ += int64_t(c.size());
    if (c.size() > kKeepSize && dropLong > 0) {
      --dropLong;
      continue;
    }
    bool satisfied = false;
    size_t n = 0;
    for (Lit l : c) {
      const int x = value(l);
      satisfied |= x == 1;
      if (x != 0)
        c[n++] = l;
    }
    if (satisfied)
      continue;
    c.resize(n);
    if (n == 0)
      return false;
    if (n == 1) {
      assign(c[0], Reason{});
      continue;
    }
    if (keep != ci)
      clauses_[keep] = std::move(c);
    ++keep;
  }
  clauses_.resize(keep);
  steps_ += int64_t(watches_.size());
  for (std::vector<int32_t> &w : watches_)
    w.clear();
  for (size_t ci = 0; ci < clauses_.size(); ++ci) {
    watches_[clauses_[ci][0]].push_back(int32_t(ci));
    watches_[clauses_[ci][1]].push_back(int32_t(ci));
  }
  return true;
}

void PairOrderSolver::bump(int32_t v) {
  ++steps_;
  activity_[v] += bumpBy_;
  if (activity_[v] > 1e100) {
    for (double &x : activity_)
      x *= 1e-100;
    bumpBy_ *= 1e-100;
  }
  if (heapPos_[v] >= 0)
    heapUp(size_t(heapPos_[v]));
}

void PairOrderSolver::heapUp(size_t k) {
  const int32_t v = heap_[k];
  while (k > 0) {
    const size_t p = (k - 1) / 2;
    if (activity_[heap_[p]] >= activity_[v])
      break;
    heapSet(k, heap_[p]);
    k = p;
  }
  heapSet(k, v);
}

void PairOrderSolver::heapDown(size_t k) {
  const int32_t v = heap_[k];
  while (true) {
    size_t c = 2 * k + 1;
    if (c >= heap_.size())
      break;
    if (c + 1 < heap_.size() && activity_[heap_[c + 1]] > activity_[heap_[c]])
      ++c;
    if (activity_[heap_[c]] <= activity_[v])
      break;
    heapSet(k, heap_[c]);
    k = c;
  }
  heapSet(k, v);
}

void PairOrderSolver::heapPush(int32_t v) {
  if (heapPos_[v] >= 0)
    return;
  heap_.push_back(v);
  heapUp(heap_.size() - 1);
}

int32_t PairOrderSolver::heapPop() {
  const int32_t v = heap_[0];
  heapPos_[v] = -1;
  const int32_t last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) {
    heapSet(0, last);
    heapDown(0);
  }
  return v;
}

Status PairOrderSolver::solve(int64_t until) {
  if (verdict_ != Status::OutOfBudget)
    return verdict_;
  if (!started_) {
    started_ = true;
    for (size_t i = 0; i < m_; ++i)
      if (unit_[i] + topSlack_[i] > capQ_)
        return verdict_ = Status::Infeasible;
    // Identical buffers in id order (first_ < second_: "first below").
    for (size_t v = 0; v < first_.size(); ++v) {
      const int32_t f = first_[v], s = second_[v];
      if (pb_.lo[f] == pb_.lo[s] && pb_.hi[f] == pb_.hi[s] &&
          pb_.size[f] == pb_.size[s])
        assign(Lit(2 * v), Reason{});
    }
  }
  while (true) {
    if (steps_ >= until)
      return Status::OutOfBudget;
    if (!propagate()) {
      ++conflicts_;
      if (level() == 0)
        return verdict_ = Status::Infeasible;
      learn();
      if (learntClause_.empty()) {
        backtrack(0);
        continue;
      }
      int to = 0;
      size_t second = 1;
      for (size_t k = 1; k < learntClause_.size(); ++k) {
        if (level_[learntClause_[k] >> 1] > to) {
          to = level_[learntClause_[k] >> 1];
          second = k;
        }
      }
      if (learntClause_.size() > 1)
        std::swap(learntClause_[1], learntClause_[second]);
      backtrack(to);
      Reason r;
      if (learntClause_.size() > 1) {
        r.clause = int32_t(clauses_.size());
        watches_[learntClause_[0]].push_back(r.clause);
        watches_[learntClause_[1]].push_back(r.clause);
        clauses_.push_back(learntClause_);
      }
      assign(learntClause_[0], r);
      if (conflicts_ >= nextRestart_) {
        nextRestart_ = conflicts_ + kRestartConflicts * luby(++restarts_);
        if (!restart())
          return verdict_ = Status::Infeasible;
      }
      continue;
    }
    int32_t v = -1;
    while (!heap_.empty() && v < 0) {
      const int32_t x = heapPop();
      if (value_[x] < 0)
        v = x;
    }
    if (v < 0)
      return verdict_ = Status::Found;
    trailLim_.push_back(trail_.size());
    theoryLim_.push_back(theoryUndo_.size());
    edgeLim_.push_back(edges_.size());
    reasonLim_.push_back(reasonLits_.size());
    sumLim_.push_back(sumUndo_.size());
    assign(phase_[v] == 0 ? 2 * v + 1 : 2 * v, Reason{});
  }
}

PairOrderSearch::PairOrderSearch(const Problem &pb, int64_t capacity)
    : solver_(std::make_unique<PairOrderSolver>(pb, capacity)) {}

PairOrderSearch::~PairOrderSearch() = default;

PairOrderSearch::Status PairOrderSearch::resume(int64_t budget) {
  return solver_->solve(solver_->steps() + kPrice.stepsFor(budget));
}

std::vector<int64_t> PairOrderSearch::offsets() const {
  return solver_->offsets();
}

int64_t PairOrderSearch::work() const {
  return kPrice.costOf(solver_->steps());
}

bool PairOrderSearch::fits(const Problem &pb) {
  return pb.count() > 1 && countOverlappingPairs(pb) <= kMaxPairs;
}

} // namespace packing_detail
} // namespace memplan
