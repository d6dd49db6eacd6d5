//===- PoolChains.cpp - Pools of buffers that follow one another ----------===//
//
// See include/memplan/Reuse/PoolChains.h. The heap over program points is a
// segment tree with range add and range max, so each try costs O(log n).
//
//===----------------------------------------------------------------------===//

#include "memplan/Reuse/PoolChains.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace memplan {
namespace {

/// Range add, range max over [0, n).
class MaxTree {
public:
  explicit MaxTree(int64_t n)
      : n(std::max<int64_t>(n, 1)), mx(4 * this->n, 0), lazy(4 * this->n, 0) {}

  void add(int64_t lo, int64_t hi, int64_t delta) {
    if (lo < hi && delta != 0)
      add(1, 0, n, std::max<int64_t>(lo, 0), std::min(hi, n), delta);
  }
  /// Max over [lo, hi); INT64_MIN when empty.
  int64_t max(int64_t lo, int64_t hi) const {
    lo = std::max<int64_t>(lo, 0);
    hi = std::min(hi, n);
    return lo < hi ? max(1, 0, n, lo, hi) : INT64_MIN;
  }

private:
  void add(size_t node, int64_t l, int64_t r, int64_t lo, int64_t hi,
           int64_t delta) {
    if (hi <= l || r <= lo)
      return;
    if (lo <= l && r <= hi) {
      mx[node] += delta;
      lazy[node] += delta;
      return;
    }
    int64_t m = (l + r) / 2;
    add(2 * node, l, m, lo, hi, delta);
    add(2 * node + 1, m, r, lo, hi, delta);
    mx[node] = std::max(mx[2 * node], mx[2 * node + 1]) + lazy[node];
  }
  int64_t max(size_t node, int64_t l, int64_t r, int64_t lo, int64_t hi) const {
    if (hi <= l || r <= lo)
      return INT64_MIN;
    if (lo <= l && r <= hi)
      return mx[node];
    int64_t m = (l + r) / 2;
    return std::max(max(2 * node, l, m, lo, hi),
                    max(2 * node + 1, m, r, lo, hi)) +
           lazy[node];
  }

  int64_t n;
  std::vector<int64_t> mx, lazy;
};

struct Chain {
  int64_t start, end, bytes;
};

} // namespace

std::vector<int32_t> chainPools(const Intervals &heap,
                                const Intervals &candidates, int64_t numPoints,
                                int64_t target, int32_t maxTries) {
  MaxTree tree(numPoints);
  for (size_t i = 0; i < heap.size; ++i)
    tree.add(heap.start[i], heap.end[i], heap.bytes[i]);

  std::vector<size_t> order(candidates.size);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return candidates.start[a] < candidates.start[b];
  });

  std::vector<int32_t> chainOf(candidates.size, -1);
  std::vector<Chain> chains;
  // Chains by end point: those ending at or before a candidate's start may
  // take it.
  std::set<std::pair<int64_t, int32_t>> byEnd;
  auto fits = [&](int64_t lo, int64_t hi, int64_t delta) {
    return delta <= 0 || lo >= hi || tree.max(lo, hi) + delta <= target;
  };
  for (size_t i : order) {
    int64_t s = candidates.start[i], e = candidates.end[i],
            z = candidates.bytes[i];
    int32_t best = -1;
    int64_t bestCost = INT64_MAX;
    auto it = byEnd.upper_bound({s, INT32_MAX});
    for (int32_t tries = 0; it != byEnd.begin() && tries < maxTries; ++tries) {
      --it;
      const Chain &c = chains[it->second];
      int64_t grown = std::max(c.bytes, z);
      // What joining adds: the chain grows over its past, holds its bytes
      // over the gap, and the candidate takes the chain's size.
      if (!fits(c.start, c.end, grown - c.bytes) || !fits(c.end, s, grown) ||
          !fits(s, e, grown - z))
        continue;
      int64_t cost = (grown - c.bytes) * (c.end - c.start) +
                     grown * (s - c.end) + (grown - z) * (e - s);
      if (cost < bestCost) {
        bestCost = cost;
        best = it->second;
      }
    }
    if (best < 0) {
      chainOf[i] = static_cast<int32_t>(chains.size());
      chains.push_back({s, e, z});
      byEnd.insert({e, chainOf[i]});
      continue;
    }
    Chain &c = chains[best];
    int64_t grown = std::max(c.bytes, z);
    tree.add(c.start, c.end, grown - c.bytes);
    tree.add(c.end, s, grown);
    tree.add(s, e, grown - z);
    byEnd.erase({c.end, best});
    c.end = e;
    c.bytes = grown;
    byEnd.insert({e, best});
    chainOf[i] = best;
  }

  // Chains live at once may share one pool too, side by side: the pool is
  // held over both their spans at their summed size. Merge a chain into an
  // earlier group where the heap stays under the target.
  std::vector<int32_t> order2(chains.size()), groupOf(chains.size());
  std::iota(order2.begin(), order2.end(), 0);
  std::stable_sort(order2.begin(), order2.end(), [&](int32_t a, int32_t b) {
    return chains[a].start < chains[b].start;
  });
  std::vector<Chain> groups;
  for (int32_t c : order2) {
    const Chain &ch = chains[c];
    int32_t joined = -1;
    for (int32_t k = static_cast<int32_t>(groups.size()) - 1, tries = 0;
         k >= 0 && tries < maxTries; --k, ++tries) {
      Chain &g = groups[k];
      int64_t lo = std::min(g.start, ch.start), hi = std::max(g.end, ch.end);
      tree.add(lo, hi, g.bytes + ch.bytes);
      tree.add(g.start, g.end, -g.bytes);
      tree.add(ch.start, ch.end, -ch.bytes);
      if (tree.max(lo, hi) <= target) {
        g = {lo, hi, g.bytes + ch.bytes};
        joined = k;
        break;
      }
      tree.add(ch.start, ch.end, ch.bytes);
      tree.add(g.start, g.end, g.bytes);
      tree.add(lo, hi, -(g.bytes + ch.bytes));
    }
    if (joined < 0) {
      joined = static_cast<int32_t>(groups.size());
      groups.push_back(ch);
    }
    groupOf[c] = joined;
  }
  for (int32_t &c : chainOf)
    c = groupOf[c];
  return chainOf;
}

} // namespace memplan
