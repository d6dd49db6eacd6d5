//===- Packing.cpp - Offset assignment for buffers with lifetimes ---------===//
//
// The algorithm table, the parallel runner that tries them, and the public
// API (memplan/Reuse/Packing.h). The engine is in PackingEngine.h, the
// improvement algorithms in Improve.h, the searches in ExactSearch.h
// and SweepSearch.h.
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

#include "ExactSearch.h"
#include "Improve.h"

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace memplan {

using namespace packing_detail;

namespace {

/// "best" runs the exact search on at most this many buffers when the
/// heuristics stop above the bound (any number when they miss the capacity).
constexpr size_t kBestSearchMax = 4096;

/// The budget "best" gives the exact search: all of `budget` where the
/// heuristics stop 1% or more above the bound (or miss the capacity), less
/// with the square of the gap below that, where little is left to win.
int64_t bestBudget(int64_t budget, int64_t pool, int64_t bound,
                   bool overCapacity) {
  const double gap = double(pool - bound) / double(std::max<int64_t>(bound, 1));
  if (overCapacity || gap >= 0.01)
    return budget;
  return int64_t(double(budget) * (gap / 0.01) * (gap / 0.01));
}

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
  int64_t (*run)(const Problem &, Placer &, const Context &,
                 std::vector<int64_t> &);
  bool improver; ///< Starts from greedy-by-size when that ran: goes last.
};

/// Places the buffers in the order `Order` gives, each by `F`.
template <std::vector<int32_t> (*Order)(const Problem &), Fit F>
int64_t placeInOrder(const Problem &pb, Placer &p, const Context &,
                     std::vector<int64_t> &off) {
  return p.place(Order(pb), F, off);
}

/// Squeaky wheel with squeak `S`, from the greedy-by-size packing if known.
template <Squeak S>
int64_t squeakyWheelWith(const Problem &pb, Placer &p, const Context &c,
                         std::vector<int64_t> &off) {
  return squeakyWheel(pb, p, S, c.lowerBound.aligned, c.greedy, off);
}

/// All single algorithms, in the order "best" prefers them on ties.
const std::vector<Algorithm> &algorithms() {
  static const std::vector<Algorithm> all = {
      {"greedy-by-size", placeInOrder<orderBySize, Fit::First>, false},
      {"greedy-by-size-best-fit", placeInOrder<orderBySize, Fit::Best>, false},
      {"greedy-by-breadth", placeInOrder<orderByBreadth, Fit::Best>, false},
      {"best-fit", placeInOrder<orderByStart, Fit::Best>, false},
      {"linear-scan",
       [](const Problem &pb, Placer &, const Context &,
          std::vector<int64_t> &off) {
         linearScan(pb, off);
         return poolOf(pb, off);
       },
       false},
      {"squeaky-wheel", squeakyWheelWith<Squeak::Blame>, true},
      {"squeaky-wheel-to-front", squeakyWheelWith<Squeak::ToFront>, true},
  };
  return all;
}

/// Runs tasks 0..count-1 on up to placers.size() threads, thread k using
/// placers[k] (built on first use: it is the big allocation). Rethrows the
/// first failure.
void runTasks(const Problem &pb, size_t count,
              std::vector<std::unique_ptr<Placer>> &placers,
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

} // namespace

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
    v.push_back("exact");
    v.push_back("best");
    return v;
  }();
  return names;
}

void validateBuffers(const BufferSet &b, int64_t alignment) {
  if (alignment < 1 || alignment > kLimit || (alignment & (alignment - 1)))
    throw std::invalid_argument(
        "alignment must be a power of two in [1, 2^62], got " +
        std::to_string(alignment));
  // Keeps IntervalIndex's uint32 list positions from overflowing.
  if (b.count > (size_t(1) << 24))
    throw std::invalid_argument("too many buffers (at most 2^24): " +
                                std::to_string(b.count));
  int64_t total = 0;
  for (size_t i = 0; i < b.count; ++i) {
    std::string which = "buffer " + std::to_string(i);
    if (b.start[i] > b.end[i])
      throw std::invalid_argument(which + ": start " +
                                  std::to_string(b.start[i]) + " > end " +
                                  std::to_string(b.end[i]));
    if (b.size[i] < 0)
      throw std::invalid_argument(which + ": negative size " +
                                  std::to_string(b.size[i]));
    if (b.size[i] >= kLimit ||
        (total += alignUp(b.size[i], alignment)) >= kLimit)
      throw std::invalid_argument("total aligned size reaches 2^62 bytes at " +
                                  which);
  }
}

PoolLowerBound poolLowerBound(const BufferSet &b, int64_t alignment) {
  validateBuffers(b, alignment);
  return lowerBoundOf(makeProblem(b, alignment));
}

