//===- ReorderForMemory.cpp - A memory-aware op order ---------------------===//
//
// See include/memplan/Peak/Transforms.h. Storage is modeled as
// bufferization will lay it out: memplan's engine analyzes the module (the
// IR untouched); each alias set with a member that bufferizes to a new
// allocation (a fresh destination, or the copy of an operand the analysis
// leaves out of place) is one buffer of its largest member's size, live from
// the first op of the body that defines or uses a member to the last one.
// memplan-reuse-dying-inputs, which runs next, is modeled too: an
// elementwise op that may write into an input (DyingInputQueries) takes that
// input's buffer instead of a new one when the op is the buffer's last
// toucher in the order.
//
// The order comes from a beam search over list schedules with a rolling
// horizon: `width` partial schedules that extend a committed prefix by up to
// `lookahead` ops each. A schedule takes an op that allocates nothing
// whenever one is ready (that never raises the live bytes), and branches
// over the first `branching` ready ops (in the original order) only when
// each would allocate: the first op not yet scheduled, and ops one of whose
// users would then have all its operands at hand (an allocation nothing can
// use yet would only be held longer). Only ops within `lookahead +
// branching` of the first op not yet scheduled are ready, so no op moves
// further than that from its place. The best schedules, by their peak since
// the prefix and then their live bytes, survive, and the prefix grows by
// the first op of the best. Each step replays a schedule on the prefix's
// state (undone after), so the search costs O(ops * width * (lookahead +
// branching)) steps, each over an op's buffers, whatever the body's size.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "memplan/IR/UseWalk.h"
#include "memplan/Inplace/InterfaceEngine.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <set>

#define DEBUG_TYPE "memplan-reorder-for-memory"

using namespace mlir;

namespace memplan {
namespace {

/// What the engine's analysis says: the alias sets and the decisions.
struct Analysis {
  std::vector<Operation *> ops; ///< Pre-order, as the engine numbers them.
  std::vector<std::vector<Value>> aliasSets;
  llvm::DenseSet<OpOperand *> inPlace;
  std::vector<OpOperand *> outOfPlace;
};

std::optional<Analysis> analyze(Operation *root, bool functionBoundaries,
                                bool aliasSets = true) {
  EngineResult result = analyzeQuietly(root, functionBoundaries, {},
                                       QuietAnalysis{aliasSets, false});
  if (!result.ok)
    return std::nullopt;
  Analysis a;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) { a.ops.push_back(op); });
  for (const std::vector<EngineValue> &set : result.aliasSets) {
    std::vector<Value> values;
    for (const EngineValue &v : set)
      if (Value value = engineValue(a.ops, v))
        values.push_back(value);
    a.aliasSets.push_back(std::move(values));
  }
  for (const EngineDecision &d : result.decisions) {
    if (d.op < 0 || d.op >= (int32_t)a.ops.size() ||
        d.operand >= (int32_t)a.ops[d.op]->getNumOperands())
      continue;
    OpOperand *operand = &a.ops[d.op]->getOpOperand(d.operand);
    if (d.inPlace)
      a.inPlace.insert(operand);
    else
      a.outOfPlace.push_back(operand);
  }
  return a;
}

/// The buffers' state along a schedule, with an undo log so that the beam
/// search can replay a partial schedule on its prefix and take it back.
struct BufferState {
  std::vector<int32_t> left;  ///< Touching units not yet scheduled.
  std::vector<int32_t> rep;   ///< The buffer it was written into, or itself.
  std::vector<int64_t> bytes; ///< Of a representative.
  std::vector<uint8_t> started;
  int64_t live = 0;

  /// (array: 0 left, 1 rep, 2 bytes, 3 started; index; old value).
  struct Change {
    uint8_t array;
    int32_t index;
    int64_t old;
  };
  std::vector<Change> log;
  bool logging = false;

