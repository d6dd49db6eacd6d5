//===- PoolChains.h - Pools of buffers that follow one another --*- C++ -*-===//
//
// A pool holds its bytes from its first member's allocation to its last
// member's last use, also between members: where the heap is near its peak,
// one pool of every buffer raises it. Chains are pools whose members follow
// one another in time (at one offset, the pool as large as the largest), and
// they are only formed where the heap stays under a target at every point:
// a buffer joins the chain whose gap and growth cost the fewest byte-points
// among those that fit, else starts its own. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_REUSE_POOLCHAINS_H
#define MEMPLAN_REUSE_POOLCHAINS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memplan {

/// Intervals [start, end) over program points 0..numPoints-1 with byte sizes.
struct Intervals {
  const int64_t *start;
  const int64_t *end;
  const int64_t *bytes;
  size_t size;
};

/// Chains of the `candidates` (their own intervals and bytes, in any order,
/// pairwise in time order within a chain) such that the heap, which is
/// `heap` (every block as it stands, the candidates included, each over its
/// own interval) plus what the chains add (the gaps between members, and
/// each member grown to its chain's largest), stays at or below `target` at
/// every point. Chains live at the same time are then merged into one pool
/// (side by side, held over both spans at their summed size) where the heap
/// stays under the target too. Returns the pool of each candidate; a
/// candidate alone in its pool is left where it is. `maxTries` chains (then
/// pools) are tried per candidate (then chain).
std::vector<int32_t> chainPools(const Intervals &heap,
                                const Intervals &candidates, int64_t numPoints,
                                int64_t target, int32_t maxTries = 16);

} // namespace memplan

#endif // MEMPLAN_REUSE_POOLCHAINS_H
