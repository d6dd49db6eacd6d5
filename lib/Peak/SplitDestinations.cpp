//===- SplitDestinations.cpp - One fresh destination per use --------------===//
//
// See include/memplan/Peak/Transforms.h. Importers that CSE
// `tensor.empty` (torch-mlir's FX importer does) hand one destination to the
// same op in every layer; upstream bufferization then allocates one buffer
// where the first destination stood and keeps it live until the last layer.
// Giving each use its own destination, placed right before the op that writes
// it, lets bufferization allocate each buffer where its contents start.
//
// Elementwise fusion's reshape propagation hides such a destination behind a
// view: `tensor.expand_shape` of a shared `tensor.empty` is the destination of
// the same op in every layer. A view that neither reads nor writes its source
// and is equivalent to it (BufferizableOpInterface) holds undefined contents
// too, so it first becomes a `tensor.empty` of its own type (sized as it
// reifies its result: ReifyRankedShapedTypeOpInterface), which is then split
// like any other.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "UseAnchors.h"
#include "memplan/Peak/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-split-destinations"

using namespace mlir;

namespace memplan {
namespace {

/// The `tensor.empty` that `op` is a view of, when `op` is a view of one
/// (see the file comment): side-effect free, one ranked tensor result, one
/// tensor operand defined by a `tensor.empty`, which it neither reads nor
/// writes and whose buffer its result is, no use of the empty reading its
/// contents.
tensor::EmptyOp emptyViewed(Operation *op,
                            const bufferization::AnalysisState &state) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !isMemoryEffectFree(op))
    return nullptr;
  OpOperand *source = nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<TensorType>(operand.get().getType()))
      continue;
    if (source)
      return nullptr;
    source = &operand;
  }
  auto empty = source ? source->get().getDefiningOp<tensor::EmptyOp>()
                      : tensor::EmptyOp();
  auto view = dyn_cast<bufferization::BufferizableOpInterface>(op);
  if (!empty || !isFreshDestination(empty) || !view ||
      view.bufferizesToMemoryRead(*source, state) ||
      view.bufferizesToMemoryWrite(*source, state))
    return nullptr;
  bufferization::AliasingValueList aliases =
      view.getAliasingValues(*source, state);
  if (aliases.getNumAliases() != 1 ||
      aliases.getAliases().front().value != op->getResult(0) ||
      aliases.getAliases().front().relation !=
          bufferization::BufferRelation::Equivalent)
    return nullptr;
  // A use that reads the empty's undefined contents, through any view, keeps
  // it whole (as splitDestinations keeps such a destination shared); asked
  // last, since it walks the empty's uses.
  if (contentsRead(empty.getResult(), state))
    return nullptr;
  return empty;
}

/// Replaces `view` (emptyViewed) by a `tensor.empty` of its result type,
/// sized as the view reifies its result; fails, the IR as it was, when a
/// dynamic size is not a value.
LogicalResult replaceByEmpty(Operation *view) {
  IRRewriter rewriter(view);
  auto type = cast<RankedTensorType>(view->getResult(0).getType());
  SmallVector<Value> sizes;
  if (!type.hasStaticShape()) {
    // Reifying may build ops (a size computed from the source's); they are
    // erased again when a size cannot be used.
    SmallVector<Operation *> built;
    struct Recorder : OpBuilder::Listener {
      SmallVector<Operation *> &built;
      explicit Recorder(SmallVector<Operation *> &built) : built(built) {}
      void notifyOperationInserted(Operation *op,
                                   OpBuilder::InsertPoint) override {
        built.push_back(op);
      }
    } recorder(built);
    rewriter.setListener(&recorder);
    ReifiedRankedShapedTypeDims shapes;
    bool ok = succeeded(reifyResultShapes(rewriter, view, shapes));
    rewriter.setListener(nullptr);
    for (int64_t d = 0; ok && d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      auto size = dyn_cast<Value>(shapes[0][d]);
      ok = static_cast<bool>(size);
      if (ok)
        sizes.push_back(size);
    }
    if (!ok) {
      for (Operation *op : llvm::reverse(built))
        if (op->use_empty())
          rewriter.eraseOp(op);
      return failure();
    }
  }
  auto fresh = tensor::EmptyOp::create(rewriter, view->getLoc(), type, sizes);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << *view << " -> " << fresh
                          << "\n");
  rewriter.replaceOp(view, fresh.getResult());
  return success();
}

} // namespace

SplitDestinationsStats splitDestinations(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  SplitDestinationsStats stats;
  QueryState query(root);
  // Every op that may be a view, in walk order: a view's source comes
  // first, so a view of a view of an empty finds an empty when its turn
  // comes.
  SmallVector<Operation *> views;
  root->walk([&](Operation *op) {
    if (op->getNumRegions() == 0 && op->getNumOperands() != 0 &&
        op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()))
      views.push_back(op);
  });
  for (Operation *view : views) {
    tensor::EmptyOp empty = emptyViewed(view, query.get());
    if (!empty || failed(replaceByEmpty(view)))
      continue;
    ++stats.viewsAsDestinations;
    if (empty->use_empty())
      empty->erase();
  }
  SmallVector<Operation *> destinations;
  root->walk([&](Operation *op) {
    if (isFreshDestination(op))
      destinations.push_back(op);
  });
  for (Operation *dest : destinations) {
    Block *block = dest->getBlock();
    Value result = dest->getResult(0);
    SmallVector<OpOperand *> unanchored;
    SmallVector<UseAnchor> anchors = useAnchors(result, block, unanchored);
    if (anchors.empty())
      continue;
    if (anchors.size() == 1) {
      Operation *at = anchors.front().op;
      if (at != dest && dest->getNextNode() != at) {
        dest->moveBefore(at);
        ++stats.sunk;
      }
      continue;
    }
    // Only where no use reads the destination, directly or through a view
    // (a cast, a reshape): reading a tensor.empty is undefined, but
    // bufferization would hand such a read what another use wrote into the
    // shared buffer, and a program relying on that keeps it.
    if (contentsRead(result, query.get())) {
      ++stats.keptRead;
      continue;
    }
    // Every op holding uses gets its own clone right before it, located at
    // the op it is the destination of (which is what the buffer will hold).
    // The uses one op holds share theirs: a loop or a branch gets one
    // destination before it, as upstream's bufferization allocates it, not
    // one per nested use (each held on every path, the loop's zero-trip one
    // included).
    OpBuilder builder(dest->getContext());
    for (const UseAnchor &anchor : anchors) {
      builder.setInsertionPoint(anchor.op);
      Operation *clone = builder.clone(*dest);
      clone->setLoc(anchor.uses.front()->getOwner()->getLoc());
      redirectUses(anchor, clone->getResult(0));
      ++stats.split;
    }
    if (result.use_empty())
      dest->erase();
  }
  return stats;
}

} // namespace memplan