  int32_t find(int32_t b) const {
    while (rep[b] != b)
      b = rep[b];
    return b;
  }
  void setLeft(int32_t b, int32_t v) {
    if (logging)
      log.push_back({0, b, left[b]});
    left[b] = v;
  }
  void setRep(int32_t b, int32_t v) {
    if (logging)
      log.push_back({1, b, rep[b]});
    rep[b] = v;
  }
  void setBytes(int32_t b, int64_t v) {
    if (logging)
      log.push_back({2, b, bytes[b]});
    bytes[b] = v;
  }
  void setStarted(int32_t b) {
    if (logging)
      log.push_back({3, b, started[b]});
    started[b] = 1;
  }
  /// Takes back every change after `mark` (a log size), `live` included.
  void undo(size_t mark, int64_t liveAtMark) {
    while (log.size() > mark) {
      Change c = log.back();
      log.pop_back();
      switch (c.array) {
      case 0:
        left[c.index] = static_cast<int32_t>(c.old);
        break;
      case 1:
        rep[c.index] = static_cast<int32_t>(c.old);
        break;
      case 2:
        bytes[c.index] = c.old;
        break;
      default:
        started[c.index] = static_cast<uint8_t>(c.old);
      }
    }
    live = liveAtMark;
  }
};

/// A schedule's score: its peak since the committed prefix, then its live
/// bytes.
struct Score {
  int64_t peak = 0, live = 0;
  bool operator<(const Score &o) const {
    return std::tie(peak, live) < std::tie(o.peak, o.live);
  }
  bool operator==(const Score &o) const {
    return peak == o.peak && live == o.live;
  }
};

/// One function body to schedule, as units: an op of the body with the
/// fresh destinations it alone uses, which go right before it.
class BodyModel {
public:
  BodyModel(Block &block, const Analysis &analysis,
            const std::vector<const std::vector<Value> *> &sets,
            bufferization::AnalysisState &state, DyingInputQueries *dying)
      : block(block) {
    buildUnits();
    buildBuffers(analysis, sets, state);
    buildReuse(dying);
    buildEdges(analysis, state);
  }

  size_t size() const { return unitOps.size(); }
  /// Whether a new buffer has a size known only at run time.
  bool dynamicSizes() const { return hasDynamic; }

  std::vector<int32_t> originalOrder() const {
    std::vector<int32_t> order(size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = static_cast<int32_t>(i);
    return order;
  }

  /// Modeled peak of `order` (unit ids), dying inputs reused.
  int64_t peakOf(const std::vector<int32_t> &order) const {
    BufferState s = freshState();
    int64_t peak = 0;
    for (int32_t u : order)
      peak = std::max(peak, step(s, u));
    return peak;
  }

  /// Debug output: where `order` peaks and what is live there.
  void explainPeak(const std::vector<int32_t> &order) const {
    BufferState s = freshState();
    int64_t peak = -1;
    size_t at = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      int64_t d = step(s, order[i]);
      if (d > peak) {
        peak = d;
        at = i;
      }
    }
    s = freshState();
    for (size_t i = 0; i < at; ++i)
      step(s, order[i]);
    llvm::dbgs() << "peak " << peak << " at step " << at << " unit "
                 << order[at] << ": " << unitOps[order[at]].back()->getLoc()
                 << "\n";
    for (size_t b = 0; b < bufferBytes.size(); ++b)
      if (s.rep[b] == (int32_t)b && s.started[b] && s.left[b] > 0)
        llvm::dbgs() << "  live " << s.bytes[b] << " left " << s.left[b]
                     << " first toucher " << firstToucher[b] << " "
                     << unitOps[firstToucher[b]].back()->getLoc() << "\n";
    for (size_t i = (at > 12 ? at - 12 : 0); i < std::min(order.size(), at + 4);
         ++i)
      llvm::dbgs() << "  [" << i << "] unit " << order[i] << " "
                   << unitOps[order[i]].back()->getName() << " loc "
                   << unitOps[order[i]].back()->getLoc() << "\n";
  }

  /// Whether `order` is a topological order of the units.
  bool respectsEdges(const std::vector<int32_t> &order) const {
    if (order.size() != size())
      return false;
    std::vector<int32_t> position(size(), -1);
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i] < 0 || order[i] >= (int32_t)size() ||
          position[order[i]] >= 0)
        return false;
      position[order[i]] = static_cast<int32_t>(i);
    }
    for (size_t u = 0; u < size(); ++u)
      for (int32_t s : succs[u])
        if (position[s] <= position[u])
          return false;
    return true;
  }

  std::vector<int32_t> beamOrder(const ReorderOptions &bounds) const;

  /// Moves the body's ops into `order`.
  void apply(const std::vector<int32_t> &order) {
    Operation *terminator = block.getTerminator();
    for (int32_t u : order)
      for (Operation *op : unitOps[u])
        op->moveBefore(terminator);
  }

