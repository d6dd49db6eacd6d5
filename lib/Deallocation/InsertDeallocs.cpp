//===- InsertDeallocs.cpp - Apply memplan's ownership plan ----------------===//
//
// See include/memplan/Deallocation/Deallocation.h. Which buffer is freed where,
// which merges carry a run-time flag and which returns copy come from the
// ownership analysis (memplan/Deallocation/Ownership.h); this builds the ops:
// flags appended to block arguments, region-op results and region
// arguments, terminator and branch operands (upstream's convention: after
// the values they follow), copies at returns, frees (under an scf.if on the
// flag where ownership is dynamic), and split edges for frees on one edge
// of a branch.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/Deallocation.h"
#include "memplan/Deallocation/Ownership.h"

#include "ApplyPlan.h"
#include "LoopCopies.h"

#include "memplan/IR/CrashGuards.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/Debug.h"

#include <map>

#define DEBUG_TYPE "memplan-insert-deallocs"

using namespace mlir;

namespace memplan {
namespace {

bool isMemrefType(Type t) { return isa<BaseMemRefType>(t); }

/// A copy of `op` with result types `types`, inserted before it, that takes
/// over its operands, attributes, successors and regions' bodies; `op` is
/// left for the caller to replace and erase.
Operation *recreateWithResultTypes(Operation *op, TypeRange types) {
  Operation *fresh =
      Operation::create(op->getLoc(), op->getName(), types, op->getOperands(),
                        op->getAttrDictionary(), op->getPropertiesStorage(),
                        op->getSuccessors(), op->getNumRegions());
  for (auto [from, to] : llvm::zip(op->getRegions(), fresh->getRegions()))
    to.takeBody(from);
  OpBuilder(op).insert(fresh);
  return fresh;
}

class PlanRewriter {
public:
  PlanRewriter(FunctionPlan &plan, DeallocationStats &stats)
      : plan(plan), stats(stats), builder(plan.func->getContext()) {}

  void run();

private:
  /// The flags of owning selects that may select what they do not own.
  void appendSelectFlags();
  /// Per owning select with a flag: the op that computes it.
  DenseMap<Operation *, Operation *> afterSelect;
  Value constant(Block *block, bool value);
  Value resolve(Value v) const {
    auto it = replaced.find(v);
    return it == replaced.end() ? v : it->second;
  }
  Operation *resolve(Operation *op) const {
    auto it = replacedOps.find(op);
    return it == replacedOps.end() ? op : it->second;
  }
  Value flagOf(int32_t handle) const {
    return flags.lookup(resolve(plan.handles[handle]));
  }
  /// The flag values of `list` for an operand list in `block`.
  SmallVector<Value> flagValues(const FunctionPlan::FlagList &list,
                                Block *block);
  void appendBlockFlags();
  void appendRegionOpFlags();
  void appendBranchFlags();
  void copyReturns();
  void insertFrees();
  Operation *free(OpBuilder &b, Location loc, int32_t handle);
  /// `memref.dealloc v` under `scf.if cond`.
  Operation *freeIf(OpBuilder &b, Location loc, Value cond, Value v);

