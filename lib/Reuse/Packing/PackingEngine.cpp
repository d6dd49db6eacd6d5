//===- PackingEngine.cpp - The shared packing engine ----------------------===//
//
// The engine's functions run once per packing (PackingEngine.h); the classes
// used in the placement loops stay inline in the header.
//
//===----------------------------------------------------------------------===//

#include "PackingEngine.h"

namespace memplan {
namespace packing_detail {

size_t compress(const std::vector<int64_t> &lo, const std::vector<int64_t> &hi,
                std::vector<int32_t> &loRank, std::vector<int32_t> &hiRank) {
  const size_t m = lo.size();
  std::vector<std::pair<int64_t, uint32_t>> ends(2 * m); // (value, 2k or 2k+1)
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

std::vector<int32_t> orderBySize(const Problem &pb) {
  return sortedIds(pb.count(), [&](int32_t i) {
    return std::make_tuple(-pb.size[i], ~pb.length[i], pb.start[i]);
  });
}

std::vector<int32_t> orderByStart(const Problem &pb) {
  return sortedIds(pb.count(), [&](int32_t i) {
    return std::make_pair(pb.start[i], -pb.size[i]);
  });
}

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

void linearScan(const Problem &pb, std::vector<int64_t> &off) {
  using Entry = std::pair<int64_t, int32_t>; // (key, slot)
  std::vector<int64_t> slotSize;
  std::vector<int32_t> slotOf(pb.count());
  std::set<Entry> freeSlots; // (size, slot)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>
      busy; // (hi, slot)
  std::vector<int32_t> order =
      sortedIds(pb.count(), [&](int32_t i) { return pb.start[i]; });
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

void slotNeeds(const Problem &pb, std::vector<int64_t> &raw,
               std::vector<int64_t> &aligned) {
  const int64_t alignment = pb.alignment;
  const size_t S = pb.numSlots, P = leavesFor(std::max<size_t>(S, 1));
  raw.assign(S + 1, 0);
  aligned.assign(S + 1, 0);
  std::vector<int64_t> maxPad(2 * P, 0); // chmax stored on cover nodes
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
  for (size_t n = 1; n < P; ++n) // push down to the leaves
    for (size_t c : {2 * n, 2 * n + 1})
      maxPad[c] = std::max(maxPad[c], maxPad[n]);
  std::partial_sum(raw.begin(), raw.end(), raw.begin());
  std::partial_sum(aligned.begin(), aligned.end(), aligned.begin());
  raw.resize(S);
  aligned.resize(S);
  for (size_t s = 0; s < S; ++s)
    aligned[s] -= maxPad[P + s];
}

PoolLowerBound lowerBoundOf(const Problem &pb) {
  std::vector<int64_t> raw, aligned;
  slotNeeds(pb, raw, aligned);
  PoolLowerBound lb{pb.minPool, pb.minPool};
  for (size_t s = 0; s < raw.size(); ++s) {
    lb.raw = std::max(lb.raw, raw[s]);
    lb.aligned = std::max(lb.aligned, aligned[s]);
  }
  return lb;
}

int64_t countOverlappingPairs(const Problem &pb) {
  std::vector<int32_t> lo(pb.lo), hi(pb.hi);
  std::sort(lo.begin(), lo.end());
  std::sort(hi.begin(), hi.end());
  int64_t directed = 0;
  for (size_t i = 0; i < pb.count(); ++i) {
    // Buffers starting before i ends, less those ending before it starts,
    // less i itself.
    int64_t before =
        std::lower_bound(lo.begin(), lo.end(), pb.hi[i]) - lo.begin();
    int64_t ended =
        std::upper_bound(hi.begin(), hi.end(), pb.lo[i]) - hi.begin();
    directed += before - ended - 1;
  }
  return directed / 2;
}

UnitCapacity unitCapacity(const Problem &pb, int64_t capacity) {
  const int64_t a = pb.alignment, q = capacity / a, r = capacity % a;
  UnitCapacity uc;
  uc.unit.resize(pb.count());
  uc.cap.resize(pb.count());
  uc.capQ = q;
  for (size_t i = 0; i < pb.count(); ++i) {
    uc.unit[i] = (pb.size[i] + a - 1) / a;
    const int64_t tail = pb.size[i] - (uc.unit[i] - 1) * a;
    uc.cap[i] = q + (tail <= r ? 1 : 0);
    uc.capQ = std::max(uc.capQ, uc.cap[i]);
  }
  return uc;
}

SlotMembers slotMembers(const Problem &pb) {
  const size_t S = pb.numSlots, m = pb.count();
  SlotMembers out;
  out.begin.assign(S + 1, 0);
  for (size_t i = 0; i < m; ++i)
    for (int32_t t = pb.lo[i]; t < pb.hi[i]; ++t)
      ++out.begin[t + 1];
  for (size_t s = 1; s <= S; ++s)
    out.begin[s] += out.begin[s - 1];
  out.members.resize(out.begin[S]);
  std::vector<uint32_t> at(out.begin.begin(), out.begin.end() - 1);
  for (size_t i = 0; i < m; ++i)
    for (int32_t t = pb.lo[i]; t < pb.hi[i]; ++t)
      out.members[at[t]++] = int32_t(i);
  return out;
}

} // namespace packing_detail
} // namespace memplan
