//===- TightSearch.cpp - Search for programs tight at every point ---------===//
//
// Where the live buffers fill the capacity exactly at every program point, a
// packing leaves no byte free anywhere: at each point the live buffers,
// ordered by offset, tile the capacity, and the packing is that sequence per
// point. At a point the ending buffers free their bytes and the starting
// ones fill them exactly: each maximal run of ending buffers in the sequence
// is a gap, filled by some of the starting buffers with the same units, in
// any order. The packings are the ways to go from one point's sequence to
// the next by replacing runs of ending buffers with starting ones.
//
// A PQ-tree (Booth and Lueker, 1976) is a set of sequences: a P-node's
// children in any order, a Q-node's in its order or the reverse. The
// sequences a packing can have at a point, given the points before, form
// such a set: at the first point, the starting buffers in any order (one
// P-node); at the next ones, for each gap, the set reduced to the sequences
// where the gap's ending buffers are consecutive, and the run replaced by a
// P-node of its starting buffers. A failed reduction means no packing
// has those gaps.
//
// How the ending buffers split into gaps, and the starting ones among them,
// is a choice where the units allow several; the search tries them depth
// first over the points, all ending buffers in one gap first. Having tried
// them all proves that no packing fits the capacity.
//
// A packing is then read backwards: a sequence of the last tree, and at each
// point back the one before, from the tree kept for that point reduced to
// the order the later sequence fixes (neighbours consecutive, the ending
// buffers of a gap in its place).
//
// Trees are persistent: a node never changes once made, so the tree kept for
// a point stays valid while later points build theirs, and backtracking
// drops the nodes made since.
//
//===----------------------------------------------------------------------===//

#include "TightSearch.h"
#include "StepPrice.h"

#include <algorithm>

namespace memplan {
namespace packing_detail {
namespace {

/// A gap: the ending buffers that free it and the starting ones that fill it.
struct Gap {
  std::vector<int32_t> ends, starts;
};
using Way = std::vector<Gap>;

class TightSearch {
public:
  explicit TightSearch(const Problem &pb);
  TightVerdict run(int64_t budget, std::vector<int64_t> &offsets);
  int64_t work() const { return kPrice.costOf(work_); }

private:
  /// Ways to split a point's buffers into gaps listed at most; past this, or
  /// with more than kMaxSplitItems buffers ending and starting there, only
  /// some are tried, and running out of ways no longer proves anything.
  static constexpr size_t kMaxWays = 64;
  static constexpr size_t kMaxSplitItems = 16;
  /// Node visits are dearer than the steps of the search by offset: one
  /// costs 4 of them.
  static constexpr StepPrice kPrice{4, 1};

  enum class Kind : int8_t { Leaf, P, Q };
  struct Node {
    Kind kind;
    int32_t leaf;
    uint32_t begin, count; ///< Children: kids_[begin, begin + count).
    int32_t leaves;
  };
  /// A node of a sequence being reduced, and whether its leaves are marked.
  using Piece = std::pair<int32_t, bool>;
  /// A point of the depth-first search: its tree, the next way to try, and
  /// the arena sizes to drop back to.
  struct Frame {
    int32_t point, tree;
    uint32_t next;
    size_t nodesMark, kidsMark;
  };

  int32_t leaf(int32_t id);
  int32_t make(Kind kind, const std::vector<int32_t> &kids);
  int32_t block(const std::vector<int32_t> &ids);
  std::vector<int32_t> kidsOf(int32_t n) const;
  int32_t count(int32_t n);
  int32_t reduce(int32_t root, int32_t marked, int32_t repl);
  int32_t descend(int32_t n, int32_t marked, int32_t repl);
  int32_t atRoot(int32_t n, int32_t repl);
  bool partial(int32_t n, std::vector<Piece> &out);
  int32_t splice(const std::vector<Piece> &seq, int32_t repl);
  void frontier(int32_t n, std::vector<int32_t> &out) const;
  int32_t reduceMarked(int32_t root, const std::vector<int32_t> &ids,
                       int32_t repl);
  const std::vector<Way> &waysAt(int32_t point);
  bool readBack(std::vector<int64_t> &offsets);