  FunctionPlan &plan;
  DeallocationStats &stats;
  OpBuilder builder;
  DenseMap<Block *, std::pair<Value, Value>> constants;
  DenseMap<Value, Value> flags;
  DenseMap<Value, Value> replaced;
  DenseMap<Operation *, Operation *> replacedOps;
  /// The flag lists by the op whose operands they extend.
  DenseMap<Operation *, SmallVector<const FunctionPlan::FlagList *, 1>> lists;
  /// Per (return, handle) of a ReturnCopy::takeOver: whether one of the
  /// return's positions handed the buffer to the caller.
  DenseMap<std::pair<Operation *, int32_t>, Value> takenAtReturn;
  /// Whether the return hands `v` to the caller as is: `owned` (its own
  /// flag, or null), or, for each handle of `takeOver`, `v` is that buffer,
  /// owned here and not taken by an earlier position.
  Value handedAsIs(Operation *ret, Value v, Value owned,
                   ArrayRef<int32_t> takeOver);
};

Value PlanRewriter::constant(Block *block, bool value) {
  auto &[f, t] = constants[block];
  Value &slot = value ? t : f;
  if (!slot) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(block);
    slot = arith::ConstantOp::create(builder, plan.func->getLoc(),
                                     builder.getBoolAttr(value));
  }
  return slot;
}

SmallVector<Value> PlanRewriter::flagValues(const FunctionPlan::FlagList &list,
                                            Block *block) {
  SmallVector<Value> values;
  for (const FunctionPlan::Incoming &in : list.flags) {
    if (in.handle < 0 || in.ownership == Ownership::No)
      values.push_back(constant(block, false));
    else if (in.ownership == Ownership::Yes)
      values.push_back(constant(block, true));
    else
      values.push_back(flagOf(in.handle));
  }
  return values;
}

void PlanRewriter::appendSelectFlags() {
  // Right after the select: it selected one of the buffers it took over.
  for (const FunctionPlan::SelectFlag &sf : plan.selectFlags) {
    Value select = plan.handles[sf.select];
    Location loc = select.getLoc();
    // After the flags of the op's other results that took buffers over.
    if (Operation *prev = afterSelect.lookup(select.getDefiningOp()))
      builder.setInsertionPointAfter(prev);
    else
      builder.setInsertionPointAfterValue(select);
    Value selected =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, select);
    Value flag;
    for (int32_t t : sf.taken) {
      Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(
          builder, loc, plan.handles[t]);
      Value same = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         ptr, selected);
      flag = flag ? arith::OrIOp::create(builder, loc, flag, same) : same;
    }
    flags[select] = flag;
    // The frees of what it did not select go after its flag.
    afterSelect[select.getDefiningOp()] = flag.getDefiningOp();
    ++stats.flags;
  }
}

void PlanRewriter::appendBlockFlags() {
  // Block arguments in argument order, one i1 each.
  std::map<std::pair<Block *, unsigned>, BlockArgument> args;
  for (Value v : plan.flagged)
    if (auto arg = dyn_cast<BlockArgument>(v))
      args[{arg.getOwner(), arg.getArgNumber()}] = arg;
  for (auto &[key, arg] : args) {
    Block *block = key.first;
    flags[arg] = block->addArgument(builder.getI1Type(), arg.getLoc());
    ++stats.flags;
  }
}

void PlanRewriter::appendRegionOpFlags() {
  SmallVector<Operation *> regionOps;
  plan.func->walk<WalkOrder::PostOrder>([&](RegionBranchOpInterface op) {
    if (op->getNumRegions() && op.getOperation() != plan.func)
      regionOps.push_back(op);
  });
  for (Operation *op : regionOps) {
    // The terminators of its regions.
    for (Region &region : op->getRegions()) {
      for (Block &block : region) {
        Operation *term = block.getTerminator();
        auto terminator =
            dyn_cast_or_null<RegionBranchTerminatorOpInterface>(term);
        if (!terminator)
          continue;
        for (const FunctionPlan::FlagList *list : lists.lookup(term)) {
          SmallVector<RegionSuccessor> succs;
          SmallVector<Attribute> none(term->getNumOperands());
          terminator.getSuccessorRegions(none, succs);
          if (succs.empty())
            continue;
          SmallVector<Value> values = flagValues(*list, &block);
          terminator.getMutableSuccessorOperands(succs.front()).append(values);
        }
      }
    }
    // Its entry operands: regions never take ownership from the parent.
    for (const FunctionPlan::FlagList *list : lists.lookup(op))
      if (list->entry)
        op->insertOperands(op->getNumOperands(),
                           flagValues(*list, op->getBlock()));
    // Its results.
    SmallVector<OpResult> flaggedResults;
    for (OpResult r : op->getResults())
      if (plan.flagged.contains(r))
        flaggedResults.push_back(r);
    if (flaggedResults.empty())
      continue;
    SmallVector<Type> types(op->getResultTypes());
    types.append(flaggedResults.size(), builder.getI1Type());
    Operation *fresh = recreateWithResultTypes(op, types);
    for (auto [k, r] : llvm::enumerate(op->getResults())) {
      replaced[r] = fresh->getResult(k);
      // A result that took buffers over keeps its select flag.
      if (Value flag = flags.lookup(r))
        flags[fresh->getResult(k)] = flag;
    }
    if (Operation *flagOp = afterSelect.lookup(op)) {
      afterSelect.erase(op);
      afterSelect[fresh] = flagOp;
    }
    for (auto [k, r] : llvm::enumerate(flaggedResults)) {
      Value flag = fresh->getResult(op->getNumResults() + k);
      flags[fresh->getResult(r.getResultNumber())] = flag;
      ++stats.flags;
    }
    op->replaceAllUsesWith(fresh->getResults().take_front(op->getNumResults()));
    replacedOps[op] = fresh;
    // The plan's lists keyed on the old op.
    if (auto it = lists.find(op); it != lists.end()) {
      auto moved = it->second;
      lists.erase(it);
      lists[fresh] = moved;
    }
    op->erase();
  }
}

