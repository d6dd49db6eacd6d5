//===- ReuseDyingInputs.cpp - Elementwise results into dying inputs -------===//
//
// See include/memplan/Peak/Transforms.h. An elementwise op that writes a
// fresh destination needs a new buffer while one of its inputs, of the same
// type and read element by element at the same index, may die right there.
// Writing the result into that input instead saves the new buffer: upstream's
// One-Shot Analysis allows it (an op that reads and writes one buffer element
// by element does not conflict with itself: bufferizesToElementwiseAccess),
// provided nothing reads the input afterwards. That is the analysis' call,
// not ours: each rewrite is kept only where memplan's engine, run on the
// rewritten module, bufferizes it in place without losing any other in-place
// decision.
//
//===----------------------------------------------------------------------===//

#include "BlockPeakModel.h"
#include "TensorQueries.h"
#include "memplan/Inplace/InterfaceEngine.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#include <memory>

#define DEBUG_TYPE "memplan-reuse-dying-inputs"

using namespace mlir;

namespace memplan {
namespace {

/// A rewrite: the op's destination operand now holds `input`'s value
/// instead of `destination`.
struct Rewrite {
  Operation *op;
  unsigned initOperand;
  Value destination;
  /// The inputs that may take the result and die at the op, in operand
  /// order: each is tried in turn until the analysis keeps one.
  SmallVector<Value, 2> inputs;
  Value input;
  bool kept = false;
};

/// The last use of `v` in `op`'s block is `op` (uses nested in later ops
/// count at their ancestor there); a cheap filter before the analysis.
bool lastUseIs(Value v, Operation *op) {
  Block *block = op->getBlock();
  for (Operation *user : v.getUsers()) {
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!at || (at != op && op->isBeforeInBlock(at)))
      return false;
  }
  return true;
}

/// The modeled peaks of the blocks holding candidates (BlockPeakModel.h),
/// made once per block on the IR as it was.
class BlockPeaks {
public:
  explicit BlockPeaks(bufferization::AnalysisState &state) : state(state) {}

