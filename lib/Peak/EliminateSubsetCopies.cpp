//===- EliminateSubsetCopies.cpp - Producers write into their subset ------===//
//
// See include/memplan/Peak/Transforms.h. A value copied into a subset of
// a larger tensor (the interior of a `tensor.pad`, an operand of a
// `tensor.concat`, the source of a subset insertion such as
// `tensor.insert_slice`) needs its own buffer and the larger one at the same
// time. When the value is made by a chain of destination-style ops that ends
// at a fresh destination (`tensor.empty`, or a fill of one), the chain can
// write straight into the subset instead: the fresh destination becomes a
// `tensor.extract_slice` of the larger tensor, which is now created (filled
// with the padding value where there is one) before the chain starts, and the
// copy becomes an `insert_slice` of the slice into the place it came from,
// which bufferization does in place (upstream's empty-tensor elimination
// makes the same pair for `tensor.insert_slice`).
//
// Candidates are found on the IR; legality and cost are checked on a clone
// of the module with every rewrite applied: memplan's engine analyzes it, and
// a rewrite stays only where its own operands bufferize in place, no operand
// that was in place loses that, and the modeled peak of its function does
// not go up. Failing rewrites are dropped one by one and the rest tried
// again on a fresh clone; the clone that passes becomes the module's body.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "memplan/Inplace/InterfaceEngine.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/SubsetOpInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#include <map>
#include <optional>
#include <set>

#define DEBUG_TYPE "memplan-eliminate-subset-copies"

using namespace mlir;

namespace memplan {
namespace {

/// Why a value stays a copy: its name, the counter (Counters.def) it counts
/// in and what its remark says.
#define MEMPLAN_SUBSET_COPY_REASONS(X)                                         \
  X(Dynamic, rejectedDynamic,                                                  \
    "its sizes are not static (the peak model cannot weigh it)")               \
  X(NotProducer, rejectedNotProducer,                                          \
    "it is not made by a destination-style op of this block writing a "        \
    "fresh destination")                                                       \
  X(OtherUses, rejectedOtherUses,                                              \
    "it, or a tensor its producers write into, has other uses (the value "     \
    "must exist on its own)")                                                  \
  X(ReadsUndefined, rejectedNotProducer,                                       \
    "its producer reads the undefined contents of its destination")            \
  X(Dominance, rejectedPlacement,                                              \
    "what the larger tensor needs is defined after the producer, or cannot "   \
    "be moved before it")                                                      \
  X(Nested, rejectedPlacement,                                                 \
    "its producers include another copy that is rewritten")                    \
  X(Order, rejectedPlacement,                                                  \
    "another operand's producer runs between its producers")                   \
  X(PadValue, rejectedNotProducer,                                             \
    "its padding value depends on the position")                               \
  X(NotInBody, rejectedNotProducer,                                            \
    "it is not directly in the body of a single-block function (the peak "     \
    "model covers those)")                                                     \
  X(Analysis, rejectedAnalysis,                                                \
    "the in-place analysis would copy it into the subset anyway")              \
  X(AnalysisFailed, rejectedAnalysis,                                          \
    "the in-place analysis fails on this module (nothing is rewritten)")       \
  X(Peak, rejectedPeak,                                                        \
    "holding the larger tensor from its producer on would raise the modeled "  \
    "peak")

/// None: the value is written in place; otherwise why it stays a copy.
enum class Reason {
  None,
#define MEMPLAN_REASON_ENUM(R, Counter, Text) R,
  MEMPLAN_SUBSET_COPY_REASONS(MEMPLAN_REASON_ENUM)
#undef MEMPLAN_REASON_ENUM
};

const char *reasonText(Reason r) {
  switch (r) {
  case Reason::None:
    return "";
#define MEMPLAN_REASON_TEXT(R, Counter, Text)                                  \
  case Reason::R:                                                              \
    return Text;
    MEMPLAN_SUBSET_COPY_REASONS(MEMPLAN_REASON_TEXT)
#undef MEMPLAN_REASON_TEXT
  }
  return "";
}

/// The counter of SubsetCopyStats a value that stays a copy for `r` counts in.
int64_t SubsetCopyStats::*rejectedCounter(Reason r) {
  switch (r) {
  case Reason::None:
    break;
#define MEMPLAN_REASON_COUNTER(R, Counter, Text)                               \
  case Reason::R:                                                              \
    return &SubsetCopyStats::Counter;
    MEMPLAN_SUBSET_COPY_REASONS(MEMPLAN_REASON_COUNTER)
#undef MEMPLAN_REASON_COUNTER
  }
  llvm_unreachable("a value written in place is no rejection");
}

bool isStatic(Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  return shaped && shaped.hasStaticShape();
}

/// Every use of `v` is in `op`, or reads `v` in an op of `op`'s block that
/// runs before `op` and neither writes `v` nor makes a value that aliases it
/// (BufferizableOpInterface): such a read sees `v` and nothing else, and is
/// done before `op` overwrites it.
bool onlyReadBefore(Value v, Operation *op,
                    bufferization::AnalysisState &state) {
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    Operation *owner = use.getOwner();
    if (owner == op)
      return true;
    auto bufferizable = dyn_cast<bufferization::BufferizableOpInterface>(owner);
    return bufferizable && owner->getBlock() == op->getBlock() &&
           owner->isBeforeInBlock(op) &&
           !bufferizable.bufferizesToMemoryWrite(use, state) &&
           bufferizable.getAliasingValues(use, state).getNumAliases() == 0;
  });
}

