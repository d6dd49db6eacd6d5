//===- Packing.h - Offset assignment for buffers with lifetimes -*- C++ -*-===//
//
// The memory packer: given buffers with a byte size and a half-open live
// interval [start, end) over program points, give each an aligned byte offset
// in one pool so that buffers whose intervals overlap never share a byte, and
// keep the pool small. This is the offline dynamic-storage-allocation problem
// (NP-hard), so we run several heuristics and keep the best, and an exact
// search where they stop above the lower bound.
//
// A buffer is *active* when its size is > 0 and its interval is non-empty.
// Only active buffers conflict. Inactive buffers get offset 0; a non-empty
// buffer with an empty interval still has to fit in the pool, so the pool is
// never smaller than any buffer.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_REUSE_PACKING_H
#define MEMPLAN_REUSE_PACKING_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memplan {

/// Buffers as parallel arrays (borrowed, not owned).
struct BufferSet {
  const int64_t *start = nullptr;
  const int64_t *end = nullptr;
  const int64_t *size = nullptr;
  size_t count = 0;
};

/// Two lower bounds on the pool size of any valid packing.
struct PoolLowerBound {
  /// max over time of the summed sizes of live buffers (and the largest
  /// buffer).
  int64_t raw = 0;
  /// Same with sizes rounded up to the alignment, except that the topmost
  /// buffer needs no padding: max over time of (sum of aligned sizes - largest
  /// padding). Still a true bound, and never below `raw`.
  int64_t aligned = 0;
};

/// What pack() may aim for besides the smallest pool.
struct PackOptions {
  /// Bytes the pool should fit in, or -1. The exact search then looks for a
  /// packing within it first; pack() does not fail when it finds none (the
  /// caller compares poolSize).
  int64_t capacity = -1;
  /// Steps the exact search may take, or -1 for the default:
  /// kDefaultSearchBudget, and with a capacity up to kDefaultCapacityBudget
  /// for finding a packing within it. The same budget gives the same
  /// packing on any machine. "best" gives it all where its heuristics stop
  /// 1% or more above the bound (or above the capacity), less with the
  /// square of the gap below that.
  int64_t budget = -1;
};

/// The exact search's default budget, in steps: about 5 s of one core of
/// the reference machine (a 2-core x86 with no other job; MiniMalloc's
/// instance E took 4.4 s), 8 s on the hardest instances.
constexpr int64_t kDefaultSearchBudget = 2'500'000'000;

/// With a capacity and the default budget, the steps the search for a
/// packing within the capacity may take before the packer gives up: seven
/// times kDefaultSearchBudget, about 30 s of one core of the reference
/// machine (MiniMalloc's eleven challenging instances all fit, the last, E,
/// after 4.0-4.6 * 10^9 steps). A search for a smaller pool after a fit
/// still stops at kDefaultSearchBudget steps in all.
constexpr int64_t kDefaultCapacityBudget = 7 * kDefaultSearchBudget;

struct Packing {
  std::vector<int64_t> offsets;
  int64_t poolSize = 0;  ///< max(offset + size) over all non-empty buffers.
  std::string algorithm; ///< The algorithm that produced `offsets`.
  /// Pool size of each algorithm that was run, in run order.
  std::vector<std::pair<std::string, int64_t>> perAlgorithm;
  PoolLowerBound lowerBound;
  /// Proven: no packing has a smaller pool. The aligned lower bound, or more
  /// where the exact search proved that no packing reaches it.
  int64_t bound = 0;
  /// Steps the exact search took (0 if it did not run), and its budget.
  int64_t searchWork = 0;
  int64_t searchBudget = 0;
  /// poolSize == bound: no packing is smaller.
  bool optimal() const { return poolSize <= bound; }
};

/// Where the live bytes peak: a program point where the aligned lower bound
/// is reached (the earliest), and the buffers live there.
struct LivePeak {
  int64_t point = 0;            ///< A start time (or 0 for no buffers).
  int64_t raw = 0;              ///< Summed sizes of the buffers live there.
  int64_t aligned = 0;          ///< The aligned lower bound those buffers need.
  std::vector<int64_t> buffers; ///< Input indices, ascending.
};

struct PackingViolation {
  enum class Kind { Overlap, Misaligned, Negative, OutOfPool };
  Kind kind;
  int64_t first;
  int64_t second; ///< The other buffer of an Overlap, else -1.
};

const char *violationKindName(PackingViolation::Kind kind);

/// Names accepted by pack(), "best" last.
const std::vector<std::string> &packingAlgorithms();

/// Throws std::invalid_argument unless start <= end, size >= 0, alignment is a
/// power of two in [1, 2^62] and the summed aligned sizes stay below 2^62 (so
/// no offset arithmetic can overflow).
void validateBuffers(const BufferSet &buffers, int64_t alignment);

/// Pack with one algorithm, or with all of them for "best" (the smallest pool
/// wins; ties go to the earlier algorithm; the exact search runs when the
/// heuristics stop above the bound, or above options.capacity). Deterministic.
/// Validates input.
Packing pack(const BufferSet &buffers, const std::string &algorithm,
             int64_t alignment, const PackOptions &options = {});

PoolLowerBound poolLowerBound(const BufferSet &buffers, int64_t alignment);

/// The point where the aligned lower bound is reached. Validates input.
LivePeak livePeak(const BufferSet &buffers, int64_t alignment);

/// Every pair of active buffers overlapping in both time and bytes, every
/// misaligned or negative offset of a non-empty buffer, and (when poolSize >=
/// 0) every buffer reaching past poolSize. Stops after `limit` violations when
/// limit >= 0. O(n log n + k) for k reported overlaps.
std::vector<PackingViolation>
verifyPacking(const BufferSet &buffers, const int64_t *offsets,
              int64_t alignment, int64_t poolSize = -1, int64_t limit = -1);

} // namespace memplan

#endif // MEMPLAN_REUSE_PACKING_H
