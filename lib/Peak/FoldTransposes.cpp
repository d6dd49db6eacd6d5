//===- FoldTransposes.cpp - Read operands where they lie ------------------===//
//
// See include/memplan/Peak/Transforms.h. torch-mlir imports every
// `nn.Linear` as a `linalg.transpose` of the weight into a fresh tensor, then
// a `linalg.matmul` of that copy; attention transposes its heads the same way
// before each batched matmul. The copy is often the largest buffer of the
// program, and nobody needs it: a LinalgOp reads its operands through
// indexing maps, so it can read the transpose's source where it lies, through
// the permutation composed into its map.
//
// What a layout copy is comes from LinalgOp: an op on tensors with one input
// and one init, all loops parallel, whose payload yields the input element
// unchanged, the init's map a permutation and the input's a projected
// permutation (linalg.transpose, linalg.broadcast, linalg.copy, and any
// linalg.generic that does the same). Its result index t holds the source
// element at `copyToSource(t)`.
//
// Who can read through it: a LinalgOp that takes the copy as an input (not as
// an init: an init is written) reads `copyToSource(consumerMap(i))` of the
// source instead, as long as the op takes that map (its verifier and the
// interface agree: `getIndexingMapsArray` returns it, its loop sizes still
// follow from its operands). A named op whose maps are fixed (or whose
// verifier rejects the map, as linalg.batch_matmul does for a batch
// dimension that is not first) may become the `linalg.generic` with the same
// loops in the same order and the same payload, which computes the same bits
// (the same reduction order). `tensor.extract` reads the element at the
// mapped indices. Reshapes that only insert or drop unit dimensions
// (`tensor.expand_shape`, `tensor.collapse_shape`) are looked through: their
// index maps compose.
//
// A copy is folded when every read folds, and then is not stored at all.
// When some use cannot read through it (it writes into the copy, returns it,
// passes it to a call, ...), the copy stays; the other reads are folded only
// when that shortens its life without lengthening the source's: every kept
// use comes before every folded one, and the source lives anyway (a function
// argument or a constant).
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "memplan/IR/LayoutCopies.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Debug.h"

#include <optional>
#include <string>

#define DEBUG_TYPE "memplan-fold-transposes"

using namespace mlir;

namespace memplan {
namespace {

/// A layout copy on tensors (memplan/IR/LayoutCopies.h): the map from
/// an index of its result to the index of its input that holds the same
/// element.
std::optional<AffineMap> tensorLayoutCopyMap(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      op->getNumResults() != 1)
    return std::nullopt;
  return layoutCopyMap(op);
}

/// How remarks name a layout copy: one that drops loop dimensions from its
/// input is a broadcast, one that permutes them a transpose, and one that
/// does neither a plain copy (two transposes folded into each other leave
/// one).
struct Kind {
  StringRef noun;      ///< "a transpose"
  StringRef adjective; ///< "the transposed copy"
};

Kind kindOf(AffineMap copyToSource) {
  if (copyToSource.getNumResults() < copyToSource.getNumDims())
    return {"broadcast", "broadcast"};
  if (copyToSource.isIdentity())
    return {"copy", "plain"};
  return {"transpose", "transposed"};
}

/// Whether the dimension of a shape is known to be 1.
bool isUnit(int64_t size) { return size == 1; }

/// For a reshape that only inserts or drops unit dimensions: the map from an
/// index of its result to the index of its source that holds the same
/// element. Each reassociation group has at most one dimension that may not
/// be 1; it carries the index, the others are 0.
std::optional<AffineMap> unitReshapeMap(Operation *op) {
  MLIRContext *ctx = op->getContext();
  auto carrier = [](ArrayRef<int64_t> shape, const ReassociationIndices &group)
      -> std::optional<std::optional<int64_t>> {
    std::optional<int64_t> found;
    for (int64_t d : group) {
      if (isUnit(shape[d]))
        continue;
      if (found)
        return std::nullopt; // Two dimensions that may not be 1.
      found = d;
    }
    return found;
  };
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> source = collapse.getSrcType().getShape();
    SmallVector<AffineExpr> exprs(source.size(), getAffineConstantExpr(0, ctx));
    for (auto [j, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      std::optional<std::optional<int64_t>> d = carrier(source, group);
      if (!d)
        return std::nullopt;
      if (*d)
        exprs[**d] = getAffineDimExpr(j, ctx);
    }
    return AffineMap::get(collapse.getResultType().getRank(), 0, exprs, ctx);
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> result = expand.getResultType().getShape();
    SmallVector<AffineExpr> exprs;
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      std::optional<std::optional<int64_t>> d = carrier(result, group);
      if (!d)
        return std::nullopt;
      exprs.push_back(*d ? getAffineDimExpr(**d, ctx)
                         : getAffineConstantExpr(0, ctx));
    }
    return AffineMap::get(result.size(), 0, exprs, ctx);
  }
  return std::nullopt;
}

