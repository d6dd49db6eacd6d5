//===- ReorderForMemory.cpp - A memory-aware op order ---------------------===//
//
// See include/memplan/transforms/Transforms.h. Storage is modeled as
// bufferization will lay it out: memplan's engine analyzes the module (the IR
// untouched), each alias set rooted at a fresh destination is one buffer of its
// largest member's size, live from the first op of the body that defines or
// uses a member to the last one. The schedule is a list schedule over the
// body's ops with a priority queue; priorities change only when a buffer is
// first touched or reaches its last use, so the whole schedule costs O((ops +
// uses) log ops).
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "memplan/analysis/InterfaceEngine.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <queue>

using namespace mlir;

namespace memplan {
namespace {

/// What the engine's analysis says: the alias sets and the in-place operands.
struct Analysis {
  std::vector<Operation *> ops; ///< Pre-order, as the engine numbers them.
  std::vector<std::vector<Value>> aliasSets;
  llvm::DenseSet<OpOperand *> inPlace;
  int64_t outOfPlace = 0;
};

Value valueOf(const std::vector<Operation *> &ops, const EngineValue &v) {
  if (v.op < 0 || v.op >= (int32_t)ops.size())
    return Value();
  Operation *op = ops[v.op];
  if (!v.blockArgument)
    return v.index < (int32_t)op->getNumResults() ? op->getResult(v.index)
                                                  : Value();
  if (v.region >= (int32_t)op->getNumRegions())
    return Value();
  Region &region = op->getRegion(v.region);
  int32_t k = 0;
  for (Block &block : region) {
    if (k++ == v.block)
      return v.index < (int32_t)block.getNumArguments()
                 ? block.getArgument(v.index)
                 : Value();
  }
  return Value();
}

std::optional<Analysis> analyze(Operation *root, bool functionBoundaries) {
  EngineResult result = analyzeQuietly(root, functionBoundaries);
  if (!result.ok)
    return std::nullopt;
  Analysis a;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) { a.ops.push_back(op); });
  for (const std::vector<EngineValue> &set : result.aliasSets) {
    std::vector<Value> values;
    for (const EngineValue &v : set)
      if (Value value = valueOf(a.ops, v))
        values.push_back(value);
    a.aliasSets.push_back(std::move(values));
  }
  for (const EngineDecision &d : result.decisions) {
    if (d.op < 0 || d.op >= (int32_t)a.ops.size() ||
        d.operand >= (int32_t)a.ops[d.op]->getNumOperands())
      continue;
    if (d.inPlace)
      a.inPlace.insert(&a.ops[d.op]->getOpOperand(d.operand));
    else
      ++a.outOfPlace;
  }
  return a;
}

int64_t staticBytes(Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = shaped.getElementType().getIntOrFloatBitWidth();
  return shaped.getNumElements() * ((bits + 7) / 8);
}

/// One function body to schedule.
class BodySchedule {
public:
  BodySchedule(Block &block, const Analysis &analysis,
               bufferization::AnalysisState &state)
      : block(block) {
    for (Operation &op : block.without_terminator())
      nodes.push_back(&op);
    for (size_t i = 0; i < nodes.size(); ++i)
      index[nodes[i]] = static_cast<int32_t>(i);
    buildBuffers(analysis);
    buildEdges(analysis, state);
  }

  /// Modeled peak of the order `order` (node indices).
  int64_t peakOf(const std::vector<int32_t> &order) const {
    std::vector<int32_t> seen(bufferBytes.size(), 0);
    int64_t live = 0, peak = 0;
    for (int32_t n : order) {
      for (int32_t b : touches[n])
        if (seen[b]++ == 0)
          live += bufferBytes[b];
      peak = std::max(peak, live);
      for (int32_t b : touches[n])
        if (seen[b] == (int32_t)touchers[b])
          live -= bufferBytes[b];
    }
    return peak;
  }