private:
  int32_t unitOf(Operation *op) const {
    Operation *at = block.findAncestorOpInBlock(*op);
    auto it = at ? unitIndex.find(at) : unitIndex.end();
    return it == unitIndex.end() ? -1 : it->second;
  }

  BufferState freshState() const {
    BufferState s;
    s.left.assign(touchers.begin(), touchers.end());
    s.rep.resize(bufferBytes.size());
    for (size_t b = 0; b < s.rep.size(); ++b)
      s.rep[b] = static_cast<int32_t>(b);
    s.bytes = bufferBytes;
    s.started.assign(bufferBytes.size(), 0);
    return s;
  }

  /// The buffer unit `u` writes its result into when scheduled in `s`
  /// (a dying input's, by the reuse model), or -1.
  int32_t reuseTarget(const BufferState &s, int32_t u) const {
    if (reuseDest[u] < 0)
      return -1;
    int32_t dest = s.find(reuseDest[u]);
    if (s.started[dest])
      return -1;
    for (int32_t b : reuseInputs[u]) {
      int32_t r = s.find(b);
      if (r != dest && s.started[r] && s.left[r] == 1)
        return r;
    }
    return -1;
  }

  /// Bytes unit `u` would allocate if scheduled in `s`.
  int64_t allocates(const BufferState &s, int32_t u) const {
    int32_t into = reuseTarget(s, u);
    int32_t dest = into >= 0 ? s.find(reuseDest[u]) : -1;
    int64_t bytes = 0;
    llvm::SmallVector<int32_t, 8> seen;
    for (int32_t b : touches[u]) {
      int32_t r = s.find(b);
      if (r == dest || s.started[r] || llvm::is_contained(seen, r))
        continue;
      seen.push_back(r);
      bytes += s.bytes[r];
    }
    return bytes;
  }

  /// Schedules unit `u` in `s`; returns the live bytes while it runs.
  int64_t step(BufferState &s, int32_t u) const {
    int32_t into = reuseTarget(s, u);
    int32_t dest = into >= 0 ? s.find(reuseDest[u]) : -1;
    llvm::SmallVector<int32_t, 8> reps;
    for (int32_t b : touches[u]) {
      int32_t r = s.find(b);
      if (r == dest || llvm::is_contained(reps, r))
        continue;
      reps.push_back(r);
      if (!s.started[r]) {
        s.setStarted(r);
        s.live += s.bytes[r];
      }
    }
    if (into >= 0 && s.bytes[dest] > s.bytes[into]) {
      s.live += s.bytes[dest] - s.bytes[into];
      s.setBytes(into, s.bytes[dest]);
    }
    int64_t during = s.live;
    for (int32_t r : reps) {
      if (r == into) {
        // The result's buffer is the input's from here on: its touchers
        // after `u` are the destination's.
        s.setRep(dest, into);
        s.setLeft(into, s.left[dest] - 1);
      } else {
        s.setLeft(r, s.left[r] - 1);
      }
      if (s.left[r] == 0)
        s.live -= s.bytes[r];
    }
    return during;
  }

  void buildUnits() {
    llvm::DenseMap<Operation *, Operation *> gluedTo;
    for (Operation &op : block.without_terminator()) {
      if (!isFreshDestination(&op) || !op.getResult(0).hasOneUse())
        continue;
      Operation *user =
          block.findAncestorOpInBlock(**op.getResult(0).getUsers().begin());
      if (user && user != &op && op.isBeforeInBlock(user) &&
          !user->hasTrait<OpTrait::IsTerminator>())
        gluedTo[&op] = user;
    }
    for (Operation &op : block.without_terminator()) {
      if (gluedTo.count(&op))
        continue;
      unitIndex[&op] = static_cast<int32_t>(unitOps.size());
      unitOps.push_back({&op});
    }
    for (Operation &op : block.without_terminator()) {
      auto it = gluedTo.find(&op);
      if (it == gluedTo.end())
        continue;
      int32_t u = unitIndex.lookup(it->second);
      unitIndex[&op] = u;
      // Destinations first, in their order, then the op.
      auto &ops = unitOps[u];
      ops.insert(ops.end() - 1, &op);
    }
  }

  void buildBuffers(const Analysis &analysis,
                    const std::vector<const std::vector<Value> *> &sets,
                    bufferization::AnalysisState &state) {
    // Values whose buffer is new: results that bufferize to an allocation,
    // and the results of operands the analysis leaves out of place (their
    // copies).
    llvm::DenseSet<Value> copies;
    for (OpOperand *operand : analysis.outOfPlace) {
      if (!block.findAncestorOpInBlock(*operand->getOwner()))
        continue;
      for (const bufferization::AliasingValue &alias :
           state.getAliasingValues(*operand))
        copies.insert(alias.value);
    }
    auto allocates = [&](Value v) {
      auto result = dyn_cast<OpResult>(v);
      if (!result)
        return false;
      if (copies.contains(v) || isa<CallOpInterface>(result.getOwner()))
        return true;
      auto bufferizable =
          dyn_cast<bufferization::BufferizableOpInterface>(result.getOwner());
      return bufferizable && bufferizable.bufferizesToAllocation(result);
    };
    touches.assign(size(), {});
    auto addBuffer = [&](ArrayRef<Value> values) {
      int64_t bytes = 0;
      bool fresh = false, dynamic = false;
      for (Value v : values) {
        int64_t b = tensorBytes(v.getType());
        bytes = std::max(bytes, b);
        dynamic |= b == 0 && isa<TensorType>(v.getType());
        fresh |= allocates(v);
      }
      if (!fresh)
        return;
      // A size known only at run time: the model cannot weigh it.
      hasDynamic |= dynamic;
      if (bytes == 0)
        return;
      int32_t b = static_cast<int32_t>(bufferBytes.size());
      llvm::SmallVector<int32_t, 8> touching;
      // A buffer the terminator uses (a returned one) lives to the end.
      bool escapes = false;
      auto touch = [&](Operation *op) {
        if (op && block.findAncestorOpInBlock(*op) == block.getTerminator())
          escapes = true;
        if (int32_t u = op ? unitOf(op) : -1;
            u >= 0 && !llvm::is_contained(touching, u))
          touching.push_back(u);
      };
      for (Value v : values) {
        if (auto result = dyn_cast<OpResult>(v))
          touch(result.getOwner());
        else
          touch(cast<BlockArgument>(v).getOwner()->getParentOp());
        for (Operation *user : v.getUsers())
          touch(user);
      }
      if (touching.empty())
        return;
      for (Value v : values)
        valueBuffer[v] = b;
      bufferBytes.push_back(bytes);
      firstToucher.push_back(*llvm::min_element(touching));
      touchers.push_back(static_cast<int32_t>(touching.size()) + escapes);
      for (int32_t u : touching)
        touches[u].push_back(b);
    };
    for (const std::vector<Value> *set : sets)
      addBuffer(*set);
    // A new buffer no other value aliases is one of its own.
    block.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (!valueBuffer.count(result) && allocates(result))
          addBuffer({result});
    });
  }

  void buildReuse(DyingInputQueries *dying) {
    reuseDest.assign(size(), -1);
    reuseInputs.assign(size(), {});
    for (size_t u = 0; dying && u < size(); ++u) {
      std::optional<DyingInputCandidate> c =
          dying->candidate(unitOps[u].back());
      if (!c)
        continue;
      auto dest = valueBuffer.find(c->init->get());
      if (dest == valueBuffer.end())
        continue;
      for (OpOperand *input : c->inputs) {
        auto it = valueBuffer.find(input->get());
        if (it != valueBuffer.end() && it->second != dest->second)
          reuseInputs[u].push_back(it->second);
      }
      if (!reuseInputs[u].empty())
        reuseDest[u] = dest->second;
    }
  }

  void buildEdges(const Analysis &analysis,
                  bufferization::AnalysisState &state) {
    size_t n = size();
    succs.assign(n, {});
    auto edge = [&](int32_t from, int32_t to) {
      if (from >= 0 && to >= 0 && from != to)
        succs[from].push_back(to);
    };
    int32_t lastEffect = -1;
    for (size_t u = 0; u < n; ++u) {
      bool effects = false;
      for (Operation *op : unitOps[u]) {
        // Use-def, uses inside the op's regions included.
        op->walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            if (Operation *def = operand.getDefiningOp())
              edge(unitOf(def), static_cast<int32_t>(u));
        });
        effects |= !isMemoryEffectFree(op);
      }
      // Ops with memory effects keep their relative order.
      if (effects) {
        edge(lastEffect, static_cast<int32_t>(u));
        lastEffect = static_cast<int32_t>(u);
      }
    }
    // Every read of what an in-place write overwrites comes before it.
    for (OpOperand *operand : analysis.inPlace) {
      int32_t writer = unitOf(operand->getOwner());
      if (writer < 0)
        continue;
      auto bufferizable =
          dyn_cast<bufferization::BufferizableOpInterface>(operand->getOwner());
      if (!bufferizable ||
          !bufferizable.bufferizesToMemoryWrite(*operand, state))
        continue;
      SmallVector<Value> work{operand->get()};
      forEachUseReached(work, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        edge(unitOf(user), writer);
        // Views of the old contents are read later too.
        auto userOp = dyn_cast<bufferization::BufferizableOpInterface>(user);
        if (userOp && !userOp.bufferizesToMemoryWrite(use, state))
          for (const bufferization::AliasingValue &alias :
               userOp.getAliasingValues(use, state))
            work.push_back(alias.value);
      });
    }
    for (auto &s : succs) {
      llvm::sort(s);
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
    preds.assign(n, {});
    for (size_t u = 0; u < n; ++u)
      for (int32_t s : succs[u])
        preds[s].push_back(static_cast<int32_t>(u));
  }

  Block &block;
  std::vector<SmallVector<Operation *, 2>> unitOps;
  llvm::DenseMap<Operation *, int32_t> unitIndex;
  std::vector<std::vector<int32_t>> succs, preds;
  std::vector<SmallVector<int32_t, 4>> touches;
  std::vector<int32_t> touchers;
  std::vector<int64_t> bufferBytes;
  std::vector<int32_t> firstToucher;
  llvm::DenseMap<Value, int32_t> valueBuffer;
  bool hasDynamic = false;
  std::vector<int32_t> reuseDest;
  std::vector<SmallVector<int32_t, 2>> reuseInputs;
};