/// A use of a layout copy's value, or of a unit reshape of it, and the map
/// from an index of the used value to the index of the copy's source.
struct Read {
  OpOperand *use;
  AffineMap toSource;
};

/// A use that keeps the copy, and why (a sentence whose subject is the
/// user).
struct Kept {
  OpOperand *use;
  std::string reason;
};

/// Every use of the copy's value, through unit reshapes.
struct Uses {
  SmallVector<Read> reads;
  SmallVector<Kept> kept;
  SmallVector<Operation *> reshapes; ///< In use-def order.
};

std::string quoted(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// Whether `use` may read through a map (a LinalgOp input or
/// `tensor.extract`); otherwise why not.
std::optional<std::string> whyNotReadable(OpOperand &use, Kind kind) {
  Operation *user = use.getOwner();
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
    if (linalgOp.hasPureTensorSemantics() && linalgOp.isDpsInput(&use))
      return std::nullopt;
  }
  if (isa<tensor::ExtractOp>(user))
    return std::nullopt;
  auto dps = dyn_cast<DestinationStyleOpInterface>(user);
  if (dps && dps.isDpsInit(&use))
    return quoted(user) + " writes into the " + kind.adjective.str() + " copy";
  return quoted(user) + " cannot read through a " + kind.noun.str();
}

void collectUses(Value value, AffineMap toSource, Kind kind, Uses &out) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user)) {
      if (std::optional<AffineMap> reshape = unitReshapeMap(user)) {
        out.reshapes.push_back(user);
        collectUses(user->getResult(0), toSource.compose(*reshape), kind, out);
        continue;
      }
      out.kept.push_back({&use, quoted(user) + " merges or splits " +
                                    kind.adjective.str() +
                                    " dimensions that are not 1"});
      continue;
    }
    if (std::optional<std::string> reason = whyNotReadable(use, kind))
      out.kept.push_back({&use, std::move(*reason)});
    else
      out.reads.push_back({&use, toSource});
  }
}

/// Whether `op`, a LinalgOp, passes its own verifier and reads its
/// operands through `maps`, its loop sizes following from its operands'
/// sizes. Diagnostics of the check are dropped. `op` is not in a block yet
/// (see buildReader): only the op's own invariants are checked, not the
/// dominance of the values its payload takes from above (a fused payload's
/// constants), which `mlir::verify` would reject for a detached op; the
/// payload itself is a copy of one that verified.
bool readsThrough(Operation *op, ArrayRef<AffineMap> maps) {
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  if (failed(op->getName().verifyInvariants(op)) ||
      failed(op->getName().verifyRegionInvariants(op)))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.getIndexingMapsArray() == maps &&
         static_cast<bool>(linalgOp.getShapesToLoopsMap());
}

/// A LinalgOp that reads `source` through `map` where `consumer` read the
/// copy, for each (operand number, source, map) of `replaced`; inserted right
/// before `consumer`, which is left alone. It is `consumer` with new maps
/// where the op takes them, else (when `generalize`) the `linalg.generic`
/// with `consumer`'s loops and payload. Returns null when neither reads as
/// asked. Each candidate is built and verified outside the function: a
/// verifier that rejects it prints it into its diagnostic, and an op in a
/// block is printed with every name of the whole module (quadratic over the
/// readers of a large model).
Operation *
buildReader(OpBuilder &b, linalg::LinalgOp consumer,
            ArrayRef<std::tuple<unsigned, Value, AffineMap>> replaced,
            bool generalize, bool &generalized) {
  Operation *op = consumer.getOperation();
  SmallVector<AffineMap> maps = consumer.getIndexingMapsArray();
  bool sameMaps = true;
  SmallVector<Value> operands(op->getOperands());
  for (auto [number, source, map] : replaced) {
    sameMaps &= maps[number] == map;
    maps[number] = map;
    operands[number] = source;
  }
  b.setInsertionPoint(op);
  Operation *clone = op->clone();
  clone->setOperands(operands);
  // The op's own maps, where it has them (the check below tells an
  // attribute the op ignores).
  if (!sameMaps)
    clone->setAttr("indexing_maps", b.getAffineMapArrayAttr(maps));
  if (readsThrough(clone, maps)) {
    generalized = false;
    return b.insert(clone);
  }
  clone->erase();
  if (!generalize || isa<linalg::GenericOp>(op))
    return nullptr;
  SmallVector<Value> inputs, inits;
  for (OpOperand *in : consumer.getDpsInputOperands())
    inputs.push_back(operands[in->getOperandNumber()]);
  for (OpOperand &init : consumer.getDpsInitsMutable())
    inits.push_back(operands[init.getOperandNumber()]);
  OpBuilder detached(op->getContext());
  auto generic = linalg::GenericOp::create(
      detached, op->getLoc(), op->getResultTypes(), inputs, inits, maps,
      consumer.getIteratorTypesArray());
  Region &body = generic.getRegion();
  detached.cloneRegionBefore(op->getRegion(0), body, body.end());
  if (readsThrough(generic, maps)) {
    generalized = true;
    return b.insert(generic);
  }
  generic->erase();
  return nullptr;
}