void PlanRewriter::appendBranchFlags() {
  for (FunctionPlan::FlagList &list : plan.flagLists) {
    if (list.successor < 0)
      continue;
    auto br = cast<BranchOpInterface>(list.op);
    SmallVector<Value> values = flagValues(list, list.op->getBlock());
    br.getSuccessorOperands(list.successor).append(values);
  }
}

void PlanRewriter::copyReturns() {
  for (const FunctionPlan::ReturnCopy &copy : plan.returnCopies) {
    Operation *ret = copy.ret;
    if (copy.sameAs >= 0) {
      // The copy made for the same value at an earlier position.
      Value prior = ret->getOperand(copy.sameAs);
      Type type = ret->getOperand(copy.operand).getType();
      if (prior.getType() != type) {
        builder.setInsertionPoint(ret);
        prior = memref::CastOp::create(builder, prior.getLoc(), type, prior);
      }
      ret->setOperand(copy.operand, prior);
      continue;
    }
    Value v = ret->getOperand(copy.operand);
    builder.setInsertionPoint(ret);
    Location loc = v.getLoc();
    Value result;
    Value flag =
        handedAsIs(ret, v, copy.conditional ? flagOf(copy.handle) : Value(),
                   copy.takeOver);
    if (flag) {
      auto ifOp = scf::IfOp::create(builder, loc, TypeRange{v.getType()}, flag,
                                    /*withElseRegion=*/true);
      OpBuilder inner = ifOp.getThenBodyBuilder();
      scf::YieldOp::create(inner, loc, v);
      inner = ifOp.getElseBodyBuilder();
      Value clone = bufferization::CloneOp::create(inner, loc, v);
      scf::YieldOp::create(inner, loc, clone);
      result = ifOp.getResult(0);
    } else {
      result = bufferization::CloneOp::create(builder, loc, v);
    }
    ret->setOperand(copy.operand, result);
    ++stats.copies;
  }
}

Value PlanRewriter::handedAsIs(Operation *ret, Value v, Value owned,
                               ArrayRef<int32_t> takeOver) {
  if (takeOver.empty())
    return owned;
  Location loc = v.getLoc();
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, v);
  Value asIs = owned;
  for (int32_t h : takeOver) {
    Value buffer = resolve(plan.handles[h]);
    Value other =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value same = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       other, ptr);
    if (plan.ownership[h] == Ownership::Dynamic)
      same = arith::AndIOp::create(builder, loc, same, flagOf(h));
    Value &taken = takenAtReturn[{ret, h}];
    if (taken) {
      Value notYet = arith::XOrIOp::create(builder, loc, taken,
                                           constant(ret->getBlock(), true));
      same = arith::AndIOp::create(builder, loc, same, notYet);
      taken = arith::OrIOp::create(builder, loc, taken, same);
    } else {
      taken = same;
    }
    asIs = asIs ? arith::OrIOp::create(builder, loc, asIs, same) : same;
    ++stats.handedOver;
  }
  return asIs;
}

Operation *PlanRewriter::freeIf(OpBuilder &b, Location loc, Value cond,
                                Value v) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder inner = ifOp.getThenBodyBuilder();
  memref::DeallocOp::create(inner, loc, v);
  ++stats.frees;
  ++stats.conditionalFrees;
  return ifOp;
}

Operation *PlanRewriter::free(OpBuilder &b, Location loc, int32_t handle) {
  Value v = resolve(plan.handles[handle]);
  if (plan.ownership[handle] == Ownership::Dynamic)
    return freeIf(b, loc, flagOf(handle), v);
  ++stats.frees;
  return memref::DeallocOp::create(b, loc, v);
}

