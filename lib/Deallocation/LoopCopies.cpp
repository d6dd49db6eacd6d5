//===- LoopCopies.cpp - A loop's copied init, made where it runs ----------===//
//
// See LoopCopies.h: the legality conditions and why the rewrite keeps every
// result the same.
//
//===----------------------------------------------------------------------===//

#include "LoopCopies.h"

#include "memplan/Deallocation/HeapAllocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-loop-copies"

using namespace mlir;

namespace memplan {
namespace {

bool isMemref(Value v) { return isa<BaseMemRefType>(v.getType()); }

/// `op`'s one memory effect is a heap allocation of its one result.
bool isHeapAllocation(Operation *op) {
  auto iface = dyn_cast_if_present<MemoryEffectOpInterface>(op);
  if (!iface || op->getNumResults() != 1 || op->getNumRegions())
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return effects.size() == 1 &&
         allocationOf(effects, op->getResult(0)) == ResultAllocation::Heap;
}

/// The buffer `v` points into: a heap allocation or an argument of
/// `func`'s entry block, reached back through views (ViewLikeOpInterface)
/// and casts (CastOpInterface, one memref operand); null for anything else.
Value rootOf(Value v, FunctionOpInterface func) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &func.getFunctionBody().front() ? v : Value();
    Operation *def = v.getDefiningOp();
    if (isHeapAllocation(def))
      return v;
    if (def->getNumResults() != 1)
      return Value();
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (isa<CastOpInterface>(def) && def->getNumOperands() == 1 &&
        isMemref(def->getOperand(0))) {
      v = def->getOperand(0);
      continue;
    }
    return Value();
  }
}

/// Every value that may point into the buffer of one of `from` (more, never
/// fewer): `from`, and transitively every result of an op using one, every
/// argument of the blocks of its regions and of its successors, and, for a
/// terminator in a region of an op other than the function, every result
/// and region argument of that op; all but integers, indices and floats (a
/// tensor made of a buffer, a pointer, an aggregate may hold it).
llvm::SetVector<Value> mayAlias(ArrayRef<Value> from) {
  llvm::SetVector<Value> out;
  SmallVector<Value> work;
  auto add = [&](Value v) {
    if (!v.getType().isIntOrIndexOrFloat() && out.insert(v))
      work.push_back(v);
  };
  auto addArguments = [&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          add(arg);
  };
  for (Value v : from)
    add(v);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *op : v.getUsers()) {
      for (Value r : op->getResults())
        add(r);
      addArguments(op);
      for (Block *successor : op->getSuccessors())
        for (BlockArgument arg : successor->getArguments())
          add(arg);
      Operation *parent = op->getParentOp();
      if (op->hasTrait<OpTrait::IsTerminator>() && parent &&
          !isa<FunctionOpInterface>(parent)) {
        for (Value r : parent->getResults())
          add(r);
        addArguments(parent);
      }
    }
  }
  return out;
}

/// `op` may write or free one of `values` (or memory it does not name), or
/// its effects are unknown. Ops with recursive effects have none of their
/// own: the ops in their regions use what they see themselves.
bool mayChange(Operation *op, const llvm::SetVector<Value> &values) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [&](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
      return false;
    Value target = e.getValue();
    return !target || values.contains(target);
  });
}

/// `copy` is the op bufferization makes to copy `from` into `to`
/// (BufferizationOptions::createMemCpy, built here and compared).
bool isBufferizationCopy(Operation *copy, Value from, Value to) {
  Block scratch;
  OpBuilder b(copy->getContext());
  b.setInsertionPointToEnd(&scratch);
  bufferization::BufferizationOptions options;
  bool same =
      succeeded(options.createMemCpy(b, copy->getLoc(), from, to)) &&
      scratch.getOperations().size() == 1 &&
      OperationEquivalence::isEquivalentTo(
          &scratch.front(), copy, OperationEquivalence::IgnoreLocations);
  while (!scratch.empty())
    scratch.back().erase();
  return same;
}

/// A copy before a loop that may be made where the loop runs only.
struct Candidate {
  Operation *alloc = nullptr;
  Operation *copy = nullptr;
  LoopLikeOpInterface loop;
  OpFoldResult lower, upper;
  Value source;
};

/// The blocks of `block`'s region that branches may reach from it.
DenseSet<Block *> reachableFrom(Block *block) {
  DenseSet<Block *> seen;
  SmallVector<Block *> work(block->getSuccessors().begin(),
                            block->getSuccessors().end());
  while (!work.empty()) {
    Block *b = work.pop_back_val();
    if (seen.insert(b).second)
      work.append(b->getSuccessors().begin(), b->getSuccessors().end());
  }
  return seen;
}

