//===- CrashGuards.cpp - Inputs on which upstream's analysis crashes ------===//

#include "memplan/IR/CrashGuards.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::bufferization;
using mlir::bufferization::func_ext::FuncAnalysisState;

namespace memplan {

LogicalResult checkRecursiveDefinitions(Operation *scope,
                                        const OneShotAnalysisState &state,
                                        bool outsideFunctions) {
  // The ops checked: all of `scope`'s, or those outside functions.
  auto walkChecked = [&](function_ref<WalkResult(Operation *)> fn) {
    return scope->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (outsideFunctions && op != scope && isa<FunctionOpInterface>(op))
        return WalkResult::skip();
      return fn(op);
    });
  };
  // Chains loop only through block arguments or in graph regions (where
  // ops may use values defined after them).
  bool mayLoop = false;
  walkChecked([&](Operation *op) {
    for (Region &r : op->getRegions())
      mayLoop |= r.getBlocks().size() > 1;
    if (!mayLoop && llvm::any_of(op->getResultTypes(),
                                 [](Type t) { return isa<TensorType>(t); }))
      mayLoop =
          op->getParentRegion() && !mayHaveSSADominance(*op->getParentRegion());
    return WalkResult::advance();
  });
  if (!mayLoop)
    return success();
  const BufferizationOptions &options = state.getOptions();
  WalkResult walk =
      walkChecked([&](Operation *op) {
        auto bufferizable = options.dynCastBufferizableOp(op);
        if (!bufferizable)
          return WalkResult::advance();
        for (OpResult result : op->getOpResults()) {
          if (!isa<TensorType>(result.getType()))
            continue;
          AliasingOpOperandList aliases = state.getAliasingOpOperands(result);
          if (llvm::any_of(aliases, [&](AliasingOpOperand a) {
                return state.bufferizesToMemoryWrite(*a.opOperand);
              }))
            continue;
          // Upstream's reverse use-def chain walk from the aliasing operands.
          llvm::DenseSet<Value> visited;
          SmallVector<Value> work;
          for (AliasingOpOperand a : aliases)
            work.push_back(a.opOperand->get());
          while (!work.empty()) {
            Value v = work.pop_back_val();
            if (v == result) {
              op->emitError()
                  << "'" << op->getName()
                  << "' op: upstream One-Shot Analysis recurses without end "
                  << "(stack overflow) asking whether this result bufferizes "
                     "to a memory write: its "
                  << "reverse use-def chain loops back to it";
              return WalkResult::interrupt();
            }
            if (!visited.insert(v).second || !options.dynCastBufferizableOp(v))
              continue;
            for (AliasingOpOperand a : state.getAliasingOpOperands(v))
              work.push_back(a.opOperand->get());
          }
        }
        return WalkResult::advance();
      });
  return failure(walk.wasInterrupted());
}