void PlanRewriter::insertFrees() {
  // Frees at one place go in plan order: each after the one before.
  std::map<std::pair<Operation *, unsigned>, Block *> splits;
  DenseMap<Operation *, Operation *> lastAfter = afterSelect;
  for (const FunctionPlan::Free &f : plan.frees) {
    Location loc = resolve(plan.handles[f.handle]).getLoc();
    Operation *anchor = nullptr;
    if (f.after) {
      anchor = resolve(f.after);
      Operation *prev = lastAfter.lookup(anchor);
      builder.setInsertionPointAfter(prev ? prev : anchor);
    } else if (f.before) {
      builder.setInsertionPoint(resolve(f.before));
    } else if (f.atStart) {
      builder.setInsertionPointToStart(f.atStart);
    } else {
      // The edge from the branch to one successor: a block of its own.
      Block *&split = splits[{f.edge, f.edgeSuccessor}];
      if (!split) {
        Block *succ = f.edge->getSuccessor(f.edgeSuccessor);
        split = new Block();
        succ->getParent()->getBlocks().insert(succ->getIterator(), split);
        SmallVector<Value> args;
        for (BlockArgument arg : succ->getArguments())
          args.push_back(split->addArgument(arg.getType(), arg.getLoc()));
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToEnd(split);
        cf::BranchOp::create(builder, f.edge->getLoc(), succ, args);
        f.edge->setSuccessor(split, f.edgeSuccessor);
        ++stats.splitEdges;
      }
      builder.setInsertionPoint(split->getTerminator());
    }
    Operation *created = nullptr;
    if (f.unlessSelected >= 0) {
      // A buffer an owning select took over: freed where it was not
      // selected.
      Value v = resolve(plan.handles[f.handle]);
      Value selected = resolve(plan.handles[f.unlessSelected]);
      Value a = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, v);
      Value b = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc,
                                                               selected);
      Value other =
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, a, b);
      created = freeIf(builder, loc, other, v);
    } else if (Value taken = f.unlessReturned
                                 ? takenAtReturn.lookup({f.before, f.handle})
                                 : Value()) {
      // Freed where no position of the return handed it to the caller.
      Value v = resolve(plan.handles[f.handle]);
      Value cond = arith::XOrIOp::create(builder, loc, taken,
                                         constant(f.before->getBlock(), true));
      if (plan.ownership[f.handle] == Ownership::Dynamic)
        cond = arith::AndIOp::create(builder, loc, flagOf(f.handle), cond);
      created = freeIf(builder, loc, cond, v);
    } else {
      created = free(builder, loc, f.handle);
    }
    if (anchor)
      lastAfter[anchor] = created;
  }
}

void PlanRewriter::run() {
  MLIRContext *ctx = plan.func->getContext();
  ctx->getOrLoadDialect<arith::ArithDialect>();
  ctx->getOrLoadDialect<bufferization::BufferizationDialect>();
  ctx->getOrLoadDialect<cf::ControlFlowDialect>();
  ctx->getOrLoadDialect<memref::MemRefDialect>();
  ctx->getOrLoadDialect<scf::SCFDialect>();
  for (FunctionPlan::FlagList &list : plan.flagLists)
    lists[list.op].push_back(&list);
  appendSelectFlags();
  appendBlockFlags();
  appendRegionOpFlags();
  appendBranchFlags();
  copyReturns();
  insertFrees();
  for (auto [h, own] : llvm::enumerate(plan.ownership))
    if (own == Ownership::Dynamic)
      ++stats.dynamic;
  stats.unawaited += plan.unawaited.size();
}

} // namespace

void applyFunctionPlan(FunctionPlan &plan, DeallocationStats &stats) {
  PlanRewriter(plan, stats).run();
}

/// Whether each result of `op` is only what its regions' terminators give
/// back to it: no region takes arguments and every terminator returns to the
/// parent alone. A result then goes with the operand each terminator gives it.
static bool resultsOnlyFromTerminators(RegionBranchOpInterface op) {
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      if (block.getNumArguments() || !block.mightHaveTerminator())
        return false;
      auto term =
          dyn_cast<RegionBranchTerminatorOpInterface>(block.getTerminator());
      if (!term)
        return false;
      SmallVector<RegionSuccessor> succs;
      SmallVector<Attribute> none(term->getNumOperands());
      term.getSuccessorRegions(none, succs);
      if (succs.size() != 1 || !succs.front().isParent() ||
          term.getSuccessorOperands(succs.front()).size() !=
              op->getNumResults())
        return false;
    }
  return true;
}