/// A pure destination-style op whose only tensor operand is its one init, a
/// fresh destination, with one result (`linalg.fill` of a `tensor.empty`):
/// cloning it onto a slice of another tensor computes the same value there.
bool isFillLike(Operation *op) {
  auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(op);
  if (!dps || !dps.hasPureTensorSemantics() || dps.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || !isMemoryEffectFree(op))
    return false;
  OpOperand *init = dps.getDpsInitOperand(0);
  for (OpOperand &operand : op->getOpOperands())
    if (&operand != init && isa<TensorType>(operand.get().getType()))
      return false;
  return isFreshDestination(init->get().getDefiningOp());
}

/// Whether `v` is available right before `at`.
bool availableAt(Value v, Operation *at) {
  Block *block = v.getParentBlock();
  Operation *anchor = block ? block->findAncestorOpInBlock(*at) : nullptr;
  if (!anchor)
    return false;
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  return def != anchor && def->isBeforeInBlock(anchor);
}

/// The destination-style ops that make a value, from the one that first
/// writes its fresh destination to the one that defines it.
struct Chain {
  SmallVector<Operation *> ops; ///< Last (the value's definer) first.
  /// The operand of `ops.back()` that holds the fresh destination, or the
  /// shared fill-like result `fill` that is cloned onto the slice.
  OpOperand *root = nullptr;
  Operation *fill = nullptr;
  Operation *first() const { return ops.back(); }
  Operation *last() const { return ops.front(); }
};

/// The chain that makes `source`, whose one use is in `copy`; or why there
/// is none.
std::variant<Chain, Reason> chainOf(Value source, Operation *copy,
                                    bufferization::AnalysisState &state) {
  Block *block = copy->getBlock();
  Chain chain;
  Value v = source;
  Operation *user = copy;
  while (true) {
    // The value copied has no other use; a value the chain overwrites may
    // be read before that.
    if (user == copy ? !v.hasOneUse() : !onlyReadBefore(v, user, state))
      return Reason::OtherUses;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return Reason::NotProducer;
    auto dps = dyn_cast<DestinationStyleOpInterface>(def);
    if (!dps || !dps.hasPureTensorSemantics())
      return Reason::NotProducer;
    OpOperand *init = dps.getTiedOpOperand(cast<OpResult>(v));
    if (!init || init->get().getType() != v.getType())
      return Reason::NotProducer;
    chain.ops.push_back(def);
    Value d = init->get();
    Operation *dd = d.getDefiningOp();
    if (isFreshDestination(dd)) {
      auto bufferizable = dyn_cast<bufferization::BufferizableOpInterface>(def);
      if (!bufferizable || bufferizable.bufferizesToMemoryRead(*init, state))
        return Reason::ReadsUndefined;
      chain.root = init;
      return chain;
    }
    if (onlyReadBefore(d, def, state)) {
      v = d;
      user = def;
      continue;
    }
    if (isFillLike(dd) && dd->getBlock() == block) {
      chain.root = init;
      chain.fill = dd;
      return chain;
    }
    return Reason::OtherUses;
  }
}

enum class Kind { Pad, Concat, Insert };

/// One value copied into a subset, and the chain that makes it.
struct Piece {
  int32_t key = 0; ///< Position among all pieces, in walk order.
  Value source;
  SmallVector<OpFoldResult> offsets, sizes, strides; ///< Pads and concats.
  Chain chain;
  Reason reason = Reason::None;
  Location loc;
};

/// A copy into a larger tensor: a pad (of a concat, too), a concat, or a
/// subset insertion.
struct Group {
  Kind kind;
  Operation *op; ///< The copying op (for a pad of a concat: the pad).
  Operation *inner = nullptr; ///< The concat under a pad.
  int64_t innerBytes = 0;     ///< Its static bytes.
  RankedTensorType type;      ///< Pads and concats: the larger tensor.
  Value padValue;             ///< Pads.
  std::vector<Piece> pieces;
  bool rewritten = false; ///< Set by apply.
  int32_t key() const { return pieces.front().key; }
};

/// What a rewrite made, for the checks.
struct Applied {
  Group *group;
  SmallVector<Piece *> pieces; ///< The pieces written in place.
  Operation *start = nullptr;  ///< First op of the larger tensor's lifetime.
  Operation *end = nullptr;    ///< The op whose result replaced the copy.
  /// Operands that must bufferize in place, and the piece they are for
  /// (null: the group's own, the larger tensor and its copies).
  SmallVector<std::pair<OpOperand *, Piece *>> own;
  /// Why the group as a whole could not be rewritten (apply failed with no
  /// piece to blame).
  Reason failure = Reason::None;
  Block *body = nullptr;
  /// Ops to erase once every group is rewritten (the copies), and ops to
  /// erase then if nothing uses them any more (replaced destinations).
  SmallVector<Operation *> erase, eraseIfDead;
};

