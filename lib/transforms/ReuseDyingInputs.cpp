//===- ReuseDyingInputs.cpp - Elementwise results into dying inputs -------===//
//
// See include/memplan/transforms/Transforms.h. An elementwise op that writes a
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

#include "../analysis/AnalysisSteps.h"
#include "TensorQueries.h"
#include "memplan/analysis/InterfaceEngine.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

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
  Value input;
  bool kept = true;
};

/// Whether every buffer `v` may alias is one the program allocates in
/// straight-line code: its reverse use-def chain through aliasing operands
/// ends at allocations only (not at block arguments, not at values of ops
/// that are not bufferizable, such as constants), without passing through a
/// region-branch op.
bool ownsBuffer(Value v, bufferization::AnalysisState &state) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    auto result = dyn_cast<OpResult>(cur);
    // Block arguments are the caller's or a loop's buffers; results of
    // region-branch ops (scf.if, scf.for) take the layout that fits every
    // branch, which bufferization makes dynamic.
    if (!result || isa<RegionBranchOpInterface>(result.getOwner()))
      return false;
    auto bufferizable =
        dyn_cast<bufferization::BufferizableOpInterface>(result.getOwner());
    if (!bufferizable)
      return false;
    if (bufferizable.bufferizesToAllocation(result))
      continue;
    bufferization::AliasingOpOperandList aliasing =
        bufferizable.getAliasingOpOperands(result, state);
    if (aliasing.getNumAliases() == 0)
      return false;
    for (const bufferization::AliasingOpOperand &a : aliasing)
      work.push_back(a.opOperand->get());
  }
  return true;
}

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

/// The buffer type bufferization gives `v` (One-Shot's prediction, IR
/// untouched), or null.
Type bufferTypeOf(Value v, const bufferization::BufferizationOptions &options) {
  bufferization::BufferizationState state;
  FailureOr<bufferization::BufferLikeType> type =
      bufferization::getBufferType(v, options, state);
  return succeeded(type) ? Type(*type) : Type();
}

/// Whether `nested`, an op of a payload, can touch no buffer: it has scalar
/// operands and results and no regions, and either no memory effect or only
/// writes that name no value or symbol (`cf.assert`, which torch-mlir puts
/// in the payloads it fuses: a write to the program's state, its abort).
/// Without a buffer operand it cannot name the buffer the op writes, so
/// which buffer that is does not change what it does; a read of memory it
/// does not name could see the input being overwritten, and is not allowed.
bool touchesNoBuffer(Operation *nested) {
  auto scalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
  if (nested->getNumRegions() != 0 ||
      !llvm::all_of(nested->getOperandTypes(), scalar) ||
      !llvm::all_of(nested->getResultTypes(), scalar))
    return false;
  if (isMemoryEffectFree(nested))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) && !e.getValue() &&
           !e.getSymbolRef();
  });
}

/// Upstream's `linalg::isElementwise` (all loops parallel, projected
/// permutation maps, permutations for the results, a payload of scalar
/// elementwise ops), or the same shape with a payload whose ops touch no
/// buffer (touchesNoBuffer): fused payloads that keep the importer's
/// checks are elementwise too.
bool isElementwiseWithChecks(linalg::LinalgOp op) {
  if (linalg::isElementwise(op))
    return true;
  if (op.getNumLoops() != op.getNumParallelLoops() ||
      !linalg::allIndexingsAreProjectedPermutation(op) ||
      op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isPermutation())
      return false;
  return llvm::all_of(
      op->getRegion(0).front().without_terminator(),
      [](Operation &nested) { return touchesNoBuffer(&nested); });
}

