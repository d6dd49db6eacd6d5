//===- RecomputeCheapValues.cpp - Recompute what is cheap, not hold it ----===//
//
// See include/memplan/Peak/Transforms.h. A value is cheap to recompute
// when the ops computing it read nothing but constants, scalars and other
// cheap values: side-effect free (MemoryEffectOpInterface, nested ops
// included), every tensor operand and every tensor a region uses from above
// a constant (ConstantLike) or cheap, no memref read, and any region an
// op's LinalgOp payload (whose work the loop ranges price). Zero fills of a
// tensor.empty, broadcasts of constants and index-only generics are; a
// matmul of an argument is not.
//
// Cost model (BlockPeakModel): the live bytes of the function body at every
// op and between ops. Recomputing a value at each op holding its uses (one
// copy per op, shared by the uses it holds) removes its buffer from its
// definition to its last use, except at the ops that read it, where the
// copy is live, and adds, in the gap before each such op, the bytes its
// computation holds. The pass takes every candidate, then leaves out, the
// costliest first, each one the peak does not need, so the modeled peak
// never rises and work is only added where bytes at the peak go.
//
//===----------------------------------------------------------------------===//

#include "BlockPeakModel.h"
#include "TensorQueries.h"
#include "UseAnchors.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#define DEBUG_TYPE "memplan-recompute-cheap-values"

using namespace mlir;

namespace memplan {
namespace {

/// Work is counted in loop iterations times payload ops (an op without a
/// payload: one per element it computes).
constexpr int64_t kUnknownWork = -1;

/// Ops of one slice at most: a larger cheap computation is not recomputed.
constexpr size_t kMaxSliceOps = 64;

bool isTensor(Value v) { return isa<TensorType>(v.getType()); }

bool isConstantValue(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// Which values of a function are cheap to recompute (see the file header).
class CheapValues {
public:
  bool contains(Value v) const { return cheap.contains(v); }

  /// Decides `op` (its operands' producers already decided).
  void visit(Operation *op) {
    if (op->getNumResults() == 0 || op->hasTrait<OpTrait::ConstantLike>() ||
        !llvm::all_of(op->getResults(), isTensor) || !isCheapOp(op))
      return;
    for (Value result : op->getResults())
      cheap.insert(result);
  }

private:
  bool readsOnlyCheap(Value v) const {
    if (isa<BaseMemRefType>(v.getType()))
      return false;
    return !isTensor(v) || isConstantValue(v) || cheap.contains(v);
  }

  bool isCheapOp(Operation *op) const {
    if (!llvm::all_of(op->getOperands(),
                      [&](Value v) { return readsOnlyCheap(v); }))
      return false;
    if (op->getNumRegions() != 0 && !isa<linalg::LinalgOp>(op))
      return false; // no way to price its regions' work
    if (!isMemoryEffectFree(op))
      return false;
    bool ok = true;
    op->walk([&](Operation *nested) {
      if (nested != op && !isMemoryEffectFree(nested))
        ok = false;
    });
    if (!ok)
      return false;
    for (Region &region : op->getRegions())
      visitUsedValuesDefinedAbove(region, region, [&](OpOperand *use) {
        ok &= readsOnlyCheap(use->get());
      });
    return ok;
  }

  llvm::DenseSet<Value> cheap;
};

int64_t elementsOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() ? shaped.getNumElements()
                                           : kUnknownWork;
}

/// The work of computing `op` once (kUnknownWork when its sizes are not
/// static): a LinalgOp's iterations times its payload's ops; an op that
/// only allocates or views an operand nothing; any other op one per element
/// of its results.
int64_t workOf(Operation *op, bufferization::AnalysisState &state) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    int64_t iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return kUnknownWork;
      iterations *= range;
    }
    int64_t payload = 0;
    for (Block &body : op->getRegion(0))
      payload += static_cast<int64_t>(body.getOperations().size()) - 1;
    return iterations * std::max<int64_t>(payload, 1);
  }
  int64_t work = 0;
  for (Value result : op->getResults()) {
    auto bufferizable = state.getOptions().dynCastBufferizableOp(op);
    if (bufferizable && bufferizable.bufferizesToAllocation(result))
      continue;
    bool view = false;
    for (const bufferization::AliasingOpOperand &alias :
         state.getAliasingOpOperands(result))
      view |= !state.bufferizesToMemoryWrite(*alias.opOperand);
    if (view)
      continue;
    int64_t elements = elementsOf(result.getType());
    if (elements < 0)
      return kUnknownWork;
    work += elements;
  }
  return work;
}