  std::vector<int32_t> originalOrder() const {
    std::vector<int32_t> order(nodes.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = static_cast<int32_t>(i);
    return order;
  }

  /// Greedy list schedule: a ready op that frees at least what it
  /// allocates goes first (the one freeing most first), the others keep
  /// the original order. `reverse` schedules from the end instead (a
  /// buffer then starts at its last use and ends at its first): ops that
  /// allocate sink towards their users. A destination goes right before its
  /// user.
  std::vector<int32_t> greedyOrder(bool reverse) const {
    size_t n = nodes.size();
    std::vector<std::vector<int32_t>> next(n);
    for (size_t i = 0; i < n; ++i)
      for (int32_t s : succs[i])
        (reverse ? next[s] : next[i])
            .push_back(reverse ? static_cast<int32_t>(i) : s);
    // Edges from and to destinations do not count: a destination goes out
    // with its user, which waits for the destination's own operands.
    std::vector<int32_t> waiting(n, 0);
    for (size_t i = 0; i < n; ++i)
      if (!destinationOf[i])
        for (int32_t s : next[i])
          if (!destinationOf[s])
            ++waiting[s];
    std::vector<int32_t> started(bufferBytes.size(), 0),
        done(bufferBytes.size(), 0);
    std::vector<int32_t> version(n, 0);
    auto delta = [&](int32_t node) {
      int64_t d = 0;
      for (int32_t b : touches[node]) {
        if (!started[b])
          d += bufferBytes[b];
        if (done[b] + 1 == (int32_t)touchers[b])
          d -= bufferBytes[b];
      }
      return d;
    };
    // (allocates, net bytes if it frees, position in the original order
    // (from the end when reversed), node, version).
    using Entry = std::tuple<bool, int64_t, int32_t, int32_t, int32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    auto push = [&](int32_t node) {
      int64_t d = delta(node);
      int32_t position = reverse ? static_cast<int32_t>(n) - 1 - node : node;
      ready.push({d > 0, d > 0 ? 0 : d, position, node, version[node]});
    };
    std::vector<char> scheduled(n, 0), queued(n, 0);
    for (size_t i = 0; i < n; ++i)
      if (!waiting[i] && !destinationOf[i]) {
        queued[i] = 1;
        push(static_cast<int32_t>(i));
      }
    std::vector<int32_t> order;
    order.reserve(n);
    auto emit = [&](int32_t node) {
      scheduled[node] = 1;
      order.push_back(node);
      for (int32_t b : touches[node]) {
        bool first = !started[b]++;
        ++done[b];
        // Another toucher's priority changes when the buffer is first
        // touched (no more allocation) or when one touch is left (a free).
        if (first || done[b] + 1 == (int32_t)touchers[b])
          for (int32_t other : bufferNodes[b])
            if (queued[other] && !scheduled[other]) {
              ++version[other];
              push(other);
            }
      }
      if (destinationOf[node])
        return;
      for (int32_t s : next[node])
        if (!destinationOf[s] && --waiting[s] == 0) {
          queued[s] = 1;
          push(s);
        }
    };
    while (!ready.empty()) {
      auto [allocates, d, position, node, v] = ready.top();
      ready.pop();
      if (scheduled[node] || v != version[node])
        continue;
      if (!reverse)
        for (int32_t dest : destinations[node])
          emit(dest);
      emit(node);
      if (reverse)
        for (int32_t dest : destinations[node])
          emit(dest);
    }
    if (reverse)
      std::reverse(order.begin(), order.end());
    return order;
  }

  /// Moves the body's ops into `order`.
  void apply(const std::vector<int32_t> &order) {
    Operation *terminator = block.getTerminator();
    for (int32_t node : order)
      nodes[node]->moveBefore(terminator);
  }

  size_t size() const { return nodes.size(); }

private:
  int32_t nodeOf(Operation *op) const {
    Operation *at = block.findAncestorOpInBlock(*op);
    auto it = at ? index.find(at) : index.end();
    return it == index.end() ? -1 : it->second;
  }

  void buildBuffers(const Analysis &analysis) {
    std::vector<std::vector<int32_t>> byNode(nodes.size());
    auto addBuffer = [&](ArrayRef<Value> values) {
      int64_t bytes = 0;
      bool fresh = false;
      for (Value v : values) {
        bytes = std::max(bytes, staticBytes(v.getType()));
        fresh |= isFreshDestination(v.getDefiningOp());
      }
      if (!fresh || bytes == 0)
        return;
      int32_t b = static_cast<int32_t>(bufferBytes.size());
      bufferBytes.push_back(bytes);
      llvm::SmallDenseSet<int32_t, 8> touching;
      for (Value v : values) {
        if (int32_t def = v.getDefiningOp() ? nodeOf(v.getDefiningOp()) : -1;
            def >= 0)
          touching.insert(def);
        for (Operation *user : v.getUsers())
          if (int32_t u = nodeOf(user); u >= 0)
            touching.insert(u);
      }
      bufferNodes.emplace_back(touching.begin(), touching.end());
      touchers.push_back(touching.size());
      for (int32_t node : touching)
        byNode[node].push_back(b);
    };
    llvm::DenseSet<Value> inSets;
    for (const std::vector<Value> &set : analysis.aliasSets) {
      addBuffer(set);
      inSets.insert(set.begin(), set.end());
    }
    // A destination no other value aliases is a buffer of its own.
    for (Operation *op : nodes)
      if (isFreshDestination(op) && !inSets.contains(op->getResult(0)))
        addBuffer({op->getResult(0)});
    touches = std::move(byNode);
  }

  void buildEdges(const Analysis &analysis,
                  bufferization::AnalysisState &state) {
    size_t n = nodes.size();
    succs.assign(n, {});
    destinationOf.assign(n, 0);
    destinations.assign(n, {});
    auto edge = [&](int32_t from, int32_t to) {
      if (from >= 0 && to >= 0 && from != to)
        succs[from].push_back(to);
    };
    int32_t lastEffect = -1;
    for (size_t i = 0; i < n; ++i) {
      Operation *op = nodes[i];
      // Use-def, uses inside the op's regions included.
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp())
            edge(nodeOf(def), static_cast<int32_t>(i));
      });
      if (!isMemoryEffectFree(op)) {
        edge(lastEffect, static_cast<int32_t>(i));
        lastEffect = static_cast<int32_t>(i);
      }
      // A destination with one user stays right before it.
      if (isFreshDestination(op) && op->getResult(0).hasOneUse()) {
        int32_t user = nodeOf(*op->getResult(0).getUsers().begin());
        if (user > static_cast<int32_t>(i)) {
          destinationOf[i] = 1;
          destinations[user].push_back(static_cast<int32_t>(i));
        }
      }
    }
    // Every read of what an in-place write overwrites comes before it.
    for (OpOperand *operand : analysis.inPlace) {
      int32_t writer = nodeOf(operand->getOwner());
      if (writer < 0)
        continue;
      auto bufferizable =
          dyn_cast<bufferization::BufferizableOpInterface>(operand->getOwner());
      if (!bufferizable ||
          !bufferizable.bufferizesToMemoryWrite(*operand, state))
        continue;
      SmallVector<Value> work{operand->get()};
      llvm::DenseSet<Value> seen;
      while (!work.empty()) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          edge(nodeOf(user), writer);
          // Views of the old contents are read later too.
          auto userOp = dyn_cast<bufferization::BufferizableOpInterface>(user);
          if (userOp && !userOp.bufferizesToMemoryWrite(use, state))
            for (const bufferization::AliasingValue &alias :
                 userOp.getAliasingValues(use, state))
              work.push_back(alias.value);
        }
      }
    }
    // A destination is emitted with its user: what it waits for, the user
    // waits for.
    for (size_t u = 0; u < n; ++u)
      for (int32_t d : destinations[u])
        for (int32_t p : predsOf(d))
          edge(p, static_cast<int32_t>(u));
    for (auto &s : succs) {
      llvm::sort(s);
      s.erase(std::unique(s.begin(), s.end()), s.end());
    }
  }

  /// Nodes with an edge to `node` (used for destinations only: few).
  std::vector<int32_t> predsOf(int32_t node) const {
    std::vector<int32_t> out;
    for (Value operand : nodes[node]->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (int32_t p = nodeOf(def); p >= 0)
          out.push_back(p);
    return out;
  }

  Block &block;
  std::vector<Operation *> nodes;
  llvm::DenseMap<Operation *, int32_t> index;
  std::vector<std::vector<int32_t>> succs, touches, destinations, bufferNodes;
  std::vector<char> destinationOf;
  std::vector<int64_t> bufferBytes;
  std::vector<size_t> touchers;
};

} // namespace