/// Static offsets as OpFoldResults.
SmallVector<OpFoldResult> indexAttrs(MLIRContext *ctx, ArrayRef<int64_t> v) {
  Builder b(ctx);
  SmallVector<OpFoldResult> out;
  for (int64_t x : v)
    out.push_back(b.getIndexAttr(x));
  return out;
}

/// The function body `op` is directly in, or null.
Block *functionBodyOf(Operation *op) {
  Block *block = op->getBlock();
  if (!block || !isa_and_nonnull<FunctionOpInterface>(block->getParentOp()) ||
      !block->getParent()->hasOneBlock())
    return nullptr;
  return block;
}

/// Groups of the IR under `root` in walk order, pieces keyed in that order;
/// the chains computed on the IR as it is.
std::vector<Group> findGroups(Operation *root,
                              bufferization::AnalysisState &state) {
  std::vector<Group> groups;
  int32_t key = 0;
  MLIRContext *ctx = root->getContext();
  auto addPiece = [&](Group &g, Value source, ArrayRef<int64_t> offsets,
                      ArrayRef<int64_t> strides) {
    Piece p{key++, source, {}, {}, {}, {}, Reason::None, g.op->getLoc()};
    auto type = cast<RankedTensorType>(source.getType());
    p.offsets = indexAttrs(ctx, offsets);
    p.sizes = indexAttrs(ctx, type.getShape());
    p.strides = indexAttrs(ctx, strides);
    g.pieces.push_back(std::move(p));
  };
  root->walk([&](Operation *op) {
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      Group g{Kind::Pad, op};
      g.type = pad.getResultType();
      g.padValue = pad.getConstantPaddingValue();
      auto concat = pad.getSource().getDefiningOp<tensor::ConcatOp>();
      bool statics = isStatic(pad.getSourceType()) && isStatic(g.type) &&
                     pad.getLow().empty() && pad.getHigh().empty();
      if (concat && concat->hasOneUse() && statics &&
          concat->getBlock() == op->getBlock() &&
          llvm::all_of(concat.getInputs(),
                       [](Value v) { return isStatic(v.getType()); })) {
        g.inner = concat;
        g.innerBytes = tensorBytes(concat.getResultType());
        SmallVector<int64_t> offsets(pad.getStaticLow());
        SmallVector<int64_t> ones(offsets.size(), 1);
        for (Value in : concat.getInputs()) {
          addPiece(g, in, offsets, ones);
          offsets[concat.getDim()] +=
              cast<RankedTensorType>(in.getType()).getDimSize(concat.getDim());
        }
      } else {
        SmallVector<int64_t> ones(g.type.getRank(), 1);
        Piece p{key++, pad.getSource(), {},          {}, {},
                {},    Reason::None,    op->getLoc()};
        if (statics) {
          p.offsets = indexAttrs(ctx, pad.getStaticLow());
          p.sizes = indexAttrs(ctx, pad.getSourceType().getShape());
          p.strides = indexAttrs(ctx, ones);
        } else {
          p.reason = Reason::Dynamic;
        }
        g.pieces.push_back(std::move(p));
      }
      if (!g.padValue)
        for (Piece &p : g.pieces)
          if (p.reason == Reason::None)
            p.reason = Reason::PadValue;
      groups.push_back(std::move(g));
      return;
    }
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      // A concat padded right after is handled with its pad.
      if (concat->hasOneUse())
        if (auto pad = dyn_cast<tensor::PadOp>(*concat->getUsers().begin()))
          if (isStatic(pad.getSourceType()) && isStatic(pad.getResultType()) &&
              pad.getLow().empty() && pad.getHigh().empty() &&
              pad->getBlock() == op->getBlock() &&
              llvm::all_of(concat.getInputs(),
                           [](Value v) { return isStatic(v.getType()); }))
            return;
      Group g{Kind::Concat, op};
      g.type = concat.getResultType();
      bool statics =
          isStatic(g.type) && llvm::all_of(concat.getInputs(), [](Value v) {
            return isStatic(v.getType());
          });
      SmallVector<int64_t> offsets(g.type.getRank(), 0);
      SmallVector<int64_t> ones(g.type.getRank(), 1);
      for (Value in : concat.getInputs()) {
        if (!statics) {
          Piece p{key++, in, {}, {}, {}, {}, Reason::Dynamic, op->getLoc()};
          g.pieces.push_back(std::move(p));
          continue;
        }
        addPiece(g, in, offsets, ones);
        offsets[concat.getDim()] +=
            cast<RankedTensorType>(in.getType()).getDimSize(concat.getDim());
      }
      groups.push_back(std::move(g));
      return;
    }
    auto insertion = dyn_cast<SubsetInsertionOpInterface>(op);
    if (!insertion || op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return;
    Group g{Kind::Insert, op};
    Value source = insertion.getSourceOperand().get();
    Piece p{key++, source, {}, {}, {}, {}, Reason::None, op->getLoc()};
    if (!isStatic(source.getType()) || !isStatic(op->getResult(0).getType()))
      p.reason = Reason::Dynamic;
    g.pieces.push_back(std::move(p));
    groups.push_back(std::move(g));
  });
  // The chains, on the IR as it is. An op may belong to one chain only, and
  // a chain may not run through another group's copy.
  llvm::DenseSet<Operation *> copies;
  for (Group &g : groups) {
    copies.insert(g.op);
    if (g.inner)
      copies.insert(g.inner);
  }
  for (Group &g : groups) {
    Operation *copy = g.inner ? g.inner : g.op;
    for (Piece &p : g.pieces) {
      if (p.reason != Reason::None)
        continue;
      if (!functionBodyOf(g.op)) {
        p.reason = Reason::NotInBody;
        continue;
      }
      std::variant<Chain, Reason> chain = chainOf(p.source, copy, state);
      if (auto *why = std::get_if<Reason>(&chain)) {
        p.reason = *why;
        continue;
      }
      p.chain = std::get<Chain>(chain);
      if (llvm::any_of(p.chain.ops,
                       [&](Operation *o) { return copies.contains(o); }))
        p.reason = Reason::Nested;
    }
  }
  return groups;
}