/// A value the pass may recompute at its uses, with what that costs.
struct Candidate {
  Value value;
  /// The ops computing it, in block order (the value's op last).
  SmallVector<Operation *> slice;
  SmallVector<UseAnchor> anchors;
  int32_t buffer = -1;
  int64_t bytes = 0;
  /// The bytes the slice's computation holds at once (its result included).
  int64_t transient = 0;
  /// Work added: one more computation per op holding uses but the first,
  /// less the copies bufferization would make of the held value.
  int64_t addedWork = 0;
  /// Profile changes: (first point, last point, bytes).
  SmallVector<std::tuple<int32_t, int32_t, int64_t>> delta;
  bool taken = false;
  /// Bytes the peak would rise by were it held (set when it is kept).
  int64_t peakShare = 0;
  std::string why; ///< Why it is not recomputed.
};

void apply(PeakProfile &profile, const Candidate &c, int64_t sign) {
  for (auto [first, last, bytes] : c.delta)
    profile.add(first, last, sign * bytes);
}

int64_t deltaAt(const Candidate &c, int32_t point) {
  int64_t sum = 0;
  for (auto [first, last, bytes] : c.delta)
    if (first <= point && point <= last)
      sum += bytes;
  return sum;
}

std::string describe(Value v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << v.getType();
  return text;
}

class BodyRecompute {
public:
  BodyRecompute(Block &block, const CheapValues &cheap,
                bufferization::AnalysisState &state,
                llvm::function_ref<int64_t()> functionWork,
                const RecomputeOptions &options, RecomputeStats &stats)
      : block(block), cheap(cheap), state(state), model(block, state),
        functionWork(functionWork), options(options), stats(stats) {}