/// The rewrite for `op`, if it has a candidate. The input must bufferize to
/// the buffer type the destination would have had: otherwise the result's
/// buffer changes layout, and its users (a function return with identity
/// layouts, say) would copy.
std::optional<Rewrite>
candidateFor(linalg::LinalgOp op,
             const bufferization::BufferizationOptions &options,
             bufferization::AnalysisState &state) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !isElementwiseWithChecks(op))
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.payloadUsesValueFromOperand(init) ||
      !isFreshDestination(init->get().getDefiningOp()))
    return std::nullopt;
  AffineMap initMap = op.getMatchingIndexingMap(init);
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value v = input->get();
    if (v.getType() != init->get().getType() ||
        op.getMatchingIndexingMap(input) != initMap)
      continue;
    if (!lastUseIs(v, op) || !ownsBuffer(v, state))
      continue;
    Type want = bufferTypeOf(init->get(), options);
    if (!want || bufferTypeOf(v, options) != want)
      continue;
    return Rewrite{op, init->getOperandNumber(), init->get(), v};
  }
  return std::nullopt;
}

/// In-place decisions of the module, keyed by (pre-order op id, operand).
using Decisions = llvm::DenseMap<std::pair<int32_t, int32_t>, bool>;

std::optional<Decisions>
analyze(Operation *root, bool functionBoundaries,
        std::vector<std::pair<int32_t, int32_t>> deferred = {}) {
  EngineResult result =
      analyzeQuietly(root, functionBoundaries, std::move(deferred));
  if (!result.ok)
    return std::nullopt;
  Decisions out;
  for (const EngineDecision &d : result.decisions)
    out[{d.op, d.operand}] = d.inPlace;
  return out;
}

} // namespace

DyingInputStats reuseDyingInputs(MlirOperation rootHandle,
                                 bool functionBoundaries) {
  Operation *root = unwrap(rootHandle);
  DyingInputStats stats;
  SmallVector<Rewrite> rewrites;
  std::vector<std::string> funcFilter;
  bufferization::OneShotBufferizationOptions options = makeBufferizeOptions(
      {{"bufferize-function-boundaries", functionBoundaries},
       {"function-boundary-type-conversion",
        std::string("identity-layout-map")}},
      funcFilter);
  QueryState query(root);
  root->walk([&](linalg::LinalgOp op) {
    if (std::optional<Rewrite> r = candidateFor(op, options, query.get()))
      rewrites.push_back(*r);
  });
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
  setAll(true);
  // The rewritten operands are decided after every other operand: a rewrite
  // is then in place only where that costs no other operand its in-place
  // decision, so one that would (writing a slice whose sibling is read
  // later, say) is dropped alone and the others stay. Until decided, a
  // rewritten operand is out of place (its own buffer, not read), as the
  // fresh destination was, so the others get the decisions of the module as
  // it was; the rounds below confirm that on the module as bufferization
  // will analyze it.
  std::vector<std::pair<int32_t, int32_t>> deferred;
  for (Rewrite &r : rewrites)
    deferred.push_back({opId[r.op], static_cast<int32_t>(r.initOperand)});
  if (std::optional<Decisions> last =
          analyze(root, functionBoundaries, std::move(deferred))) {
    for (Rewrite &r : rewrites) {
      auto it = last->find({opId[r.op], static_cast<int32_t>(r.initOperand)});
      if (it != last->end() && it->second)
        continue;
      LLVM_DEBUG(llvm::dbgs() << "dropped: " << *r.op << "\n");
      r.op->setOperand(r.initOperand, r.destination);
      r.kept = false;
    }
  }
  // The decisions of the module as it was are needed only when the
  // rewritten one has an operand out of place that no rewrite touched (rare
  // in programs a compiler emits): it may have been out of place before.
  std::optional<Decisions> before;
  auto beforeDecisions = [&]() -> std::optional<Decisions> & {
    if (!before) {
      setAll(false);
      before = analyze(root, functionBoundaries);
      setAll(true);
    }
    return before;
  };
  // Undo what the analysis does not bufferize in place; when other operands
  // lose their in-place decision too, undo every rewrite of their function
  // (then, as a last resort, all of them).
  for (int round = 0;; ++round) {
    std::optional<Decisions> after = analyze(root, functionBoundaries);
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
  for (Operation *dest : unused)
    dest->erase();
  return stats;
}

} // namespace memplan