/// The ops of `block` after `at` that the values in `needed` are computed
/// by (their operands' definers too), in block order; none if one of them
/// has a memory effect, is one of `forbidden`, computes a tensor from
/// others, or there are more than `limit`.
std::optional<SmallVector<Operation *>>
opsToHoist(ArrayRef<Value> needed, Operation *at,
           const llvm::DenseSet<Operation *> &forbidden, size_t limit = 16) {
  Block *block = at->getBlock();
  llvm::SetVector<Operation *> found;
  SmallVector<Value> work(needed.begin(), needed.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (availableAt(v, at))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || forbidden.contains(def) ||
        !isMemoryEffectFree(def))
      return std::nullopt;
    // Only what makes the destination moves: scalar computations, fresh
    // destinations, fill-like ops, and copies (subset insertions) of values
    // made before `at`; never the computation of a tensor.
    auto insertion = dyn_cast<SubsetInsertionOpInterface>(def);
    bool tensorOperands = llvm::any_of(
        def->getOperandTypes(), [](Type t) { return isa<TensorType>(t); });
    if (tensorOperands && !isFillLike(def) &&
        !(insertion && availableAt(insertion.getSourceOperand().get(), at)))
      return std::nullopt;
    if (!found.insert(def))
      continue;
    if (found.size() > limit)
      return std::nullopt;
    // Values used inside its regions from above count too.
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *scope = isa<BlockArgument>(operand)
                               ? operand.getParentBlock()->getParentOp()
                               : operand.getDefiningOp();
        if (!def->isAncestor(scope))
          work.push_back(operand);
      }
    });
  }
  SmallVector<Operation *> ops(found.begin(), found.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

/// Rewrites group `g` (its pieces without a reason are written in place),
/// recording what it made; a piece that cannot be done gets its reason and
/// the group reports failure (the caller starts over on a fresh clone).
LogicalResult rewriteGroup(Group &g, Applied &out) {
  OpBuilder builder(g.op->getContext());
  out.group = &g;
  out.body = functionBodyOf(g.op);
  SmallVector<Piece *> accepted;
  for (Piece &p : g.pieces)
    if (p.reason == Reason::None)
      accepted.push_back(&p);
  // A concat padded right after is copied straight into the padded tensor
  // even when no operand is computed there: no concat buffer.
  if (accepted.empty() && !g.inner)
    return success();
  llvm::sort(accepted, [](Piece *a, Piece *b) {
    return a->chain.first()->isBeforeInBlock(b->chain.first());
  });
  auto record = [&](Operation *op, Piece *p) {
    for (OpOperand &operand : op->getOpOperands())
      if (isa<TensorType>(operand.get().getType()))
        out.own.push_back({&operand, p});
  };
  // Makes the chain of `p` write into `slice` (through a clone of its fill,
  // if any) and records it; the chain's own links must stay in place.
  auto writeChainInto = [&](Piece *p, Value slice) {
    Value into = slice;
    if (p->chain.fill) {
      Operation *fill = builder.clone(*p->chain.fill);
      cast<DestinationStyleOpInterface>(fill).getDpsInitOperand(0)->set(slice);
      record(fill, p);
      into = fill->getResult(0);
    }
    if (Operation *old = p->chain.root->get().getDefiningOp())
      out.eraseIfDead.push_back(old);
    p->chain.root->set(into);
    for (Operation *op : p->chain.ops) {
      auto dps = cast<DestinationStyleOpInterface>(op);
      for (OpResult r : op->getResults())
        if (OpOperand *init = dps.getTiedOpOperand(r))
          if (isa<TensorType>(init->get().getType()))
            out.own.push_back({init, p});
    }
  };

  if (g.kind == Kind::Insert) {
    Piece *p = accepted.front();
    auto insertion = cast<SubsetInsertionOpInterface>(g.op);
    Operation *at = p->chain.first();
    SmallVector<Value> needed =
        insertion.getValuesNeededToBuildSubsetExtraction();
    llvm::DenseSet<Operation *> forbidden(p->chain.ops.begin(),
                                          p->chain.ops.end());
    forbidden.insert(g.op);
    std::optional<SmallVector<Operation *>> hoist =
        opsToHoist(needed, at, forbidden);
    if (!hoist) {
      p->reason = Reason::Dominance;
      return failure();
    }
    for (Operation *op : *hoist)
      op->moveBefore(at);
    builder.setInsertionPoint(at);
    Value slice = insertion.buildSubsetExtraction(builder, g.op->getLoc());
    if (!slice || slice.getType() != p->chain.root->get().getType()) {
      p->reason = Reason::NotProducer;
      return failure();
    }
    out.start = hoist->empty() ? slice.getDefiningOp() : hoist->front();
    record(slice.getDefiningOp(), p);
    writeChainInto(p, slice);
    record(g.op, p);
    out.end = g.op;
    out.pieces.push_back(p);
    g.rewritten = true;
    return success();
  }

  // Pads and concats: each accepted piece's producers run after the
  // previous one's (then the previous slice is inserted before the next is
  // taken, which is what the analysis needs); the others are copied.
  SmallVector<Piece *> inOrder;
  Operation *previous = nullptr;
  for (Piece *p : accepted) {
    if (previous && !previous->isBeforeInBlock(p->chain.first())) {
      p->reason = Reason::Order;
      continue;
    }
    inOrder.push_back(p);
    previous = p->chain.last();
  }
  if (inOrder.empty() && !g.inner)
    return success();
  Operation *start = inOrder.empty() ? g.inner : inOrder.front()->chain.first();
  Location loc = g.op->getLoc();
  builder.setInsertionPoint(start);
  auto empty = tensor::EmptyOp::create(builder, loc, g.type.getShape(),
                                       g.type.getElementType());
  out.start = empty;
  Value current = empty.getResult();
  if (g.padValue) {
    Value padValue = g.padValue;
    if (!availableAt(padValue, start)) {
      Operation *def = padValue.getDefiningOp();
      if (!def || !matchPattern(def, m_Constant())) {
        for (Piece *p : inOrder)
          p->reason = Reason::Dominance;
        out.failure = Reason::Dominance;
        return failure();
      }
      padValue = builder.clone(*def)->getResult(0);
    }
    auto fill = linalg::FillOp::create(builder, loc, ValueRange{padValue},
                                       ValueRange{current});
    record(fill, nullptr);
    current = fill->getResult(0);
  }
  for (Piece *p : inOrder) {
    Operation *at = p->chain.first();
    builder.setInsertionPoint(at);
    auto type = cast<RankedTensorType>(p->source.getType());
    auto slice = tensor::ExtractSliceOp::create(
        builder, loc, type, current, p->offsets, p->sizes, p->strides);
    record(slice, p);
    writeChainInto(p, slice.getResult());
    builder.setInsertionPointAfter(p->chain.last());
    auto insert = tensor::InsertSliceOp::create(
        builder, loc, p->source, current, p->offsets, p->sizes, p->strides);
    record(insert, p);
    current = insert.getResult();
    out.pieces.push_back(p);
  }
  // The other pieces are copied where the copy was.
  builder.setInsertionPoint(g.inner ? g.inner : g.op);
  for (Piece &p : g.pieces) {
    if (llvm::is_contained(inOrder, &p))
      continue;
    if (p.offsets.empty()) {
      out.failure = Reason::Dynamic; // a dynamic group has no accepted piece
      return failure();
    }
    auto insert = tensor::InsertSliceOp::create(builder, loc, p.source, current,
                                                p.offsets, p.sizes, p.strides);
    record(insert, nullptr);
    current = insert.getResult();
  }
  g.rewritten = true;
  out.end = current.getDefiningOp();
  g.op->getResult(0).replaceAllUsesWith(current);
  out.erase.push_back(g.op);
  if (g.inner)
    out.erase.push_back(g.inner);
  return success();
}

/// One analysis, on the IR it was run on.
struct Analysis {
  std::vector<Operation *> ops; ///< Pre-order, as the engine numbers them.
  llvm::DenseMap<OpOperand *, bool> inPlace;
  /// Buffers: alias sets with a member that bufferizes to a new allocation.
  std::vector<std::vector<Value>> buffers;
};

bool allocates(Value v) {
  auto result = dyn_cast<OpResult>(v);
  if (!result)
    return false;
  auto op = dyn_cast<bufferization::BufferizableOpInterface>(result.getOwner());
  return op && op.bufferizesToAllocation(result);
}

/// The analysis of the module under `root`: decisions, and buffers as
/// bufferization lays them out: an alias set is one buffer when a member
/// bufferizes to a new allocation or is the result of an out-of-place
/// operand (its copy).
std::optional<Analysis> analyze(Operation *root, bool functionBoundaries,
                                bufferization::AnalysisState &state) {
  EngineResult result = analyzeQuietly(root, functionBoundaries);
  if (!result.ok)
    return std::nullopt;
  Analysis a;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) { a.ops.push_back(op); });
  llvm::DenseSet<Value> copied;
  for (const EngineDecision &d : result.decisions) {
    if (d.op < 0 || d.op >= (int32_t)a.ops.size() ||
        d.operand >= (int32_t)a.ops[d.op]->getNumOperands())
      continue;
    OpOperand &operand = a.ops[d.op]->getOpOperand(d.operand);
    a.inPlace[&operand] = d.inPlace;
    if (d.inPlace)
      continue;
    if (auto op = dyn_cast<bufferization::BufferizableOpInterface>(
            operand.getOwner()))
      for (const bufferization::AliasingValue &alias :
           op.getAliasingValues(operand, state))
        copied.insert(alias.value);
  }
  auto isRoot = [&](Value v) { return allocates(v) || copied.contains(v); };
  llvm::DenseSet<Value> inSets;
  for (const std::vector<EngineValue> &set : result.aliasSets) {
    std::vector<Value> values;
    bool fresh = false;
    for (const EngineValue &ev : set)
      // Block arguments are never new allocations.
      if (Value v = engineValue(a.ops, ev); v && !isa<BlockArgument>(v)) {
        values.push_back(v);
        fresh |= isRoot(v);
      }
    inSets.insert(values.begin(), values.end());
    if (fresh)
      a.buffers.push_back(std::move(values));
  }
  for (Operation *op : a.ops)
    for (Value r : op->getResults())
      if (!inSets.contains(r) && isa<TensorType>(r.getType()) && isRoot(r))
        a.buffers.push_back({r});
  return a;
}