  void run() {
    collect();
    if (!candidates.empty())
      decide();
    report();
    rewrite();
  }

private:
  /// The cheap ops of the block that `root` is computed from, in block
  /// order; false when the slice is too large or leaves the block.
  bool sliceOf(Value root, SmallVectorImpl<Operation *> &slice) {
    llvm::SetVector<Operation *> ops;
    SmallVector<Value> work{root};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !cheap.contains(v) || !ops.insert(def))
        continue;
      if (def->getBlock() != &block || ops.size() > kMaxSliceOps)
        return false;
      for (Value operand : def->getOperands())
        work.push_back(operand);
      for (Region &region : def->getRegions())
        visitUsedValuesDefinedAbove(region, region, [&](OpOperand *use) {
          work.push_back(use->get());
        });
    }
    slice.assign(ops.begin(), ops.end());
    llvm::sort(slice, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    return true;
  }

  /// Live bytes while the slice is computed (each buffer of the model from
  /// its first op in the slice to its last use in it; the root's to the
  /// end). -1 when a size is not known.
  int64_t transientOf(ArrayRef<Operation *> slice, Value root) {
    llvm::DenseMap<int32_t, size_t> lastUse; // buffer -> slice position
    llvm::DenseMap<int32_t, size_t> firstDef;
    for (size_t i = 0; i < slice.size(); ++i) {
      for (Value operand : slice[i]->getOperands())
        if (int32_t b = model.bufferOf(operand); b >= 0)
          lastUse[b] = i;
      for (Value result : slice[i]->getResults())
        if (int32_t b = model.bufferOf(result); b >= 0)
          firstDef.try_emplace(b, i);
    }
    int32_t rootBuffer = model.bufferOf(root);
    int64_t peak = 0;
    for (size_t i = 0; i < slice.size(); ++i) {
      int64_t live = 0;
      for (auto [b, first] : firstDef) {
        const BlockPeakModel::Buffer &buffer = model.buffer(b);
        if (buffer.external)
          continue;
        if (buffer.bytes < 0)
          return -1;
        size_t last = b == rootBuffer ? slice.size() : lastUse.lookup(b);
        if (first <= i && i <= std::max(first, last))
          live += buffer.bytes;
      }
      peak = std::max(peak, live);
    }
    return peak;
  }

  bool isRoot(Value v) {
    // A cheap value some op outside the cheap computations uses.
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return user->getBlock() != &block ||
             !llvm::all_of(user->getResults(),
                           [&](Value r) { return cheap.contains(r); }) ||
             user->getNumResults() == 0;
    });
  }

  void collect() {
    for (Operation &op : block) {
      for (Value v : op.getResults()) {
        if (!cheap.contains(v) || v.use_empty() || !isRoot(v))
          continue;
        LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": candidate " << v << "\n");
        Candidate c;
        c.value = v;
        SmallVector<OpOperand *> unanchored;
        c.anchors = useAnchors(v, &block, unanchored);
        if (!unanchored.empty() || c.anchors.empty())
          continue; // uses in other blocks: nothing is held here
        if (!sliceOf(v, c.slice)) {
          c.why = "its computation is larger than " +
                  std::to_string(kMaxSliceOps) + " ops";
          rejected.push_back(std::move(c));
          continue;
        }
        // Nothing to gain: computed right before its only user.
        if (c.anchors.size() == 1 &&
            model.indexOf(c.anchors.front().op) ==
                model.indexOf(c.slice.front()) +
                    static_cast<int32_t>(c.slice.size()))
          continue;
        if (!price(c)) {
          rejected.push_back(std::move(c));
          continue;
        }
        candidates.push_back(std::move(c));
      }
    }
    stats.candidates += candidates.size() + rejected.size();
  }

  /// Whether the slice leaves `root` with undefined contents: a fresh
  /// destination (tensor.empty), a view of one, or what an op computes from
  /// reading one.
  bool undefinedContents(ArrayRef<Operation *> slice, Value root) {
    llvm::DenseSet<Value> undefined;
    for (Operation *op : slice) {
      bool fresh = isFreshDestination(op);
      bool readsGarbage = llvm::any_of(op->getOpOperands(), [&](OpOperand &o) {
        return undefined.contains(o.get()) && state.bufferizesToMemoryRead(o);
      });
      for (Value r : op->getResults()) {
        bool viewOfGarbage =
            llvm::any_of(state.getAliasingOpOperands(r),
                         [&](const bufferization::AliasingOpOperand &a) {
                           return undefined.contains(a.opOperand->get()) &&
                                  !state.bufferizesToMemoryWrite(*a.opOperand);
                         });
        if (fresh || readsGarbage || viewOfGarbage)
          undefined.insert(r);
      }
    }
    return undefined.contains(root);
  }

  /// Fills the candidate's buffer, bytes, work and profile change; false
  /// (with the reason) when the model cannot price it.
  bool price(Candidate &c) {
    // A use reading undefined contents sees, once bufferized, what another
    // use wrote into the shared buffer; a computation of its own would
    // change that (the rule of memplan-split-destinations).
    if (undefinedContents(c.slice, c.value) && contentsRead(c.value, state)) {
      c.why = "its contents are undefined and a user reads them: bufferized, "
              "it reads what another user wrote";
      return false;
    }
    c.buffer = model.bufferOf(c.value);
    c.bytes = c.buffer < 0 ? -1 : model.buffer(c.buffer).bytes;
    if (c.buffer < 0 || model.buffer(c.buffer).external) {
      c.why = "it is not a buffer of its own";
      return false;
    }
    if (c.bytes <= 0) {
      c.why = "its size is dynamic: its bytes at the peak are not known";
      return false;
    }
    int64_t sliceWork = 0;
    for (Operation *op : c.slice) {
      int64_t w = workOf(op, state);
      if (w < 0) {
        c.why = "its computation has dynamic sizes: its work is not known";
        return false;
      }
      sliceWork += w;
    }
    c.transient = transientOf(c.slice, c.value);
    if (c.transient < 0) {
      c.why = "its computation holds values of dynamic size";
      return false;
    }
    // The anchor whose op writes the value in place continues its buffer;
    // the ops that read it get a copy live at the op; the others write a
    // copy the model already holds from the op on.
    const BlockPeakModel::Buffer &buffer = model.buffer(c.buffer);
    llvm::DenseSet<Value> inSlice;
    for (Operation *op : c.slice)
      for (Value r : op->getResults())
        inSlice.insert(r);
    int32_t inPlace = -1;
    int64_t copies = 0;
    SmallVector<int32_t> readers;
    for (const UseAnchor &anchor : c.anchors) {
      int32_t at = model.indexOf(anchor.op);
      bool continues = llvm::any_of(anchor.op->getResults(), [&](Value r) {
        return model.bufferOf(r) == c.buffer;
      });
      if (continues) {
        inPlace = at;
        continue;
      }
      bool written = anchor.uses.size() == 1 &&
                     anchor.uses.front()->getOwner() == anchor.op &&
                     isa<DestinationStyleOpInterface>(anchor.op) &&
                     cast<DestinationStyleOpInterface>(anchor.op).isDpsInit(
                         anchor.uses.front()) &&
                     state.bufferizesToMemoryWrite(*anchor.uses.front());
      if (written)
        copies += elementsOf(c.value.getType());
      else
        readers.push_back(at);
    }
    // Another value sharing the buffer (a destination shared with another
    // op) would keep it: the model cannot say what recomputing frees.
    for (Value member : buffer.values) {
      if (inSlice.contains(member))
        continue;
      Operation *def = member.getDefiningOp();
      if (inPlace < 0 || !def || model.indexOf(def) < inPlace) {
        c.why = "its buffer holds other values too";
        return false;
      }
    }
    int32_t heldEnd = inPlace >= 0 ? 2 * inPlace - 1 : buffer.last;
    c.delta.push_back({buffer.first, heldEnd, -c.bytes});
    for (const UseAnchor &anchor : c.anchors) {
      int32_t at = model.indexOf(anchor.op);
      c.delta.push_back({2 * at - 1, 2 * at - 1, c.transient});
    }
    for (int32_t at : readers)
      c.delta.push_back({2 * at, 2 * at, c.bytes});
    c.addedWork =
        (static_cast<int64_t>(c.anchors.size()) - 1) * sliceWork - copies;
    return true;
  }

  void decide() {
    PeakProfile profile(model.numPoints());
    model.addTo(profile);
    int64_t before = profile.max();
    bool limited = options.maxAddedWorkPercent >= 0 &&
                   llvm::any_of(candidates, [](const Candidate &c) {
                     return c.addedWork > 0;
                   });
    int64_t work = limited ? functionWork() : 0;
    int64_t budget = !limited
                         ? std::numeric_limits<int64_t>::max()
                         : work / 100 * options.maxAddedWorkPercent +
                               work % 100 * options.maxAddedWorkPercent / 100;
    for (Candidate &c : candidates) {
      if (c.addedWork > budget) {
        c.why = "recomputing it adds " + std::to_string(c.addedWork) +
                " units of work, more than " +
                std::to_string(options.maxAddedWorkPercent) +
                "% of the function's " + std::to_string(work);
        continue;
      }
      c.taken = true;
      apply(profile, c, +1);
    }
    // The clones' own computations may hold more than the value did: drop
    // the candidates that add bytes where the peak now is, until it is
    // below the original peak or none does.
    while (profile.max() >= before) {
      int32_t at = profile.argmax();
      Candidate *worst = nullptr;
      int64_t most = 0;
      for (Candidate &c : candidates)
        if (c.taken)
          if (int64_t d = deltaAt(c, at); d > most)
            most = d, worst = &c;
      if (!worst)
        break;
      worst->taken = false;
      worst->why = "recomputing it would hold more bytes at the peak";
      apply(profile, *worst, -1);
    }
    if (profile.max() >= before) {
      for (Candidate &c : candidates)
        if (c.taken) {
          c.taken = false;
          c.why = "holding it costs no bytes at the peak";
          apply(profile, c, -1);
        }
      peakBefore = peakAfter = before;
      return;
    }
    // Leave out, the costliest first, each candidate the peak does not need.
    SmallVector<Candidate *> order;
    for (Candidate &c : candidates)
      if (c.taken)
        order.push_back(&c);
    llvm::stable_sort(order, [](Candidate *a, Candidate *b) {
      return a->addedWork > b->addedWork;
    });
    int64_t peak = profile.max();
    for (Candidate *c : order) {
      apply(profile, *c, -1);
      if (profile.max() <= peak) {
        c->taken = false;
        c->why = "holding it costs no bytes at the peak";
        continue;
      }
      c->peakShare = profile.max() - peak;
      apply(profile, *c, +1);
    }
    peakBefore = before;
    peakAfter = profile.max();
  }

  void report() {
    stats.peakBefore += peakBefore;
    stats.peakAfter += peakAfter;
    auto remark = [&](Value v, const std::string &message) {
      if (options.remarks)
        stats.remarks.push_back({wrap(v.getLoc()), message});
    };
    for (Candidate &c : rejected) {
      ++stats.kept;
      remark(c.value, "not recomputed: " + c.why);
    }
    for (Candidate &c : candidates) {
      if (!c.taken) {
        ++stats.kept;
        remark(c.value, "not recomputed: " + c.why);
        continue;
      }
      ++stats.recomputed;
      stats.copies += c.anchors.size();
      stats.addedWork += std::max<int64_t>(c.addedWork, 0);
      std::string where = c.anchors.size() == 1
                              ? "moved down to its only user"
                              : "recomputed at each of its " +
                                    std::to_string(c.anchors.size()) + " users";
      remark(c.value, where + ": holding it (" + describe(c.value) + ", " +
                          std::to_string(c.bytes) + " bytes) costs " +
                          std::to_string(c.peakShare) +
                          " bytes at the peak; adds " +
                          std::to_string(std::max<int64_t>(c.addedWork, 0)) +
                          " units of work");
    }
  }

  void rewrite() {
    OpBuilder builder(block.getParent()->getContext());
    llvm::SetVector<Operation *> originals;
    for (Candidate &c : candidates) {
      if (!c.taken)
        continue;
      SmallVector<OpOperand *> unanchored;
      for (const UseAnchor &anchor : useAnchors(c.value, &block, unanchored)) {
        builder.setInsertionPoint(anchor.op);
        IRMapping map;
        for (Operation *op : c.slice) {
          Operation *clone = builder.clone(*op, map);
          // A fresh destination is located at the op it serves, as
          // memplan-split-destinations places them.
          if (isFreshDestination(op))
            clone->setLoc(anchor.uses.front()->getOwner()->getLoc());
        }
        redirectUses(anchor, map.lookup(c.value));
      }
      originals.insert(c.slice.begin(), c.slice.end());
    }
    // The originals nobody uses any more go, the last first.
    SmallVector<Operation *> dead(originals.begin(), originals.end());
    llvm::sort(
        dead, [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
    for (Operation *op : dead)
      if (op->use_empty())
        op->erase();
  }

  Block &block;
  const CheapValues &cheap;
  bufferization::AnalysisState &state;
  BlockPeakModel model;
  /// The function's work, computed when a candidate adds work.
  llvm::function_ref<int64_t()> functionWork;
  const RecomputeOptions &options;
  RecomputeStats &stats;
  std::vector<Candidate> candidates, rejected;
  int64_t peakBefore = 0, peakAfter = 0;
};

} // namespace