LogicalResult checkCallBoundaries(Operation *scope,
                                  const FuncAnalysisState &funcState) {
  WalkResult walk = scope->walk([&](func::CallOp call) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee)
      return WalkResult::advance();
    auto aliasing = funcState.aliasingReturnVals.find(callee);
    auto equivalent = funcState.equivalentFuncArgs.find(callee);
    if (aliasing == funcState.aliasingReturnVals.end() ||
        equivalent == funcState.equivalentFuncArgs.end())
      return WalkResult::advance();
    for (OpOperand &operand : call->getOpOperands()) {
      int64_t k = operand.getOperandNumber();
      auto rets = aliasing->second.find(k);
      if (!isa<TensorType>(operand.get().getType()) ||
          rets == aliasing->second.end() || rets->second.size() != 1)
        continue;
      int64_t ret = rets->second.front();
      auto eq = equivalent->second.find(ret);
      if (eq == equivalent->second.end() || eq->second == k)
        continue;
      call.emitError() << "'func.call' op operand #" << k
                       << ": the callee's result #" << ret
                       << " aliases argument #" << k
                       << " but is equivalent to argument #" << eq->second
                       << "; upstream One-Shot Analysis aborts here "
                          "(assertion: inconsistent analysis state)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkNonBranchSuccessors(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    if (op->getNumSuccessors() == 0 || isa<BranchOpInterface>(op))
      return WalkResult::advance();
    if (llvm::none_of(op->getOperandTypes(),
                      [](Type t) { return isa<TensorType>(t); }))
      return WalkResult::advance();
    op->emitError() << "memplan-one-shot-bufferize: '" << op->getName()
                    << "' forwarding tensors to a block (unstructured control "
                       "flow) is not modeled: it is "
                    << "not a branch op (BranchOpInterface), which upstream's "
                       "bufferization asserts on";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkOwnershipDeallocationInput(Operation *func) {
  bool crashes = false;
  func->walk([&](RegionBranchOpInterface op) {
    if (!op->getNumRegions() || op->getNumResults() == 0)
      return;
    Block *block = op->getBlock();
    for (Value r : op->getResults()) {
      for (Operation *user : r.getUsers()) {
        if (block->findAncestorOpInBlock(*user))
          continue;
        op->emitError()
            << "upstream's ownership-based deallocation, which memplan leaves "
               "this function to, reads an erased result here: it replaces '"
            << op->getName()
            << "' and its liveness of the branch that ends the block still "
               "holds the old result, used in another block (MLIR 22: SIGSEGV "
               "in getMemrefsToRetain); memplan does not run it";
        crashes = true;
        return;
      }
    }
  });
  if (crashes)
    return failure();
  // Upstream's pass orders the buffers live across each branch
  // (ValueComparator, in getMemrefsToRetain): two block arguments at one
  // position of different blocks, or results of ops in different blocks of
  // one region, have no order there and it aborts (MLIR 22: assertions
  // `lhsRegion != rhsRegion` and isBeforeInBlock's).
  auto unordered = [](Value a, Value b) {
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    if (argA && argB)
      return argA.getArgNumber() == argB.getArgNumber() &&
             argA.getOwner() != argB.getOwner() &&
             argA.getParentRegion() == argB.getParentRegion();
    if (argA || argB)
      return false;
    Operation *opA = a.getDefiningOp(), *opB = b.getDefiningOp();
    return opA != opB && opA->getBlock() != opB->getBlock() &&
           opA->getParentRegion() == opB->getParentRegion();
  };
  std::optional<Liveness> liveness;
  func->walk([&](BranchOpInterface br) {
    if (crashes)
      return;
    Operation *op = br.getOperation();
    if (!liveness)
      liveness.emplace(func);
    Block *from = op->getBlock();
    for (Block *to : op->getSuccessors()) {
      SmallVector<Value> across;
      for (Value v : liveness->getLiveOut(from))
        if (isa<BaseMemRefType>(v.getType()) &&
            liveness->getLiveIn(to).contains(v))
          across.push_back(v);
      for (auto [i, a] : llvm::enumerate(across))
        for (Value b : ArrayRef<Value>(across).drop_front(i + 1))
          if (!crashes && unordered(a, b)) {
            InFlightDiagnostic diag =
                op->emitError()
                << "upstream's ownership-based deallocation, which memplan "
                   "leaves this function to, aborts here: it orders the "
                   "buffers live across this branch, and two of them have no "
                   "order there (MLIR 22: an assertion in ValueComparator or "
                   "isBeforeInBlock); "
                   "memplan does not run it";
            diag.attachNote(a.getLoc()) << "one is defined here";
            diag.attachNote(b.getLoc()) << "the other here";
            crashes = true;
          }
    }
  });
  return failure(crashes);
}

bool ValueBoundsGuard::hasSuccessorBlocks(Operation *isolated) {
  auto [it, inserted] = successorBlocks.try_emplace(isolated, false);
  if (inserted)
    it->second = isolated
                     ->walk([](Operation *op) {
                       for (Region &region : op->getRegions())
                         if (!region.empty() && !region.hasOneBlock())
                           return WalkResult::interrupt();
                       return WalkResult::advance();
                     })
                     .wasInterrupted();
  return it->second;
}

bool ValueBoundsGuard::canAsk(ArrayRef<Value> values) {
  SmallVector<Value> worklist(values.begin(), values.end());
  // Without a block other than an entry block under the values' isolated
  // ancestors, no traversal can reach one.
  if (llvm::all_of(values, [&](Value value) {
        Operation *isolated = value.getParentRegion()->getParentOp();
        while (isolated && !isolated->hasTrait<OpTrait::IsIsolatedFromAbove>())
          isolated = isolated->getParentOp();
        return isolated && !hasSuccessorBlocks(isolated);
      }))
    return true;
  llvm::DenseSet<Value> seenValues;
  llvm::DenseSet<Operation *> seenOps;
  auto enqueueOp = [&](Operation *op) {
    if (!seenOps.insert(op).second)
      return;
    op->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seenValues.insert(value).second)
      continue;
    if (Operation *def = value.getDefiningOp()) {
      enqueueOp(def);
      continue;
    }
    Block *owner = cast<BlockArgument>(value).getOwner();
    if (!owner->isEntryBlock())
      return false;
    Operation *parent = owner->getParentOp();
    if (parent && !parent->hasTrait<OpTrait::IsIsolatedFromAbove>())
      enqueueOp(parent);
  }
  return true;
}

} // namespace memplan