  /// Whether writing `op`'s result into `input`, a view of a larger buffer
  /// (a slice of a tensor that dies with it), raises the modeled peak of
  /// `op`'s block: the larger buffer is then held for as long as the result
  /// is, instead of the result's own buffer. False where the model does
  /// not know a size (nothing changes there). The ops after it that may
  /// write into the result in turn are not followed: doing so (on the IR
  /// as it was, each rewrite alone) kept more than it saved on the GRU and
  /// WaveNet exports.
  bool raisesPeak(Operation *op, Value input) {
    Block *block = op->getBlock();
    auto [it, fresh] = models.try_emplace(block);
    if (fresh) {
      it->second.model = std::make_unique<BlockPeakModel>(*block, state);
      it->second.profile =
          std::make_unique<PeakProfile>(it->second.model->numPoints());
      it->second.model->addTo(*it->second.profile);
    }
    const BlockPeakModel &model = *it->second.model;
    PeakProfile &profile = *it->second.profile;
    int32_t base = model.bufferOf(input);
    int32_t own = model.bufferOf(op->getResult(0));
    if (base < 0 || own < 0 || base == own)
      return false;
    const BlockPeakModel::Buffer &larger = model.buffer(base);
    const BlockPeakModel::Buffer &result = model.buffer(own);
    if (larger.bytes <= 0 || result.bytes <= 0 || larger.bytes <= result.bytes)
      return false;
    if (result.last <= larger.last)
      return false;
    int64_t before = profile.max();
    profile.add(larger.last + 1, result.last, larger.bytes);
    profile.add(result.first, result.last, -result.bytes);
    int64_t after = profile.max();
    profile.add(result.first, result.last, result.bytes);
    profile.add(larger.last + 1, result.last, -larger.bytes);
    LLVM_DEBUG(if (after > before) llvm::dbgs()
               << "holding the larger buffer raises the peak " << before
               << " -> " << after << ": " << *op << "\n");
    return after > before;
  }

private:
  struct Model {
    std::unique_ptr<BlockPeakModel> model;
    std::unique_ptr<PeakProfile> profile;
  };
  bufferization::AnalysisState &state;
  llvm::DenseMap<Block *, Model> models;
};

/// The rewrite for `op`, if it has a candidate: the inputs that may take
/// the result (DyingInputQueries), die at the op, and, where an input is a
/// view of a larger buffer, do not raise the block's modeled peak.
std::optional<Rewrite> candidateFor(linalg::LinalgOp op,
                                    DyingInputQueries &queries,
                                    BlockPeaks &peaks) {
  std::optional<DyingInputCandidate> c = queries.candidate(op);
  if (!c)
    return std::nullopt;
  Rewrite r{op, c->init->getOperandNumber(), c->init->get(), {}, Value()};
  for (OpOperand *input : c->inputs)
    if (lastUseIs(input->get(), op) && !peaks.raisesPeak(op, input->get()))
      r.inputs.push_back(input->get());
  if (r.inputs.empty())
    return std::nullopt;
  return r;
}

/// The rewrites of the ops under `root` that have a candidate, in walk
/// order.
SmallVector<Rewrite> candidatesUnder(Operation *root,
                                     DyingInputQueries &queries) {
  SmallVector<Rewrite> rewrites;
  BlockPeaks peaks(queries.state());
  root->walk([&](linalg::LinalgOp op) {
    if (std::optional<Rewrite> r = candidateFor(op, queries, peaks))
      rewrites.push_back(*r);
  });
  return rewrites;
}

/// In-place decisions of the module, keyed by (pre-order op id, operand).
using Decisions = llvm::DenseMap<std::pair<int32_t, int32_t>, bool>;

std::optional<Decisions>
analyze(Operation *root, bool functionBoundaries,
        std::vector<std::pair<int32_t, int32_t>> deferred = {},
        bool keepForBufferization = false) {
  EngineResult result =
      analyzeQuietly(root, functionBoundaries, std::move(deferred),
                     QuietAnalysis{/*aliasSets=*/false, keepForBufferization});
  if (!result.ok)
    return std::nullopt;
  Decisions out;
  for (const EngineDecision &d : result.decisions)
    out[{d.op, d.operand}] = d.inPlace;
  return out;
}

} // namespace