Packing pack(const BufferSet &b, const std::string &algorithm,
             int64_t alignment, const PackOptions &options) {
  validateBuffers(b, alignment);
  const auto &names = packingAlgorithms();
  if (std::find(names.begin(), names.end(), algorithm) == names.end()) {
    std::string all;
    for (const std::string &n : names)
      all += (all.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown packing algorithm '" + algorithm +
                                "' (expected one of: " + all + ")");
  }
  if (options.budget < -1)
    throw std::invalid_argument(
        "budget must be >= 0 (or -1 for the default), got " +
        std::to_string(options.budget));
  Problem pb = makeProblem(b, alignment);
  Packing result;
  result.lowerBound = lowerBoundOf(pb);
  const bool best = algorithm == "best", exact = algorithm == "exact";

  // The heuristics; "exact" starts from greedy-by-size.
  std::vector<const Algorithm *> chosen;
  for (const Algorithm &alg : algorithms())
    if (best || algorithm == alg.name ||
        (exact && alg.name == std::string("greedy-by-size")))
      chosen.push_back(&alg);
  std::vector<int64_t> pools(chosen.size());
  std::vector<std::vector<int64_t>> offsets(chosen.size());
  // Threads only pay off once a placement takes milliseconds.
  size_t threads = pb.count() < 4096 ? 1 : 8;
  threads = std::min<size_t>(threads,
                             std::max(1u, std::thread::hardware_concurrency()));
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
    if (!exact)
      result.perAlgorithm.emplace_back(chosen[t]->name, pools[t]);
    if (pools[t] < pools[win])
      win = t;
  }
  result.algorithm = exact ? "exact" : chosen[win]->name;
  result.poolSize = pools[win];
  std::vector<int64_t> &off = offsets[win];
  result.bound = std::min(result.poolSize, result.lowerBound.aligned);

  // The exact search, where the heuristics leave a gap worth closing.
  const bool overBound = result.poolSize > result.lowerBound.aligned;
  const bool overCapacity =
      options.capacity >= 0 && result.poolSize > options.capacity;
  int64_t budget = options.budget >= 0 ? options.budget : kDefaultSearchBudget;
  if (best)
    budget = bestBudget(budget, result.poolSize, result.lowerBound.aligned,
                        overCapacity);
  // A stated capacity is searched for longer with the default budget.
  const int64_t capacityBudget =
      options.budget < 0 && overCapacity ? kDefaultCapacityBudget : budget;
  if (exact || (best && overBound && budget > 0 &&
                (pb.count() <= kBestSearchMax || overCapacity))) {
    result.searchBudget = std::max(budget, capacityBudget);
    ExactOutcome found =
        searchExact(pb, result.lowerBound.aligned, result.poolSize, off, budget,
                    options.capacity, capacityBudget);
    result.searchWork = found.work;
    result.bound = found.bound;
    result.perAlgorithm.emplace_back("exact", found.pool);
    if (found.pool < result.poolSize) {
      result.algorithm = "exact";
      result.poolSize = found.pool;
      off = std::move(found.offsets);
    }
  }

  result.offsets.assign(b.count, 0);
  for (size_t k = 0; k < pb.count(); ++k)
    result.offsets[pb.id[k]] = off[k];
  return result;
}

LivePeak livePeak(const BufferSet &b, int64_t alignment) {
  validateBuffers(b, alignment);
  Problem pb = makeProblem(b, alignment);
  LivePeak peak;
  std::vector<int64_t> raw, aligned;
  slotNeeds(pb, raw, aligned);
  size_t at = 0;
  for (size_t s = 1; s < aligned.size(); ++s)
    if (aligned[s] > aligned[at])
      at = s;
  if (!aligned.empty() && aligned[at] >= pb.minPool) {
    for (size_t k = 0; k < pb.count(); ++k)
      if (pb.lo[k] <= int32_t(at) && int32_t(at) < pb.hi[k]) {
        peak.buffers.push_back(pb.id[k]);
        peak.raw += pb.size[k];
        if (pb.lo[k] == int32_t(at))
          peak.point = pb.start[k];
      }
    peak.aligned = aligned[at];
    return peak;
  }
  // An idle buffer larger than every slot's need (or no active buffer).
  for (size_t i = 0; i < b.count; ++i)
    if (b.size[i] > 0 && b.size[i] == pb.minPool) {
      peak.point = b.start[i];
      peak.raw = peak.aligned = b.size[i];
      peak.buffers.push_back(int64_t(i));
      break;
    }
  return peak;
}

std::vector<PackingViolation> verifyPacking(const BufferSet &b,
                                            const int64_t *offsets,
                                            int64_t alignment, int64_t poolSize,
                                            int64_t limit) {
  validateBuffers(b, alignment);
  using Kind = PackingViolation::Kind;
  std::vector<PackingViolation> out;
  auto full = [&] { return limit >= 0 && int64_t(out.size()) >= limit; };
  // Byte ends saturate so that absurd offsets cannot overflow.
  auto byteEnd = [&](size_t i) {
    return offsets[i] > INT64_MAX - b.size[i] ? INT64_MAX
                                              : offsets[i] + b.size[i];
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
  std::sort(byStart.begin(), byStart.end(), [&](int32_t x, int32_t y) {
    return b.start[ids[x]] < b.start[ids[y]];
  });
  std::sort(byEnd.begin(), byEnd.end(), [&](int32_t x, int32_t y) {
    return b.end[ids[x]] < b.end[ids[y]];
  });
  size_t e = 0;
  for (int32_t k : byStart) {
    if (full())
      break;
    const int64_t t = b.start[ids[k]];
    for (; e < m && b.end[ids[byEnd[e]]] <= t;
         ++e) // half-open: end == start is fine
      live.erase(byEnd[e]);
    if (lo[k] == hi[k]) // an offset so large that its end saturated: no bytes
      continue;
    live.forEachOverlap(lo[k], hi[k], [&](int32_t j) {
      if (!full())
        out.push_back({Kind::Overlap, std::min(ids[j], ids[k]),
                       std::max(ids[j], ids[k])});
    });
    live.insert(k);
  }
  return out;
}

} // namespace memplan