ReorderStats reorderForMemory(MlirOperation rootHandle,
                              bool functionBoundaries) {
  Operation *root = unwrap(rootHandle);
  ReorderStats stats;
  std::optional<Analysis> before = analyze(root, functionBoundaries);
  if (!before) {
    stats.analyzed = false;
    return stats;
  }
  // (body, its original order) of each body that changed.
  std::vector<std::pair<Block *, std::vector<Operation *>>> changed;
  QueryState query(root);
  root->walk([&](FunctionOpInterface func) {
    Region *body = func.getCallableRegion();
    if (!body || !body->hasOneBlock())
      return;
    Block &block = body->front();
    ++stats.blocks;
    BodySchedule schedule(block, *before, query.get());
    int64_t was = schedule.peakOf(schedule.originalOrder()), now = was;
    std::vector<int32_t> greedy;
    for (bool reverse : {false, true}) {
      std::vector<int32_t> order = schedule.greedyOrder(reverse);
      if (order.size() != schedule.size())
        continue; // not every op was ready: leave the body as it is
      if (int64_t peak = schedule.peakOf(order); peak < now) {
        now = peak;
        greedy = std::move(order);
      }
    }
    if (greedy.empty())
      return;
    std::vector<Operation *> old;
    for (Operation &op : block.without_terminator())
      old.push_back(&op);
    schedule.apply(greedy);
    changed.emplace_back(&block, std::move(old));
    stats.peakBefore += was;
    stats.peakAfter += now;
  });
  if (changed.empty())
    return stats;
  std::optional<Analysis> after = analyze(root, functionBoundaries);
  if (!after || after->outOfPlace > before->outOfPlace) {
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