/// `op` without its unused results (and the terminator operands that give
/// them); true if it changed.
static bool dropUnusedResults(RegionBranchOpInterface op) {
  SmallVector<unsigned> dead;
  bool deadBuffer = false;
  for (OpResult r : op->getResults())
    if (r.use_empty()) {
      dead.push_back(r.getResultNumber());
      deadBuffer |= isa<BaseMemRefType>(r.getType());
    }
  if (!deadBuffer || !resultsOnlyFromTerminators(op))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      auto term =
          cast<RegionBranchTerminatorOpInterface>(block.getTerminator());
      SmallVector<RegionSuccessor> succs;
      SmallVector<Attribute> none(term->getNumOperands());
      term.getSuccessorRegions(none, succs);
      MutableOperandRange operands =
          term.getMutableSuccessorOperands(succs.front());
      for (unsigned k : llvm::reverse(dead))
        operands.erase(k);
    }
  SmallVector<Type> types;
  SmallVector<Value> kept;
  for (OpResult r : op->getResults())
    if (!r.use_empty()) {
      types.push_back(r.getType());
      kept.push_back(r);
    }
  Operation *fresh = recreateWithResultTypes(op, types);
  for (auto [from, to] : llvm::zip(kept, fresh->getResults()))
    from.replaceAllUsesWith(to);
  op->erase();
  return true;
}

static bool touchesBuffers(Operation *op) {
  return llvm::any_of(op->getResultTypes(), isMemrefType) ||
         llvm::any_of(op->getOperandTypes(), isMemrefType);
}

/// The canonicalization patterns of the ops named `names`.
static RewritePatternSet
canonicalizationPatterns(MLIRContext *ctx,
                         const llvm::SetVector<OperationName> &names) {
  RewritePatternSet patterns(ctx);
  for (OperationName name : names)
    name.getCanonicalizationPatterns(patterns, ctx);
  return patterns;
}

/// Applies `patterns` to `ops` alone: no other op is rewritten, and
/// constants are not merged.
static void applyToOps(ArrayRef<Operation *> ops,
                       RewritePatternSet &&patterns) {
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps);
  config.enableConstantCSE(false);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// Loops that carry buffers, simplified by their own canonicalization
/// patterns (an argument passed through unchanged, a result nobody reads)
/// with the casts in them folded: a buffer carried along for nothing would
/// be held to the end of the loop.
static void simplifyBufferLoops(Operation *root) {
  SmallVector<Operation *> ops;
  llvm::SetVector<OperationName> names;
  root->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op) && touchesBuffers(op)) {
      ops.push_back(op);
      names.insert(op->getName());
    } else if (isa<CastOpInterface>(op) && touchesBuffers(op) &&
               op->getParentOfType<LoopLikeOpInterface>()) {
      ops.push_back(op);
    }
  });
  if (ops.empty())
    return;
  applyToOps(ops, canonicalizationPatterns(root->getContext(), names));
}

/// The constant value of each operand of `op` (null where it is not one).
static SmallVector<Attribute> constantOperands(Operation *op) {
  SmallVector<Attribute> values(op->getNumOperands());
  for (auto [value, operand] : llvm::zip(values, op->getOperands()))
    (void)matchPattern(operand, m_Constant(&value));
  return values;
}

/// Where `op` goes first given the operand values `operands` (null for
/// unknown), when that is one place only: one of its regions, or its results
/// (null region).
static std::optional<RegionSuccessor> onlyEntry(RegionBranchOpInterface op,
                                                ArrayRef<Attribute> operands) {
  SmallVector<RegionSuccessor> successors;
  op.getEntrySuccessorRegions(operands, successors);
  if (successors.size() != 1)
    return std::nullopt;
  return successors.front();
}

/// Whether `op`'s first step depends on its operands: it may go to more than
/// one place when they are unknown (an `scf.if`, not an `scf.execute_region`).
static bool branchesOnOperands(RegionBranchOpInterface op) {
  return !isa<LoopLikeOpInterface>(op.getOperation()) &&
         !onlyEntry(op, SmallVector<Attribute>(op->getNumOperands()));
}