  const Problem &pb_;
  std::vector<int64_t> unit_;
  std::vector<std::vector<int32_t>> startAt_, endAt_;
  std::vector<std::vector<Way>> ways_;
  std::vector<char> waysKnown_;
  bool complete_ = true; ///< Every way of every point was listed.
  std::vector<Node> nodes_;
  std::vector<int32_t> kids_;
  std::vector<int32_t> cnt_; ///< Marked leaves under each counted node.
  std::vector<char> mark_;   ///< Per buffer.
  std::vector<Frame> frames_;
  int64_t work_ = 0;
};

TightSearch::TightSearch(const Problem &pb)
    : pb_(pb), startAt_(pb.numSlots + 1), endAt_(pb.numSlots + 1),
      ways_(pb.numSlots + 1), waysKnown_(pb.numSlots + 1, 0),
      mark_(pb.count(), 0) {
  unit_ = unitCapacity(pb, 0).unit;
  for (size_t i = 0; i < pb.count(); ++i) {
    startAt_[pb.lo[i]].push_back(int32_t(i));
    endAt_[pb.hi[i]].push_back(int32_t(i));
  }
}

int32_t TightSearch::leaf(int32_t id) {
  nodes_.push_back(Node{Kind::Leaf, id, 0, 0, 1});
  return int32_t(nodes_.size() - 1);
}

int32_t TightSearch::make(Kind kind, const std::vector<int32_t> &kids) {
  if (kids.size() == 1)
    return kids[0];
  if (kind == Kind::Q && kids.size() == 2)
    kind = Kind::P; // two children have both orders either way
  Node n{kind, -1, uint32_t(kids_.size()), uint32_t(kids.size()), 0};
  for (int32_t k : kids)
    n.leaves += nodes_[k].leaves;
  kids_.insert(kids_.end(), kids.begin(), kids.end());
  nodes_.push_back(n);
  work_ += int64_t(kids.size());
  return int32_t(nodes_.size() - 1);
}

int32_t TightSearch::block(const std::vector<int32_t> &ids) {
  std::vector<int32_t> kids;
  for (int32_t id : ids)
    kids.push_back(leaf(id));
  return make(Kind::P, kids);
}

std::vector<int32_t> TightSearch::kidsOf(int32_t n) const {
  const Node &nd = nodes_[n];
  return std::vector<int32_t>(kids_.begin() + nd.begin,
                              kids_.begin() + nd.begin + nd.count);
}

int32_t TightSearch::count(int32_t n) {
  ++work_;
  const Node &nd = nodes_[n];
  int32_t c = 0;
  if (nd.kind == Kind::Leaf)
    c = mark_[nd.leaf];
  else
    for (uint32_t k = 0; k < nd.count; ++k)
      c += count(kids_[nd.begin + k]);
  cnt_[n] = c;
  return c;
}

int32_t TightSearch::reduce(int32_t root, int32_t marked, int32_t repl) {
  if (marked == 0)
    return repl < 0 ? root : -1;
  cnt_.resize(nodes_.size());
  if (count(root) != marked)
    return -1;
  return descend(root, marked, repl);
}

// The marked leaves lie under one child: the reduction happens there.
int32_t TightSearch::descend(int32_t n, int32_t marked, int32_t repl) {
  const Node nd = nodes_[n];
  if (nd.kind != Kind::Leaf) {
    for (uint32_t k = 0; k < nd.count; ++k) {
      const int32_t c = kids_[nd.begin + k];
      if (cnt_[c] != marked)
        continue;
      const int32_t r = descend(c, marked, repl);
      if (r < 0)
        return -1;
      std::vector<int32_t> kids = kidsOf(n);
      kids[k] = r;
      return make(nd.kind, kids);
    }
  }
  return atRoot(n, repl);
}

// The lowest node above every marked leaf: the marked leaves of its children
// become one run, which `repl` replaces (or which stays, if repl < 0).
int32_t TightSearch::atRoot(int32_t n, int32_t repl) {
  const Node nd = nodes_[n];
  if (cnt_[n] == nd.leaves)
    return repl >= 0 ? repl : n;
  const std::vector<int32_t> kids = kidsOf(n);
  std::vector<Piece> seq, tail;
  if (nd.kind == Kind::P) {
    std::vector<int32_t> empty, full, part;
    for (int32_t c : kids)
      (cnt_[c] == 0                  ? empty
       : cnt_[c] == nodes_[c].leaves ? full
                                     : part)
          .push_back(c);
    if (part.size() > 2)
      return -1;
    if (part.empty()) {
      empty.push_back(repl >= 0 ? repl : make(Kind::P, full));
      return make(Kind::P, empty);
    }
    if (!partial(part[0], seq))
      return -1;
    if (!full.empty())
      seq.push_back({make(Kind::P, full), true});
    if (part.size() == 2) {
      if (!partial(part[1], tail))
        return -1;
      seq.insert(seq.end(), tail.rbegin(), tail.rend());
    }
    const int32_t q = splice(seq, repl);
    if (empty.empty() || q < 0)
      return q;
    empty.push_back(q);
    return make(Kind::P, empty);
  }
  // A Q-node: the children with marked leaves must be adjacent, those inside
  // the run all marked, and the ends' marked leaves must face the run.
  size_t i = 0, j = kids.size() - 1;
  while (cnt_[kids[i]] == 0)
    ++i;
  while (cnt_[kids[j]] == 0)
    --j;
  for (size_t k = 0; k < kids.size(); ++k) {
    const int32_t c = kids[k];
    const bool isFull = cnt_[c] == nodes_[c].leaves;
    if (k > i && k < j && !isFull)
      return -1;
    if (k < i || k > j || isFull) {
      seq.push_back({c, k >= i && k <= j});
    } else if (k == i) {
      if (!partial(c, seq))
        return -1;
    } else {
      tail.clear();
      if (!partial(c, tail))
        return -1;
      seq.insert(seq.end(), tail.rbegin(), tail.rend());
    }
  }
  return splice(seq, repl);
}

// A node with some marked leaves, not under the lowest common node: its
// leaves must be orderable with the marked ones at one end. Appends its
// pieces to `out`, unmarked end first.
bool TightSearch::partial(int32_t n, std::vector<Piece> &out) {
  const Node nd = nodes_[n];
  std::vector<int32_t> kids = kidsOf(n);
  auto cls = [&](int32_t c) {
    return cnt_[c] == 0 ? 0 : cnt_[c] == nodes_[c].leaves ? 2 : 1;
  };
  if (nd.kind == Kind::P) {
    std::vector<int32_t> empty, full, part;
    for (int32_t c : kids)
      (cls(c) == 0 ? empty : cls(c) == 2 ? full : part).push_back(c);
    if (part.size() > 1)
      return false;
    if (!empty.empty())
      out.push_back({make(Kind::P, empty), false});
    if (!part.empty() && !partial(part[0], out))
      return false;
    if (!full.empty())
      out.push_back({make(Kind::P, full), true});
    return true;
  }
  // A Q-node: unmarked children, at most one partial one, then marked ones,
  // in its order or the reverse.
  auto fits = [&] {
    size_t k = 0;
    while (k < kids.size() && cls(kids[k]) == 0)
      ++k;
    if (k < kids.size() && cls(kids[k]) == 1)
      ++k;
    while (k < kids.size() && cls(kids[k]) == 2)
      ++k;
    return k == kids.size();
  };
  if (!fits()) {
    std::reverse(kids.begin(), kids.end());
    if (!fits())
      return false;
  }
  for (int32_t c : kids) {
    if (cls(c) == 1) {
      if (!partial(c, out))
        return false;
    } else {
      out.push_back({c, cls(c) == 2});
    }
  }
  return true;
}

// A Q-node of `seq`, whose marked pieces form one run, with `repl` in place
// of the run (the run kept if repl < 0).
int32_t TightSearch::splice(const std::vector<Piece> &seq, int32_t repl) {
  size_t first = seq.size(), last = 0;
  for (size_t k = 0; k < seq.size(); ++k)
    if (seq[k].second) {
      first = std::min(first, k);
      last = k;
    }
  std::vector<int32_t> kids;
  for (size_t k = 0; k < seq.size(); ++k) {
    if (k > first && k < last && !seq[k].second)
      return -1;
    if (repl >= 0 && k >= first && k <= last) {
      if (k == first)
        kids.push_back(repl);
      continue;
    }
    kids.push_back(seq[k].first);
  }
  return make(Kind::Q, kids);
}

void TightSearch::frontier(int32_t n, std::vector<int32_t> &out) const {
  const Node &nd = nodes_[n];
  if (nd.kind == Kind::Leaf) {
    out.push_back(nd.leaf);
    return;
  }
  for (uint32_t k = 0; k < nd.count; ++k)
    frontier(kids_[nd.begin + k], out);
}

int32_t TightSearch::reduceMarked(int32_t root, const std::vector<int32_t> &ids,
                                  int32_t repl) {
  for (int32_t id : ids)
    mark_[id] = 1;
  const int32_t r = reduce(root, int32_t(ids.size()), repl);
  for (int32_t id : ids)
    mark_[id] = 0;
  return r;
}

// The ways to split the buffers ending at `point` into gaps, each with
// starting buffers of the same units: all in one gap first.
const std::vector<Way> &TightSearch::waysAt(int32_t point) {
  std::vector<Way> &ways = ways_[point];
  if (waysKnown_[point])
    return ways;
  waysKnown_[point] = 1;
  const std::vector<int32_t> &E = endAt_[point], &N = startAt_[point];
  ways.push_back(Way{Gap{E, N}});
  if (E.size() + N.size() > kMaxSplitItems) {
    complete_ = complete_ && E.size() <= 1;
    return ways;
  }
  auto units = [&](const std::vector<int32_t> &ids, uint32_t set) {
    int64_t u = 0;
    for (size_t k = 0; k < ids.size(); ++k)
      if (set >> k & 1)
        u += unit_[ids[k]];
    return u;
  };
  auto members = [](const std::vector<int32_t> &ids, uint32_t set) {
    std::vector<int32_t> out;
    for (size_t k = 0; k < ids.size(); ++k)
      if (set >> k & 1)
        out.push_back(ids[k]);
    return out;
  };
  // Gaps in the order of their lowest ending buffer; each way once.
  Way cur;
  auto rec = [&](auto &self, uint32_t restE, uint32_t restN) -> void {
    if (restE == 0) {
      if (restN == 0 && cur.size() > 1)
        ways.push_back(cur);
      return;
    }
    const uint32_t low = restE & -restE, others = restE ^ low;
    for (uint32_t sub = others;; sub = (sub - 1) & others) {
      const int64_t need = units(E, low | sub);
      for (uint32_t part = restN; part; part = (part - 1) & restN) {
        ++work_;
        if (ways.size() >= kMaxWays) {
          complete_ = false;
          return;
        }
        if (units(N, part) != need)
          continue;
        cur.push_back(Gap{members(E, low | sub), members(N, part)});
        self(self, others & ~sub, restN & ~part);
        cur.pop_back();
      }
      if (sub == 0)
        break;
    }
  };
  rec(rec, (uint32_t(1) << E.size()) - 1, (uint32_t(1) << N.size()) - 1);
  return ways;
}

TightVerdict TightSearch::run(int64_t budget, std::vector<int64_t> &offsets) {
  const int32_t S = int32_t(pb_.numSlots);
  frames_.push_back(Frame{1, block(startAt_[0]), 0, 0, 0});
  frames_.back().nodesMark = nodes_.size();
  frames_.back().kidsMark = kids_.size();
  while (!frames_.empty()) {
    if (frames_.back().point >= S) {
      return readBack(offsets) ? TightVerdict::Found
                               : TightVerdict::OutOfBudget;
    }
    const std::vector<Way> &ways = waysAt(frames_.back().point);
    int32_t next = -1;
    while (frames_.back().next < ways.size()) {
      Frame &f = frames_.back();
      nodes_.resize(f.nodesMark);
      kids_.resize(f.kidsMark);
      if (work() > budget)
        return TightVerdict::OutOfBudget;
      int32_t t = f.tree;
      for (const Gap &g : ways[f.next]) {
        t = reduceMarked(t, g.ends, block(g.starts));
        if (t < 0)
          break;
      }
      ++f.next;
      if (t >= 0) {
        next = t;
        break;
      }
    }
    if (next < 0) {
      nodes_.resize(frames_.back().nodesMark);
      kids_.resize(frames_.back().kidsMark);
      frames_.pop_back();
      continue;
    }
    frames_.push_back(
        Frame{frames_.back().point + 1, next, 0, nodes_.size(), kids_.size()});
  }
  return complete_ ? TightVerdict::Infeasible : TightVerdict::OutOfBudget;
}

// Frame k holds the tree before point k + 1 and the way taken there; the last
// frame holds the tree after the last point.
bool TightSearch::readBack(std::vector<int64_t> &offsets) {
  const size_t m = pb_.count();
  std::vector<int64_t> off(m, -1);
  auto assign = [&](const std::vector<int32_t> &seq) {
    int64_t at = 0;
    for (int32_t x : seq) {
      if (off[x] >= 0 && off[x] != at)
        return false;
      off[x] = at;
      at += unit_[x];
    }
    return true;
  };
  std::vector<int32_t> seq, fr;
  frontier(frames_.back().tree, seq);
  if (!assign(seq))
    return false;
  // Per buffer: the gap it starts (or ends) in at the current point, or -1.
  std::vector<int32_t> gapOf(m, -1);
  using Unit = std::pair<int32_t, int32_t>; // (gap, -1) or (-1, buffer)
  auto unitsOf = [&](const std::vector<int32_t> &s) {
    std::vector<Unit> u;
    for (int32_t x : s) {
      Unit next = gapOf[x] >= 0 ? Unit{gapOf[x], -1} : Unit{-1, x};
      if (u.empty() || next.first < 0 || u.back() != next)
        u.push_back(next);
    }
    return u;
  };
  for (size_t k = frames_.size() - 1; k-- > 0;) {
    const Frame &f = frames_[k];
    const Way &way = ways_[f.point][f.next - 1];
    for (size_t g = 0; g < way.size(); ++g)
      for (int32_t x : way[g].starts)
        gapOf[x] = int32_t(g);
    const std::vector<Unit> want = unitsOf(seq);
    for (const Gap &g : way)
      for (int32_t x : g.starts)
        gapOf[x] = -1;
    for (size_t g = 0; g < way.size(); ++g)
      for (int32_t x : way[g].ends)
        gapOf[x] = int32_t(g);
    auto members = [&](const Unit &u) {
      return u.first >= 0 ? way[u.first].ends : std::vector<int32_t>{u.second};
    };
    int32_t t = f.tree;
    for (const Gap &g : way)
      if (t >= 0)
        t = reduceMarked(t, g.ends, -1);
    for (size_t u = 0; u + 1 < want.size() && t >= 0; ++u) {
      std::vector<int32_t> pair = members(want[u]);
      std::vector<int32_t> more = members(want[u + 1]);
      pair.insert(pair.end(), more.begin(), more.end());
      t = reduceMarked(t, pair, -1);
    }
    if (t < 0)
      return false;
    fr.clear();
    frontier(t, fr);
    if (unitsOf(fr) != want)
      std::reverse(fr.begin(), fr.end());
    const bool ok = unitsOf(fr) == want;
    for (const Gap &g : way)
      for (int32_t x : g.ends)
        gapOf[x] = -1;
    if (!ok || !assign(fr))
      return false;
    seq.swap(fr);
  }
  offsets.resize(m);
  for (size_t i = 0; i < m; ++i)
    offsets[i] = off[i] * pb_.alignment;
  return true;
}

} // namespace

TightVerdict searchTight(const Problem &pb, int64_t capacity, int64_t budget,
                         std::vector<int64_t> &offsets, int64_t &work) {
  const int64_t q = capacity / pb.alignment;
  const size_t m = pb.count(), S = pb.numSlots;
  if (m == 0 || S == 0 || pb.minPool > capacity)
    return TightVerdict::NotTight;
  // Every buffer must end within unit q: one whose last unit's bytes fit in
  // the rest could reach past it, and the points would not be tight.
  const UnitCapacity uc = unitCapacity(pb, capacity);
  std::vector<int64_t> live(S + 1, 0);
  for (size_t i = 0; i < m; ++i) {
    if (uc.cap[i] > q)
      return TightVerdict::NotTight;
    live[pb.lo[i]] += uc.unit[i];
    live[pb.hi[i]] -= uc.unit[i];
  }
  int64_t sum = 0;
  for (size_t s = 0; s < S; ++s) {
    sum += live[s];
    if (sum != q)
      return TightVerdict::NotTight;
  }
  TightSearch search(pb);
  const TightVerdict verdict = search.run(budget, offsets);
  work += search.work();
  return verdict;
}

} // namespace packing_detail
} // namespace memplan