/// A partial schedule beyond the committed prefix.
struct Entry {
  std::vector<int32_t> units;
  uint64_t hash = 0; ///< Of the set of its units.
  Score score;
};

uint64_t unitHash(int32_t u) {
  // splitmix64 of the unit id: a fixed, well-spread key per unit.
  uint64_t z = static_cast<uint64_t>(u) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<int32_t> BodyModel::beamOrder(const ReorderOptions &bounds) const {
  size_t n = size();
  size_t width = std::max<int64_t>(bounds.width, 1);
  size_t lookahead = std::max<int64_t>(bounds.lookahead, 1);
  size_t branching = std::max<int64_t>(bounds.branching, 1);
  // The prefix: its buffers, the units each waits for, the ready ones.
  BufferState base = freshState();
  std::vector<int32_t> waiting(n, 0);
  for (size_t u = 0; u < n; ++u)
    for (int32_t s : succs[u])
      ++waiting[s];
  std::set<int32_t> ready;
  for (size_t u = 0; u < n; ++u)
    if (!waiting[u])
      ready.insert(static_cast<int32_t>(u));
  std::vector<int32_t> committed;
  committed.reserve(n);
  std::vector<uint8_t> isCommitted(n, 0);
  int32_t baseFrontier = 0;
  size_t window = lookahead + branching;
  auto commit = [&](int32_t u) {
    base.logging = false;
    step(base, u);
    ready.erase(u);
    for (int32_t s : succs[u])
      if (--waiting[s] == 0)
        ready.insert(s);
    committed.push_back(u);
    isCommitted[u] = 1;
    while (baseFrontier < (int32_t)n && isCommitted[baseFrontier])
      ++baseFrontier;
  };

  // Scratch state of a replayed entry: which units it scheduled (stamped),
  // the waiting counts it changed, the units it made ready.
  std::vector<uint32_t> inEntry(n, 0);
  uint32_t stamp = 0;
  std::vector<std::pair<int32_t, int32_t>> waitLog;
  std::vector<int32_t> madeReady;
  auto schedule = [&](int32_t u) {
    int64_t during = step(base, u);
    inEntry[u] = stamp;
    for (int32_t s : succs[u]) {
      waitLog.push_back({s, waiting[s]});
      if (--waiting[s] == 0)
        madeReady.push_back(s);
    }
    return during;
  };
  // Replays `units` on the prefix, logging what changes so that rewind()
  // takes it back: where the log stood, the live bytes there and the peak
  // during the units.
  struct Replayed {
    size_t mark;
    int64_t live;
    int64_t peak = 0;
  };
  auto replay = [&](ArrayRef<int32_t> units) {
    ++stamp;
    waitLog.clear();
    madeReady.clear();
    base.logging = true;
    Replayed replayed{base.log.size(), base.live};
    for (int32_t u : units)
      replayed.peak = std::max(replayed.peak, schedule(u));
    return replayed;
  };
  auto rewind = [&](const Replayed &replayed) {
    base.undo(replayed.mark, replayed.live);
    base.logging = false;
    for (auto it = waitLog.rbegin(); it != waitLog.rend(); ++it)
      waiting[it->first] = it->second;
  };

  std::vector<Entry> beam(1), next;
  while (committed.size() < n) {
    next.clear();
    for (const Entry &entry : beam) {
      Replayed replayed = replay(entry.units);
      // Ready units within the window: the first unit of the original order
      // not yet scheduled (always ready: the original order is one) and
      // the `window` after it. No unit runs more than that ahead of the
      // original order, nor waits more than that behind it.
      int32_t frontier = baseFrontier;
      while (frontier < (int32_t)n &&
             (isCommitted[frontier] || inEntry[frontier] == stamp))
        ++frontier;
      int32_t end = frontier + static_cast<int32_t>(window);
      llvm::SmallVector<int32_t, 32> candidates;
      for (int32_t u : madeReady)
        if (inEntry[u] != stamp && u < end)
          candidates.push_back(u);
      for (auto it = ready.begin(); it != ready.end() && *it < end; ++it)
        if (inEntry[*it] != stamp)
          candidates.push_back(*it);
      llvm::sort(candidates);
      candidates.erase(std::unique(candidates.begin(), candidates.end()),
                       candidates.end());
      // An op that allocates nothing goes first, alone. Otherwise each of
      // the first `branching` ops that allocate is a child: the frontier,
      // and ops with a user whose other operands are ready or done (an
      // allocation that nothing can use yet would only be held longer).
      auto scheduled = [&](int32_t p) {
        return isCommitted[p] || inEntry[p] == stamp;
      };
      auto usable = [&](int32_t u) {
        return llvm::any_of(succs[u], [&](int32_t s) {
          return llvm::all_of(preds[s], [&](int32_t p) {
            return p == u || scheduled(p) || waiting[p] == 0;
          });
        });
      };
      llvm::SmallVector<int32_t, 8> children;
      for (int32_t u : candidates)
        if (allocates(base, u) == 0) {
          children.push_back(u);
          break;
        }
      if (children.empty())
        for (int32_t u : candidates) {
          if (children.size() == branching)
            break;
          if (u == frontier || usable(u))
            children.push_back(u);
        }
      for (int32_t u : children) {
        size_t childMark = base.log.size();
        int64_t childLive = base.live;
        int64_t during = step(base, u);
        Entry child;
        child.units.reserve(entry.units.size() + 1);
        child.units = entry.units;
        child.units.push_back(u);
        child.hash = entry.hash ^ unitHash(u);
        child.score.peak = std::max(entry.score.peak, during);
        child.score.live = base.live;
        next.push_back(std::move(child));
        base.undo(childMark, childLive);
      }
      rewind(replayed);
    }
    if (next.empty())
      return {}; // a unit never became ready: leave the body as it is
    // The best `width` distinct schedules (the same set of units once),
    // ties to the one closest to the original order.
    llvm::sort(next, [](const Entry &a, const Entry &b) {
      if (!(a.score == b.score))
        return a.score < b.score;
      return a.units < b.units;
    });
    beam.clear();
    llvm::SmallDenseSet<uint64_t, 16> seen;
    for (Entry &e : next) {
      if (beam.size() == width)
        break;
      if (seen.insert(e.hash).second)
        beam.push_back(std::move(e));
    }
    // The prefix grows by the best schedule's first unit once schedules
    // are `lookahead` long; the schedules that start otherwise drop out.
    bool complete = committed.size() + beam.front().units.size() == n;
    if (complete) {
      for (int32_t u : beam.front().units)
        commit(u);
      break;
    }
    if (beam.front().units.size() < lookahead)
      continue;
    int32_t first = beam.front().units.front();
    commit(first);
    std::vector<Entry> kept;
    for (Entry &e : beam) {
      if (e.units.front() != first)
        continue;
      e.units.erase(e.units.begin());
      e.hash ^= unitHash(first);
      kept.push_back(std::move(e));
    }
    // Their peaks since the prefix are replayed on the next step.
    for (Entry &e : kept) {
      Replayed replayed = replay(e.units);
      e.score.peak = replayed.peak;
      rewind(replayed);
    }
    beam = std::move(kept);
  }
  return committed;
}

} // namespace