/// `op`, whose operands decide where it goes, replaced by what it runs
/// (RegionBranchOpInterface::getEntrySuccessorRegions): the ops of the one
/// single-block region it enters, that region's yielded values taking the
/// place of its results, or, when it enters none, the values it forwards to
/// its results itself.
static LogicalResult inlineDecidedRegion(RegionBranchOpInterface op,
                                         PatternRewriter &rewriter) {
  std::optional<RegionSuccessor> entry = onlyEntry(op, constantOperands(op));
  if (!entry)
    return failure();
  if (entry->isParent()) {
    SmallVector<Value> forwarded(op.getEntrySuccessorOperands(*entry));
    if (forwarded.size() != op->getNumResults())
      return failure();
    LLVM_DEBUG(llvm::dbgs() << "removing " << op->getName() << " at "
                            << op->getLoc() << ", which enters no region\n");
    rewriter.replaceOp(op, forwarded);
    return success();
  }
  Region *region = entry->getSuccessor();
  if (!region->hasOneBlock())
    return failure();
  auto yield = dyn_cast<RegionBranchTerminatorOpInterface>(
      region->front().getTerminator());
  if (!yield)
    return failure();
  SmallVector<RegionSuccessor> exits;
  yield.getSuccessorRegions(SmallVector<Attribute>(yield->getNumOperands()),
                            exits);
  if (exits.size() != 1 || !exits.front().isParent())
    return failure();
  SmallVector<Value> results(yield.getSuccessorOperands(exits.front()));
  SmallVector<Value> inputs(op.getEntrySuccessorOperands(*entry));
  if (results.size() != op->getNumResults() ||
      inputs.size() != region->getNumArguments())
    return failure();
  LLVM_DEBUG(llvm::dbgs() << "inlining the decided region #"
                          << region->getRegionNumber() << " of "
                          << op->getName() << " at " << op->getLoc() << "\n");
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&region->front(), op, inputs);
  rewriter.replaceOp(op, results);
  return success();
}

/// Inside a region `op` enters only when an `i1` operand has one value, that
/// operand replaced by that constant
/// (RegionBranchOpInterface::getEntrySuccessorRegions decides it).
static LogicalResult propagateDecidingConditions(RegionBranchOpInterface op,
                                                 PatternRewriter &rewriter) {
  bool changed = false;
  for (OpOperand &operand : op->getOpOperands()) {
    Value condition = operand.get();
    if (!condition.getType().isInteger(1) ||
        matchPattern(condition, m_Constant()))
      continue;
    for (bool known : {true, false}) {
      SmallVector<Attribute> operands(op->getNumOperands());
      operands[operand.getOperandNumber()] = rewriter.getBoolAttr(known);
      std::optional<RegionSuccessor> entry = onlyEntry(op, operands);
      if (!entry || entry->isParent())
        continue;
      Region *region = entry->getSuccessor();
      bool used = llvm::any_of(condition.getUses(), [&](OpOperand &use) {
        return region->isAncestor(use.getOwner()->getParentRegion());
      });
      if (!used)
        continue;
      rewriter.setInsertionPoint(op);
      Value constant = arith::ConstantOp::create(rewriter, op->getLoc(),
                                                 rewriter.getBoolAttr(known));
      rewriter.replaceUsesWithIf(condition, constant, [&](OpOperand &use) {
        return region->isAncestor(use.getOwner()->getParentRegion());
      });
      changed = true;
    }
  }
  return success(changed);
}

/// A branching region op whose operands decide where it goes: replaced by
/// what it runs, or its deciding conditions made constants in the regions
/// they select.
struct DecideRegionBranch
    : public OpInterfaceRewritePattern<RegionBranchOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(RegionBranchOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (!branchesOnOperands(op))
      return failure();
    if (succeeded(inlineDecidedRegion(op, rewriter)))
      return success();
    return propagateDecidingConditions(op, rewriter);
  }
};

/// Branching region ops (not loops) that hold buffers, with the regions no
/// path runs removed (DecideRegionBranch), as upstream's canonicalization
/// after its deallocation removes them: an op nested in a region of another
/// one under the same condition, kept, may write to a buffer on a path that
/// never runs it and hold it there, above upstream's run-time peak.
static void simplifyDecidedBranches(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](RegionBranchOpInterface op) {
    if (op.getOperation() == root || !branchesOnOperands(op))
      return;
    bool buffers = touchesBuffers(op);
    op->walk([&](Operation *nested) { buffers |= touchesBuffers(nested); });
    if (buffers)
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<DecideRegionBranch>(ctx);
  applyToOps(ops, std::move(patterns));
}

/// Drops the memref arguments nothing uses of the blocks only branches
/// (BranchOpInterface) reach, with the operands each branch forwards to
/// them; true if it dropped one. Kept, such an argument would hold what
/// the branches pass it to the start of the block.
static bool dropUnusedBlockArguments(Operation *root) {
  bool changed = false;
  root->walk([&](Block *block) {
    if (block->isEntryBlock())
      return;
    for (unsigned i = block->getNumArguments(); i-- > 0;) {
      BlockArgument arg = block->getArgument(i);
      if (!isMemrefType(arg.getType()) || !arg.use_empty())
        continue;
      bool forwarded = true;
      for (BlockOperand &use : block->getUses()) {
        auto br = dyn_cast<BranchOpInterface>(use.getOwner());
        if (!br) {
          forwarded = false;
          break;
        }
        SuccessorOperands operands =
            br.getSuccessorOperands(use.getOperandNumber());
        forwarded &= !operands.isOperandProduced(i) && i < operands.size();
      }
      if (!forwarded)
        continue;
      for (BlockOperand &use : block->getUses())
        cast<BranchOpInterface>(use.getOwner())
            .getSuccessorOperands(use.getOperandNumber())
            .erase(i);
      block->eraseArgument(i);
      LLVM_DEBUG(llvm::dbgs()
                 << "dropping unused block argument " << i << "\n");
      changed = true;
    }
  });
  return changed;
}