DyingInputStats reuseDyingInputs(MlirOperation rootHandle,
                                 const DyingInputOptions &options) {
  Operation *root = unwrap(rootHandle);
  DyingInputQueries queries(root, options.functionBoundaries);
  SmallVector<Rewrite> rewrites = candidatesUnder(root, queries);
  DyingInputStats stats;
  stats.candidates = static_cast<int64_t>(rewrites.size());
  if (rewrites.empty())
    return stats;
  // Pre-order ids, as the engine numbers ops (the rewrites keep them).
  llvm::DenseMap<Operation *, int32_t> opId;
  std::vector<Operation *> ops;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    opId[op] = static_cast<int32_t>(ops.size());
    ops.push_back(op);
  });

  auto setAll = [&](bool rewritten) {
    for (Rewrite &r : rewrites)
      if (r.kept)
        r.op->setOperand(r.initOperand, rewritten ? r.input : r.destination);
  };
  // Round k tries the k-th input of each rewrite not kept yet, its operand
  // decided after every other operand: a rewrite is then in place only
  // where that costs no other operand its in-place decision, so one that
  // would (writing a slice whose sibling is read later, say) is dropped
  // alone and the others stay. Until decided, a tried operand is out of
  // place (its own buffer, not read), as the fresh destination was, so the
  // others get the decisions of the module as it was, the rewrites kept in
  // earlier rounds included; the rounds below confirm that on the module
  // as bufferization will analyze it.
  for (size_t k = 0;; ++k) {
    SmallVector<Rewrite *> trying;
    std::vector<std::pair<int32_t, int32_t>> deferred;
    for (Rewrite &r : rewrites) {
      if (r.kept || k >= r.inputs.size())
        continue;
      r.input = r.inputs[k];
      r.op->setOperand(r.initOperand, r.input);
      trying.push_back(&r);
      deferred.push_back({opId[r.op], static_cast<int32_t>(r.initOperand)});
    }
    if (trying.empty())
      break;
    std::optional<Decisions> last =
        analyze(root, options.functionBoundaries, std::move(deferred));
    for (Rewrite *r : trying) {
      auto it =
          last ? last->find({opId[r->op], static_cast<int32_t>(r->initOperand)})
               : Decisions::iterator();
      if (last && it != last->end() && it->second) {
        r->kept = true;
        continue;
      }
      LLVM_DEBUG(llvm::dbgs()
                 << "input " << k << " dropped: " << *r->op << "\n");
      r->op->setOperand(r->initOperand, r->destination);
    }
    if (!last)
      break;
  }
  // The decisions of the module as it was are needed only when the
  // rewritten one has an operand out of place that no rewrite touched (rare
  // in programs a compiler emits): it may have been out of place before.
  std::optional<Decisions> before;
  auto beforeDecisions = [&]() -> std::optional<Decisions> & {
    if (!before) {
      // The rewrites undone and redone reorder use lists: the analysis kept
      // below is not handed on.
      dropKeptAnalysis(wrap(root));
      setAll(false);
      before = analyze(root, options.functionBoundaries);
      setAll(true);
    }
    return before;
  };
  // Undo what the analysis does not bufferize in place; when other operands
  // lose their in-place decision too, undo every rewrite of their function
  // (then, as a last resort, all of them). The analysis of the round that
  // changes nothing is that of the module bufferization will see: it is
  // kept for it.
  for (int round = 0;; ++round) {
    std::optional<Decisions> after = analyze(root, options.functionBoundaries,
                                             {}, /*keepForBufferization=*/true);
    llvm::DenseSet<Operation *> undoFunctions;
    bool undoAll = !after || round == 2;
    bool changed = false;
    llvm::DenseSet<std::pair<int32_t, int32_t>> rewritten;
    for (Rewrite &r : rewrites)
      if (r.kept)
        rewritten.insert({opId[r.op], static_cast<int32_t>(r.initOperand)});
    bool otherOutOfPlace = false;
    if (after)
      for (auto &[key, inPlace] : *after)
        otherOutOfPlace |= !inPlace && !rewritten.contains(key);
    if (!undoAll && otherOutOfPlace) {
      if (!beforeDecisions()) {
        stats.analyzed = false;
        undoAll = true;
      }
    }
    if (!undoAll && otherOutOfPlace) {
      for (auto &[key, inPlace] : *before) {
        if (!inPlace || rewritten.contains(key))
          continue;
        auto it = after->find(key);
        if (it == after->end() || !it->second) {
          Operation *lost = key.first >= 0 && key.first < (int32_t)ops.size()
                                ? ops[key.first]
                                : nullptr;
          Operation *func =
              lost ? lost->getParentOfType<FunctionOpInterface>() : nullptr;
          if (!func) {
            undoAll = true;
            break;
          }
          undoFunctions.insert(func);
        }
      }
    }
    for (Rewrite &r : rewrites) {
      if (!r.kept)
        continue;
      bool inPlace = false;
      if (after) {
        auto it =
            after->find({opId[r.op], static_cast<int32_t>(r.initOperand)});
        inPlace = it != after->end() && it->second;
      }
      if (undoAll || !inPlace ||
          undoFunctions.contains(
              r.op->getParentOfType<FunctionOpInterface>())) {
        r.op->setOperand(r.initOperand, r.destination);
        r.kept = false;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  llvm::SetVector<Operation *> unused;
  for (Rewrite &r : rewrites) {
    if (!r.kept) {
      ++stats.rejected;
      continue;
    }
    ++stats.reused;
    if (r.destination.use_empty())
      unused.insert(r.destination.getDefiningOp());
  }
  // Fresh destinations have no tensor operands, and these no use: no
  // decision of the kept analysis involves them.
  for (Operation *dest : unused)
    dest->erase();
  publishKeptAnalysis(rootHandle);
  return stats;
}

} // namespace memplan