ReorderStats reorderForMemory(MlirOperation rootHandle,
                              const ReorderOptions &options) {
  Operation *root = unwrap(rootHandle);
  ReorderStats stats;
  std::optional<Analysis> before = analyze(root, options.functionBoundaries);
  if (!before) {
    stats.analyzed = false;
    return stats;
  }
  // The alias sets of each function body's block.
  llvm::DenseMap<Block *, std::vector<const std::vector<Value> *>> setsOf;
  for (const std::vector<Value> &set : before->aliasSets) {
    if (set.empty())
      continue;
    Region *region = Value(set.front()).getParentRegion();
    Operation *func = region ? region->getParentOp() : nullptr;
    if (func && !isa<FunctionOpInterface>(func))
      func = func->getParentOfType<FunctionOpInterface>();
    if (!func)
      continue;
    Region *body = cast<FunctionOpInterface>(func).getCallableRegion();
    if (body && body->hasOneBlock())
      setsOf[&body->front()].push_back(&set);
  }
  // (body, its original order) of each body that changed.
  std::vector<std::pair<Block *, std::vector<Operation *>>> changed;
  DyingInputQueries dying(root, options.functionBoundaries);
  root->walk([&](FunctionOpInterface func) {
    Region *body = func.getCallableRegion();
    if (!body || !body->hasOneBlock())
      return;
    Block &block = body->front();
    ++stats.blocks;
    BodyModel model(block, *before, setsOf[&block], dying.state(),
                    options.dyingInputs ? &dying : nullptr);
    if (model.dynamicSizes()) {
      // Its peak at run time depends on sizes the model does not know.
      ++stats.dynamic;
      return;
    }
    std::vector<int32_t> order = model.beamOrder(options);
    if (!model.respectsEdges(order))
      return; // not every op was ready: leave the body as it is
    int64_t was = model.peakOf(model.originalOrder());
    int64_t now = model.peakOf(order);
    LLVM_DEBUG({
      llvm::dbgs() << "@" << func.getName() << ": modeled peak " << was
                   << " -> " << now << "\n";
      model.explainPeak(model.originalOrder());
      model.explainPeak(order);
    });
    if (now >= was)
      return; // the importer's order is as good: keep it
    std::vector<Operation *> old;
    for (Operation &op : block.without_terminator())
      old.push_back(&op);
    model.apply(order);
    changed.emplace_back(&block, std::move(old));
    stats.peakBefore += was;
    stats.peakAfter += now;
  });
  if (changed.empty())
    return stats;
  std::optional<Analysis> after =
      analyze(root, options.functionBoundaries, /*aliasSets=*/false);
  if (!after || after->outOfPlace.size() > before->outOfPlace.size()) {
    for (auto &[block, old] : changed)
      for (Operation *op : old)
        op->moveBefore(block->getTerminator());
    stats.reverted = static_cast<int64_t>(changed.size());
    stats.peakBefore = stats.peakAfter = 0;
    return stats;
  }
  stats.reordered = static_cast<int64_t>(changed.size());
  return stats;
}

} // namespace memplan