/// Views spelled alike (memory-effect-free ops of the same block with the
/// same operands and attributes and memref results) made one value, then
/// the ops on buffers without results simplified by their own
/// canonicalization patterns (a copy of a view onto the same view goes), as
/// upstream's CSE and canonicalization after its deallocation do: kept, a
/// copy of a buffer onto itself would hold it past its last real use.
static void foldSelfCopies(Operation *root) {
  struct ViewInfo : llvm::DenseMapInfo<Operation *> {
    static unsigned getHashValue(const Operation *op) {
      return OperationEquivalence::computeHash(
          const_cast<Operation *>(op), OperationEquivalence::directHashValue,
          OperationEquivalence::ignoreHashValue,
          OperationEquivalence::IgnoreLocations);
    }
    static bool isEqual(const Operation *a, const Operation *b) {
      if (a == b)
        return true;
      if (a == getEmptyKey() || a == getTombstoneKey() || b == getEmptyKey() ||
          b == getTombstoneKey())
        return false;
      return OperationEquivalence::isEquivalentTo(
          const_cast<Operation *>(a), const_cast<Operation *>(b),
          OperationEquivalence::IgnoreLocations);
    }
  };
  bool merged = false;
  root->walk([&](Block *block) {
    DenseSet<Operation *, ViewInfo> seen;
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (op.getNumRegions() || !op.getNumResults() ||
          !llvm::all_of(op.getResultTypes(), isMemrefType) ||
          !isMemoryEffectFree(&op))
        continue;
      auto [it, inserted] = seen.insert(&op);
      if (inserted)
        continue;
      op.replaceAllUsesWith(*it);
      op.erase();
      merged = true;
    }
  });
  if (!merged)
    return;
  SmallVector<Operation *> ops;
  llvm::SetVector<OperationName> names;
  root->walk([&](Operation *op) {
    if (!op->getNumResults() && !op->getNumRegions() && touchesBuffers(op) &&
        !op->hasTrait<OpTrait::IsTerminator>()) {
      ops.push_back(op);
      names.insert(op->getName());
    }
  });
  applyToOps(ops, canonicalizationPatterns(root->getContext(), names));
}

/// Erases, to a fixpoint, the trivially dead ops on buffers: reads whose
/// values nothing uses (a load, a dim: buffer operands, no buffer result)
/// and, with `aliases`, the other ones (views, selects; an allocation stays,
/// freed where it is) and the unused memref results of region ops.
static void eraseDeadBufferOps(Operation *root, bool aliases) {
  auto isRead = [](Operation *op) {
    return op->getNumResults() &&
           llvm::none_of(op->getResultTypes(), isMemrefType) &&
           llvm::any_of(op->getOperandTypes(), isMemrefType);
  };
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> ops;
    root->walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (op != root && touchesBuffers(op))
        ops.push_back(op);
    });
    // Post-order: an op is visited after the ops nested in it, so erasing
    // or rebuilding it never leaves a visited op dangling.
    for (Operation *op : ops) {
      if (isOpTriviallyDead(op) &&
          (isRead(op) ||
           (aliases && !hasEffect<MemoryEffects::Allocate>(op)))) {
        LLVM_DEBUG(llvm::dbgs() << "dropping dead " << op->getName() << "\n");
        op->erase();
        changed = true;
      } else if (auto branch = dyn_cast<RegionBranchOpInterface>(op);
                 branch && aliases) {
        changed |= dropUnusedResults(branch);
      }
    }
    if (aliases)
      changed |= dropUnusedBlockArguments(root);
  }
}