/// The heap's block: buffers are counted in multiples of it, as the heap
/// peaks of memplan.lifetimes.peaks count them.
constexpr int64_t kHeapBlock = 64;

/// Live bytes at each op of `block` (ops nested in one count at it): each
/// buffer of `a` lives from the first op that defines or uses a member to
/// the last, at the size of its largest member (in heap blocks).
std::vector<int64_t> liveBytes(Block &block, const Analysis &a) {
  llvm::DenseMap<Operation *, int32_t> position;
  int32_t n = 0;
  for (Operation &op : block)
    position[&op] = n++;
  std::vector<int64_t> delta(n + 1, 0);
  auto at = [&](Operation *op) -> int32_t {
    Operation *anchor = block.findAncestorOpInBlock(*op);
    return anchor ? position.lookup(anchor) : -1;
  };
  for (const std::vector<Value> &buffer : a.buffers) {
    int64_t bytes = 0;
    int32_t lo = n, hi = -1;
    for (Value v : buffer) {
      bytes = std::max(bytes, tensorBytes(v.getType()));
      if (Operation *def = v.getDefiningOp())
        if (int32_t p = at(def); p >= 0) {
          lo = std::min(lo, p);
          hi = std::max(hi, p);
        }
      for (Operation *user : v.getUsers())
        if (int32_t p = at(user); p >= 0) {
          lo = std::min(lo, p);
          hi = std::max(hi, p);
        }
    }
    if (bytes == 0 || hi < lo)
      continue;
    bytes = (bytes + kHeapBlock - 1) / kHeapBlock * kHeapBlock;
    LLVM_DEBUG({
      llvm::dbgs() << "buffer " << bytes << " [" << lo << ", " << hi << "]: ";
      buffer.front().print(llvm::dbgs(), OpPrintingFlags().skipRegions());
      llvm::dbgs() << "\n";
    });
    delta[lo] += bytes;
    delta[hi + 1] -= bytes;
  }
  std::vector<int64_t> live(n, 0);
  int64_t sum = 0;
  for (int32_t i = 0; i < n; ++i)
    live[i] = sum += delta[i];
  return live;
}