RecomputeStats recomputeCheapValues(MlirOperation rootHandle,
                                    const RecomputeOptions &options) {
  Operation *root = unwrap(rootHandle);
  RecomputeStats stats;
  QueryState query(root);
  SmallVector<FunctionOpInterface> functions;
  root->walk([&](FunctionOpInterface func) { functions.push_back(func); });
  for (FunctionOpInterface func : functions) {
    Region *body = func.getCallableRegion();
    if (!body || body->empty())
      continue;
    CheapValues cheap;
    func->walk<WalkOrder::PreOrder>([&](Operation *op) { cheap.visit(op); });
    std::optional<int64_t> work;
    auto functionWork = [&]() {
      if (!work) {
        work = 0;
        func->walk([&](linalg::LinalgOp op) {
          *work += std::max<int64_t>(workOf(op, query.get()), 0);
        });
      }
      return *work;
    };
    // Values in a region of an op of the body (a loop body, a branch) are
    // left alone: recomputing them there repeats the work on every
    // iteration.
    for (Block &block : *body) {
      BodyRecompute recompute(block, cheap, query.get(), functionWork, options,
                              stats);
      recompute.run();
    }
    // One decision per cheap value such a region holds with several users.
    body->walk([&](Operation *op) {
      if (op->getParentRegion() == body)
        return;
      for (Value v : op->getResults()) {
        SmallVector<OpOperand *> unanchored;
        if (!cheap.contains(v) ||
            useAnchors(v, op->getBlock(), unanchored).size() < 2)
          continue;
        ++stats.candidates;
        ++stats.kept;
        if (options.remarks)
          stats.remarks.push_back(
              {wrap(v.getLoc()),
               "not recomputed: it is computed in a region (a loop body or "
               "a branch), where recomputing it repeats the work on every "
               "run"});
      }
    });
  }
  LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE << ": " << stats.recomputed
                          << " values recomputed, modeled peak "
                          << stats.peakBefore << " -> " << stats.peakAfter
                          << "\n");
  return stats;
}

} // namespace memplan