/// The candidate whose allocation is `alloc`, when the conditions of
/// LoopCopies.h hold.
std::optional<Candidate> match(Operation *alloc) {
  if (!isHeapAllocation(alloc))
    return std::nullopt;
  Value buffer = alloc->getResult(0);
  Block *block = alloc->getBlock();
  auto func = dyn_cast_if_present<FunctionOpInterface>(block->getParentOp());
  if (!func || LoopLikeOpInterface::blockIsInLoop(block))
    return std::nullopt;
  // Two uses: the copy into it and one init of the loop, later in the
  // block, in that order.
  Candidate c;
  c.alloc = alloc;
  OpOperand *init = nullptr;
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    auto loop = dyn_cast<LoopLikeOpInterface>(user);
    if (loop && !init &&
        llvm::any_of(loop.getInitsMutable(),
                     [&](OpOperand &operand) { return &operand == &use; })) {
      init = &use;
      c.loop = loop;
    } else if (!c.copy && user->getNumOperands() == 2 &&
               user->getOperand(1) == buffer) {
      c.copy = user;
      c.source = user->getOperand(0);
    } else {
      return std::nullopt;
    }
  }
  if (!init || !c.copy || c.copy->getBlock() != block ||
      c.loop->getBlock() != block || !c.copy->isBeforeInBlock(c.loop) ||
      c.source.getType() != buffer.getType() ||
      !isBufferizationCopy(c.copy, c.source, buffer))
    return std::nullopt;
  // The bounds: one induction variable counting up from the lower bound by
  // a constant positive step, trip count not known to be positive.
  std::optional<Value> iv = c.loop.getSingleInductionVar();
  std::optional<OpFoldResult> lower = c.loop.getSingleLowerBound();
  std::optional<OpFoldResult> upper = c.loop.getSingleUpperBound();
  std::optional<OpFoldResult> step = c.loop.getSingleStep();
  if (!iv || !lower || !upper || !step ||
      !isa<IntegerType, IndexType>(iv->getType()))
    return std::nullopt;
  std::optional<int64_t> stepValue = getConstantIntValue(*step);
  std::optional<APInt> trips = c.loop.getStaticTripCount();
  if (!stepValue || *stepValue <= 0 || (trips && !trips->isZero()))
    return std::nullopt;
  c.lower = *lower;
  c.upper = *upper;
  // Nothing that may run after the copy, outside the loop, writes or frees
  // the source's buffer or the loop's results.
  Value root = rootOf(c.source, func);
  if (!root)
    return std::nullopt;
  SmallVector<Value> from{root};
  llvm::append_range(from, c.loop->getResults());
  llvm::SetVector<Value> aliases = mayAlias(from);
  DenseSet<Block *> after = reachableFrom(block);
  Region *body = block->getParent();
  for (Value v : aliases)
    for (Operation *user : v.getUsers()) {
      Operation *at = body->findAncestorOpInRegion(*user);
      if (!at)
        return std::nullopt;
      if (at == c.copy || at == c.loop.getOperation() ||
          (at->getBlock() == block && at->isBeforeInBlock(c.copy)) ||
          (at->getBlock() != block && !after.contains(at->getBlock())))
        continue;
      if (mayChange(user, aliases)) {
        LLVM_DEBUG(llvm::dbgs() << "kept: " << *user << "\n");
        return std::nullopt;
      }
    }
  return c;
}

/// `bound` as a value of `type` before `b`'s insertion point.
Value materialize(OpBuilder &b, Location loc, OpFoldResult bound, Type type) {
  if (auto v = dyn_cast<Value>(bound))
    return v;
  auto attr = cast<IntegerAttr>(cast<Attribute>(bound));
  return arith::ConstantOp::create(
      b, loc, type, IntegerAttr::get(type, attr.getValue().getSExtValue()));
}

/// The allocation and the copy in an scf.if on `lower < upper` (signed or
/// unsigned) right before the loop; the source itself in its else branch.
void rewrite(Candidate &c) {
  OpBuilder b(c.loop);
  Location loc = c.loop->getLoc();
  Type type = c.loop.getSingleInductionVar()->getType();
  Value lower = materialize(b, loc, c.lower, type);
  Value upper = materialize(b, loc, c.upper, type);
  Value signedLess =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lower, upper);
  Value unsignedLess =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lower, upper);
  Value runs = arith::OrIOp::create(b, loc, signedLess, unsignedLess);
  Value buffer = c.alloc->getResult(0);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{buffer.getType()}, runs,
                                /*withElseRegion=*/true);
  OpBuilder inner = ifOp.getThenBodyBuilder();
  auto yield = scf::YieldOp::create(inner, loc, buffer);
  c.alloc->moveBefore(yield);
  c.copy->moveBefore(yield);
  inner = ifOp.getElseBodyBuilder();
  scf::YieldOp::create(inner, loc, c.source);
  buffer.replaceUsesWithIf(ifOp.getResult(0), [&](OpOperand &use) {
    return use.getOwner() == c.loop.getOperation();
  });
}

} // namespace

int64_t copyWhereLoopsRun(Operation *root) {
  SmallVector<Operation *> allocs;
  root->walk([&](Operation *op) {
    if (isHeapAllocation(op))
      allocs.push_back(op);
  });
  int64_t moved = 0;
  for (Operation *alloc : allocs)
    if (std::optional<Candidate> c = match(alloc)) {
      LLVM_DEBUG(llvm::dbgs()
                 << "copy made where the loop runs: " << *alloc << "\n");
      rewrite(*c);
      ++moved;
    }
  return moved;
}

} // namespace memplan