int64_t peakOf(const std::vector<int64_t> &live) {
  int64_t peak = 0;
  for (int64_t x : live)
    peak = std::max(peak, x);
  return peak;
}

/// The module body's ops, spliced from `from` into `into` (both with one
/// block per region), `into`'s old ops erased.
void replaceBody(Operation *into, Operation *from) {
  for (auto [to, src] : llvm::zip(into->getRegions(), from->getRegions())) {
    Block &dst = to.front();
    while (!dst.empty())
      dst.back().erase();
    dst.getOperations().splice(dst.end(), src.front().getOperations());
  }
}

bool singleBlockRegions(Operation *op) {
  return llvm::all_of(op->getRegions(),
                      [](Region &r) { return r.hasOneBlock(); });
}

} // namespace

SubsetCopyStats eliminateSubsetCopies(MlirOperation rootHandle,
                                      const SubsetCopyOptions &options,
                                      bool apply) {
  Operation *root = unwrap(rootHandle);
  SubsetCopyStats stats;
  if (!singleBlockRegions(root))
    return stats;
  // Decisions of the rounds: pieces kept a copy, and groups left alone (a
  // concat under a pad that is not copied straight into it), by key.
  std::map<int32_t, Reason> rejected, rejectedGroups;
  auto report = [&](std::vector<Group> &groups) {
    for (Group &g : groups) {
      if (g.rewritten && g.inner) {
        ++stats.foldedConcats;
        stats.bytesSaved += g.innerBytes;
      }
      for (Piece &p : g.pieces) {
        ++stats.candidates;
        auto it = rejected.find(p.key);
        Reason r = it != rejected.end() ? it->second : p.reason;
        std::string what =
            g.kind == Kind::Insert
                ? "the inserted value"
                : (g.kind == Kind::Pad && !g.inner
                       ? "the padded value"
                       : "operand #" + std::to_string(&p - g.pieces.data()) +
                             " of the concat");
        std::string message;
        if (r == Reason::None) {
          ++stats.written;
          stats.bytesSaved += tensorBytes(p.source.getType());
          message =
              what + (apply ? " is now" : " would be") + " computed in the " +
              (g.kind == Kind::Pad      ? "padded"
               : g.kind == Kind::Concat ? "concatenated"
                                        : "destination") +
              " tensor: no copy, " +
              std::to_string(tensorBytes(p.source.getType())) + " bytes saved";
        } else {
          ++(stats.*rejectedCounter(r));
          message = what +
                    (g.rewritten && g.inner
                         ? std::string(apply ? " is" : " would be") +
                               " copied straight into the padded tensor (no "
                               "concat buffer) but not computed there: "
                         : std::string(apply ? " stays" : " would stay") +
                               " a copy: ") +
                    reasonText(r);
        }
        if (options.remarks)
          stats.remarks.push_back({wrap(p.loc), message});
      }
    }
  };
  auto hasWork = [&](std::vector<Group> &groups) {
    for (Group &g : groups) {
      if (rejectedGroups.count(g.key()))
        continue;
      if (g.inner)
        return true;
      for (Piece &p : g.pieces)
        if (p.reason == Reason::None && !rejected.count(p.key))
          return true;
    }
    return false;
  };

  // Candidates on the IR as it is; nothing to do without one.
  std::optional<Analysis> before;
  {
    QueryState query(root);
    std::vector<Group> groups = findGroups(root, query.get());
    if (!hasWork(groups)) {
      report(groups);
      return stats;
    }
    before = analyze(root, options.functionBoundaries, query.get());
    if (!before) {
      stats.analyzed = false;
      for (Group &g : groups)
        for (Piece &p : g.pieces)
          if (p.reason == Reason::None)
            p.reason = Reason::AnalysisFailed;
      report(groups);
      return stats;
    }
  }

  // Each round rewrites a clone of the module with every rewrite not
  // rejected yet, and checks it; a round that rejects nothing is kept.
  for (int round = 0; round < 16; ++round) {
    IRMapping mapping;
    OwningOpRef<Operation *> clone(root->clone(mapping));
    QueryState query(clone.get());
    std::vector<Group> groups = findGroups(clone.get(), query.get());
    if (!hasWork(groups))
      break;
    ++stats.rounds;
    for (Group &g : groups)
      for (Piece &p : g.pieces)
        if (p.reason == Reason::None && rejected.count(p.key))
          p.reason = rejected[p.key];
    // The original's analysis, on the clone (the same IR until rewritten).
    llvm::DenseSet<Operation *> original;
    clone.get()->walk([&](Operation *op) { original.insert(op); });
    Analysis beforeOnClone;
    for (const std::vector<Value> &buffer : before->buffers) {
      std::vector<Value> values;
      for (Value v : buffer)
        values.push_back(mapping.lookupOrDefault(v));
      beforeOnClone.buffers.push_back(std::move(values));
    }
    llvm::DenseMap<OpOperand *, bool> inPlaceBefore;
    for (auto &[operand, inPlace] : before->inPlace)
      if (Operation *owner = mapping.lookupOrNull(operand->getOwner()))
        inPlaceBefore[&owner->getOpOperand(operand->getOperandNumber())] =
            inPlace;
    llvm::DenseMap<Block *, int64_t> peakBefore;

    // Apply everything; what fails is redone without it.
    std::vector<Applied> applied;
    bool retry = false;
    for (Group &g : groups) {
      if (rejectedGroups.count(g.key()))
        continue;
      Block *body = functionBodyOf(g.op);
      if (!body)
        continue;
      if (!peakBefore.count(body))
        peakBefore[body] = peakOf(liveBytes(*body, beforeOnClone));
      Applied a;
      LogicalResult done = rewriteGroup(g, a);
      for (Piece &p : g.pieces)
        if (p.reason == Reason::Order ||
            (failed(done) && p.reason != Reason::None &&
             !rejected.count(p.key) && p.chain.root))
          rejected.emplace(p.key, p.reason);
      if (failed(done)) {
        if (a.failure != Reason::None)
          rejectedGroups.emplace(g.key(), a.failure);
        retry = true;
        continue;
      }
      if (g.rewritten)
        applied.push_back(std::move(a));
    }
    if (retry)
      continue;
    if (applied.empty())
      break;
    // The copies go now, when no op is made any more: a new op never takes
    // the address of an erased one in `original`.
    for (Applied &a : applied)
      for (Operation *op : a.erase) {
        original.erase(op);
        op->erase();
      }
    for (Applied &a : applied)
      for (Operation *op : a.eraseIfDead) {
        // A fill-like destination may leave its own fresh destination dead.
        SmallVector<Operation *> work{op};
        while (!work.empty()) {
          Operation *dead = work.pop_back_val();
          if (!original.contains(dead) || !dead->use_empty() ||
              !(isFreshDestination(dead) || isFillLike(dead)))
            continue;
          for (Value operand : dead->getOperands())
            if (Operation *def = operand.getDefiningOp())
              work.push_back(def);
          original.erase(dead);
          dead->erase();
        }
      }

    std::optional<Analysis> after =
        analyze(clone.get(), options.functionBoundaries, query.get());
    bool failedAny = false;
    auto failApplied = [&](Applied &a, Piece *p, Reason r) {
      if (p) {
        failedAny |= rejected.emplace(p->key, r).second;
        return;
      }
      if (a.pieces.empty()) {
        failedAny |= rejectedGroups.emplace(a.group->key(), r).second;
        return;
      }
      for (Piece *q : a.pieces)
        failedAny |= rejected.emplace(q->key, r).second;
    };
    if (!after) {
      // The rewritten module does not analyze: nothing is kept.
      for (Applied &a : applied)
        failApplied(a, nullptr, Reason::Analysis);
      continue;
    }
    llvm::DenseSet<OpOperand *> ownOperands;
    for (Applied &a : applied)
      for (auto &[operand, piece] : a.own) {
        ownOperands.insert(operand);
        auto it = after->inPlace.find(operand);
        if (it != after->inPlace.end() && !it->second) {
          LLVM_DEBUG({
            llvm::dbgs() << "out of place: operand "
                         << operand->getOperandNumber() << " of ";
            operand->getOwner()->print(llvm::dbgs(),
                                       OpPrintingFlags().skipRegions());
            llvm::dbgs() << "\n";
          });
          failApplied(a, piece, Reason::Analysis);
        }
      }
    // Positions in each rewritten body, for windows.
    llvm::DenseMap<Block *, llvm::DenseMap<Operation *, int32_t>> positions;
    auto positionIn = [&](Block *body, Operation *op) -> int32_t {
      auto &map = positions[body];
      if (map.empty()) {
        int32_t n = 0;
        for (Operation &o : *body)
          map[&o] = n++;
      }
      Operation *anchor = body->findAncestorOpInBlock(*op);
      return anchor ? map.lookup(anchor) : -1;
    };
    // Rejects the rewrites of `body` whose larger tensor is held at
    // `position` (all of them when none is).
    auto failCovering = [&](Block *body, int32_t position, Reason r) {
      bool covered = false;
      for (Applied &a : applied) {
        if (a.body != body || positionIn(body, a.start) > position ||
            positionIn(body, a.end) < position)
          continue;
        LLVM_DEBUG(llvm::dbgs() << "  window [" << positionIn(body, a.start)
                                << ", " << positionIn(body, a.end)
                                << "] covers " << position << "\n");
        covered = true;
        failApplied(a, nullptr, r);
      }
      if (!covered)
        for (Applied &a : applied)
          if (a.body == body)
            failApplied(a, nullptr, r);
    };
    // An operand that was in place and no longer is.
    for (auto &[operand, inPlace] : after->inPlace) {
      if (inPlace || ownOperands.contains(operand) ||
          !original.contains(operand->getOwner()))
        continue;
      auto it = inPlaceBefore.find(operand);
      if (it == inPlaceBefore.end() || !it->second)
        continue;
      Operation *owner = operand->getOwner();
      LLVM_DEBUG({
        llvm::dbgs() << "lost: operand " << operand->getOperandNumber()
                     << " of ";
        owner->print(llvm::dbgs(), OpPrintingFlags().skipRegions());
        llvm::dbgs() << "\n";
      });
      Block *body = nullptr;
      for (Operation *op = owner; op && !body; op = op->getParentOp())
        body = functionBodyOf(op);
      if (!body) {
        for (Applied &a : applied)
          failApplied(a, nullptr, Reason::Analysis);
        continue;
      }
      failCovering(body, positionIn(body, owner), Reason::Analysis);
    }
    // The modeled peak of each rewritten function may not go up.
    llvm::SetVector<Block *> bodies;
    for (Applied &a : applied)
      bodies.insert(a.body);
    int64_t was = 0, now = 0;
    LLVM_DEBUG({
      for (Applied &a : applied)
        llvm::dbgs() << "applied kind " << (int)a.group->kind << " pieces "
                     << a.pieces.size() << " window ["
                     << positionIn(a.body, a.start) << ", "
                     << positionIn(a.body, a.end) << "]\n";
    });
    for (Block *body : bodies) {
      std::vector<int64_t> live = liveBytes(*body, *after);
      int64_t peak = peakBefore.lookup(body);
      for (size_t i = 0; i < live.size(); ++i)
        if (live[i] > peak) {
          LLVM_DEBUG(llvm::dbgs() << "peak " << live[i] << " > " << peak
                                  << " at " << i << "\n");
          failCovering(body, static_cast<int32_t>(i), Reason::Peak);
        }
      was += peak;
      now += peakOf(live);
    }
    LLVM_DEBUG(llvm::dbgs()
               << "round " << round << ": " << applied.size()
               << " groups rewritten, "
               << (failedAny ? "some rejected" : "all kept") << "\n");
    if (failedAny)
      continue;
    stats.peakBefore = was;
    stats.peakAfter = now;
    if (apply)
      replaceBody(root, clone.get());
    report(groups);
    return stats;
  }
  // Nothing kept: report on the IR as it is.
  QueryState query(root);
  std::vector<Group> groups = findGroups(root, query.get());
  for (Group &g : groups)
    for (Piece &p : g.pieces)
      if (p.reason == Reason::None && !rejected.count(p.key))
        rejected[p.key] = Reason::Analysis;
  report(groups);
  return stats;
}

} // namespace memplan