/// Drops what no path reads before frees are placed. Always the reads of
/// buffers whose values nothing uses, as the canonicalization in upstream's
/// buffer-deallocation-pipeline erases them; with `aliases` (the
/// drop-dead-values option), then what loops carry for nothing
/// (simplifyBufferLoops, with those reads gone) and every other dead buffer
/// value, which upstream's canonicalization after deallocation drops too.
/// Kept, a dead read or alias would hold its buffer past its last use, to
/// the end of the op that carries it, and raise the heap peak on the paths
/// through that op.
static void dropDeadBufferValues(Operation *root, bool aliases) {
  eraseDeadBufferOps(root, /*aliases=*/false);
  if (!aliases)
    return;
  simplifyDecidedBranches(root);
  foldSelfCopies(root);
  simplifyBufferLoops(root);
  eraseDeadBufferOps(root, /*aliases=*/true);
}

/// memplan-buffer-deallocation's rewrites before its plan
/// (prepareDeallocation), then its plans of the IR they leave.
static std::vector<FunctionPlan>
prepareAndPlan(Operation *root, const DeallocationOptions &options,
               DeallocationStats &stats) {
  // Before dead values go: a loop that carries its copied init for nothing
  // would no longer show it as the init.
  if (options.copyWhereLoopsRun)
    stats.loopCopies = copyWhereLoopsRun(root);
  dropDeadBufferValues(root, /*aliases=*/options.dropDeadValues);
  std::vector<FunctionPlan> plans = analyzeOwnership(root);
  // Return what returned merges always hold, then analyze that IR (the
  // values returned at several positions change, and with them what the
  // callers free).
  bool forwarded = false;
  for (FunctionPlan &plan : plans)
    for (const FunctionPlan::ReturnForward &f : plan.returnForwards) {
      f.ret->setOperand(f.operand, f.value);
      forwarded = true;
    }
  if (forwarded)
    plans = analyzeOwnership(root);
  return plans;
}

DeallocationStats prepareDeallocation(MlirOperation root,
                                      const DeallocationOptions &options) {
  DeallocationStats stats;
  prepareAndPlan(unwrap(root), options, stats);
  return stats;
}

DeallocationResult deallocateBuffers(MlirOperation rootHandle,
                                     const DeallocationOptions &options) {
  DeallocationResult result;
  std::vector<FunctionPlan> plans =
      prepareAndPlan(unwrap(rootHandle), options, result.stats);
  for (FunctionPlan &plan : plans) {
    if (!plan.left.empty()) {
      ++result.stats.functionsLeft;
      result.stats.leftAllocations += plan.leftAllocations;
      result.left.push_back(
          {wrap(plan.func), wrap(plan.leftAt ? plan.leftAt : plan.func),
           plan.left, static_cast<int64_t>(plan.leftAllocations)});
      continue;
    }
    for (auto [h, op] : plan.unawaited)
      result.unawaited.push_back(
          {wrap(plan.handles[h].getLoc()), wrap(op->getLoc())});
    applyFunctionPlan(plan, result.stats);
  }
  return result;
}

bool checkUpstreamDeallocation(MlirOperation func) {
  return succeeded(checkOwnershipDeallocationInput(unwrap(func)));
}

struct HiddenFunctionBodies::Impl {
  struct Hidden {
    Operation *func;
    Region body;
    SymbolTable::Visibility visibility;
  };
  std::vector<std::unique_ptr<Hidden>> hidden;
};

HiddenFunctionBodies::HiddenFunctionBodies(
    MlirOperation rootHandle, const std::vector<MlirOperation> &keep)
    : impl(new Impl) {
  llvm::SmallPtrSet<Operation *, 4> kept;
  for (MlirOperation op : keep)
    kept.insert(unwrap(op));
  unwrap(rootHandle)->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return WalkResult::advance();
    if (!kept.contains(op) && !func.isExternal()) {
      auto hidden = std::make_unique<Impl::Hidden>();
      hidden->func = op;
      hidden->visibility = SymbolTable::getSymbolVisibility(op);
      hidden->body.takeBody(func.getFunctionBody());
      SymbolTable::setSymbolVisibility(op, SymbolTable::Visibility::Private);
      impl->hidden.push_back(std::move(hidden));
    }
    return WalkResult::skip();
  });
}

void HiddenFunctionBodies::restore() {
  for (auto &hidden : impl->hidden) {
    auto func = cast<FunctionOpInterface>(hidden->func);
    func.getFunctionBody().takeBody(hidden->body);
    SymbolTable::setSymbolVisibility(hidden->func, hidden->visibility);
  }
  impl->hidden.clear();
}

HiddenFunctionBodies::~HiddenFunctionBodies() {
  restore();
  delete impl;
}

} // namespace memplan