/// One folding run over the module.
class Folder {
public:
  Folder(Operation *root, const FoldTransposesOptions &options,
         FoldTransposesStats &stats, std::vector<RewriteRemark> &remarks)
      : root(root), rewriter(root->getContext()),
        generalize(options.generalize), withRemarks(options.remarks),
        stats(stats), remarks(remarks) {}

  void run() {
    root->walk([&](Operation *op) {
      if (tensorLayoutCopyMap(op))
        worklist.push_back(op);
    });
    for (size_t i = 0; i < worklist.size(); ++i) {
      Operation *copy = worklist[i];
      if (gone.contains(copy))
        continue;
      if (std::optional<AffineMap> map = tensorLayoutCopyMap(copy))
        fold(copy, *map);
    }
  }

private:
  void remark(Location loc, const std::string &message) {
    if (withRemarks)
      remarks.push_back({wrap(loc), message});
  }

  void erase(Operation *op) {
    gone.insert(op);
    rewriter.eraseOp(op);
  }

  void replace(Operation *op, Operation *with) {
    gone.insert(op);
    gone.erase(with);
    rewriter.replaceOp(op, with->getResults());
    if (tensorLayoutCopyMap(with))
      worklist.push_back(with);
  }

  /// Whether folding `reads` and keeping the copy for `kept` is worth it:
  /// the copy's life gets shorter (every kept use comes before every read)
  /// and the source's does not get longer (it lives anyway).
  bool worthPartial(Operation *copy, const Uses &uses) {
    Value source = copy->getOperand(0);
    bool livesAnyway = matchPattern(source, m_Constant());
    if (auto arg = dyn_cast<BlockArgument>(source))
      livesAnyway =
          isa_and_nonnull<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!livesAnyway)
      return false;
    Block *block = copy->getBlock();
    for (const Kept &k : uses.kept) {
      Operation *keptAt = block->findAncestorOpInBlock(*k.use->getOwner());
      for (const Read &r : uses.reads) {
        Operation *readAt = block->findAncestorOpInBlock(*r.use->getOwner());
        if (!keptAt || !readAt || !keptAt->isBeforeInBlock(readAt))
          return false;
      }
    }
    return true;
  }

  /// A `tensor.extract` of `source` at the indices `toSource` maps
  /// `extract`'s to, or null when an index needs a constant and the
  /// arith dialect is not loaded.
  Operation *buildExtract(tensor::ExtractOp extract, Value source,
                          AffineMap toSource) {
    rewriter.setInsertionPoint(extract);
    SmallVector<Value> indices;
    for (AffineExpr e : toSource.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e)) {
        indices.push_back(extract.getIndices()[dim.getPosition()]);
        continue;
      }
      auto constant = dyn_cast<AffineConstantExpr>(e);
      if (!constant ||
          !root->getContext()->getLoadedDialect<arith::ArithDialect>())
        return nullptr;
      indices.push_back(arith::ConstantIndexOp::create(
          rewriter, extract.getLoc(), constant.getValue()));
    }
    return tensor::ExtractOp::create(rewriter, extract.getLoc(), source,
                                     indices);
  }

  void fold(Operation *copy, AffineMap copyToSource) {
    Kind kind = kindOf(copyToSource);
    Value source = copy->getOperand(0);
    Uses uses;
    collectUses(copy->getResult(0), copyToSource, kind, uses);
    if (uses.reads.empty() && uses.kept.empty())
      return; // Dead code: not ours to erase.
    ++stats.candidates;
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] " << *copy << ": " << uses.reads.size()
               << " reads, " << uses.kept.size() << " kept\n");

    // Build every reader before changing anything: one per consumer op.
    llvm::MapVector<Operation *,
                    SmallVector<std::tuple<unsigned, Value, AffineMap>>>
        perConsumer;
    for (const Read &r : uses.reads) {
      Operation *user = r.use->getOwner();
      AffineMap map = r.toSource;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
        map = simplifyAffineMap(
            r.toSource.compose(linalgOp.getMatchingIndexingMap(r.use)));
      perConsumer[user].push_back({r.use->getOperandNumber(), source, map});
    }
    SmallVector<std::pair<Operation *, Operation *>> built;
    SmallVector<Operation *> generalizedOps;
    std::optional<std::string> unreadable;
    for (auto &[user, replaced] : perConsumer) {
      Operation *reader = nullptr;
      bool generalized = false;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
        reader =
            buildReader(rewriter, linalgOp, replaced, generalize, generalized);
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
        reader = buildExtract(extract, source, std::get<2>(replaced.front()));
      }
      if (!reader) {
        unreadable = quoted(user) + " cannot take the " + kind.adjective.str() +
                     " operand's indexing map" +
                     (generalize ? "" : " (generalize=false)");
        break;
      }
      built.push_back({user, reader});
      if (generalized)
        generalizedOps.push_back(reader);
    }
    auto dropBuilt = [&] {
      for (auto &[user, reader] : llvm::reverse(built))
        rewriter.eraseOp(reader);
    };
    if (unreadable) {
      dropBuilt();
      ++stats.keptUnreadable;
      remark(copy->getLoc(),
             "kept the " + kind.adjective.str() + " copy: " + *unreadable);
      return;
    }
    if (!uses.kept.empty() &&
        (uses.reads.empty() || !worthPartial(copy, uses))) {
      dropBuilt();
      const Kept &first = uses.kept.front();
      auto dps = dyn_cast<DestinationStyleOpInterface>(first.use->getOwner());
      if (dps && dps.isDpsInit(first.use))
        ++stats.keptWritten;
      else
        ++stats.keptUnreadable;
      std::string message =
          "kept the " + kind.adjective.str() + " copy: " + first.reason;
      if (!uses.reads.empty())
        message += "; folding its other " + std::to_string(uses.reads.size()) +
                   " read(s) would not shorten its life";
      remark(copy->getLoc(), message);
      return;
    }

    // Commit.
    for (Operation *g : generalizedOps) {
      ++stats.generalized;
      remark(g->getLoc(), "generalized to linalg.generic to read the " +
                              kind.adjective.str() + " operand where it lies");
    }
    for (auto &[user, reader] : built)
      replace(user, reader);
    stats.foldedReads += uses.reads.size();
    for (Operation *reshape : llvm::reverse(uses.reshapes))
      if (reshape->use_empty())
        erase(reshape);
    int64_t bytes = tensorBytes(copy->getResult(0).getType());
    std::string size =
        bytes ? " (" + std::to_string(bytes) + " bytes)" : std::string();
    if (!uses.kept.empty()) {
      ++stats.partial;
      remark(copy->getLoc(),
             "partly folded: " + std::to_string(uses.reads.size()) +
                 " read(s) now read the source where it lies; the " +
                 kind.adjective.str() + " copy" + size + " is kept for " +
                 quoted(uses.kept.front().use->getOwner()) +
                 ", which uses it before them");
      return;
    }
    ++stats.folded;
    stats.bytes += bytes;
    remark(copy->getLoc(),
           "folded: " + std::to_string(uses.reads.size()) +
               " read(s) now read the source where it lies; the " +
               kind.adjective.str() + " copy" + size + " is not stored");
    SmallVector<Operation *> feeding;
    for (Value operand : copy->getOperands())
      if (Operation *def = operand.getDefiningOp())
        feeding.push_back(def);
    erase(copy);
    // The copy's destination (a tensor.empty and the sizes it takes), now
    // unused.
    while (!feeding.empty()) {
      Operation *def = feeding.pop_back_val();
      if (gone.contains(def) || !isOpTriviallyDead(def))
        continue;
      for (Value operand : def->getOperands())
        if (Operation *d = operand.getDefiningOp())
          feeding.push_back(d);
      erase(def);
    }
  }

  Operation *root;
  IRRewriter rewriter;
  bool generalize;
  bool withRemarks;
  FoldTransposesStats &stats;
  std::vector<RewriteRemark> &remarks;
  std::vector<Operation *> worklist;
  llvm::DenseSet<Operation *> gone;
};

} // namespace

FoldTransposesStats foldTransposes(MlirOperation root,
                                   const FoldTransposesOptions &options,
                                   std::vector<RewriteRemark> &remarks) {
  FoldTransposesStats stats;
  Folder(unwrap(root), options, stats, remarks).run();
  return stats;
}

} // namespace memplan
