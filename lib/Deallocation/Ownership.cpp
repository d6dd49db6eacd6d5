//===- Ownership.cpp - Which block frees each buffer, and where -----------===//
//
// See include/memplan/Deallocation/Ownership.h. Per function: classify every
// memref value (handles and the views into them), collect the edges that
// forward memrefs (region entries, region terminators, branches, returns),
// solve the ownership of the merges over all edges at once, then follow
// each owned handle's buffer through the values that may point into it
// without owning it to find where it dies.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/Ownership.h"
#include "memplan/Deallocation/HeapAllocation.h"

#include "memplan/IR/AsyncWork.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <deque>
#include <optional>

#define DEBUG_TYPE "memplan-ownership"

using namespace mlir;

namespace memplan {
namespace {

bool isMemref(Value v) { return isa<BaseMemRefType>(v.getType()); }

/// `v` without the casts (CastOpInterface, one memref operand) it is made
/// of: the same buffer under another type.
Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<CastOpInterface>()) {
    Operation *op = cast.getOperation();
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        !isMemref(op->getOperand(0)))
      break;
    v = op->getOperand(0);
  }
  return v;
}

enum class Kind : uint8_t {
  Alloc,     ///< A heap allocation of the function: Yes.
  Call,      ///< A call result: the caller owns it (Yes).
  Argument,  ///< A function argument: No.
  Stack,     ///< The automatic allocation scope: No.
  Foreign,   ///< Other memory (a global): No.
  UserFreed, ///< An allocation the input frees itself: No.
  Select,    ///< One of several memrefs: No.
  Merge,     ///< What the incoming edges bring.
};

struct Handle {
  Value value;
  Block *block = nullptr; ///< The block that holds (and frees) it.
  Kind kind = Kind::Foreign;
};

/// An edge that forwards values: a region op's entry into one of its
/// regions or to its results, a region terminator to one successor, a
/// branch to one successor, or a function's return.
struct Edge {
  Operation *from = nullptr;
  bool entry = false;  ///< From the region op itself.
  bool branch = false; ///< A branch (BranchOpInterface).
  bool ret = false;    ///< The function's return.
  int successor = -1;  ///< Branch successor index / region number.
  Block *target = nullptr;
  SmallVector<Value, 4> operands;
  SmallVector<Value, 4> inputs; ///< Empty for a return.
  /// The operand number in `from` of operands[0] (operands are contiguous).
  unsigned firstOperand = 0;
  /// Per position: the handle whose ownership the edge hands over, or -1.
  SmallVector<int32_t, 4> transfer;
};

/// What the analyses of one root share: callees and their repeated
/// results.
struct Callees {
  SymbolTableCollection symbols;
  DenseMap<Operation *, SmallVector<int32_t>> repeats;
  /// Functions left to upstream whose results repeat: upstream's pass
  /// decides at run time whether they return one buffer twice, so a caller
  /// cannot free their results statically.
  DenseSet<Operation *> unsafe;

  const SmallVector<int32_t> &of(Operation *callee) {
    auto it = repeats.find(callee);
    if (it == repeats.end())
      it = repeats.try_emplace(callee, repeatedResults(callee)).first;
    return it->second;
  }
};

class FunctionAnalysis {
public:
  FunctionAnalysis(FunctionOpInterface func, FunctionPlan &plan,
                   Callees &callees)
      : func(func), plan(plan), callees(callees) {}

  void run();

private:
  bool leave(Operation *at, const Twine &why) {
    if (plan.left.empty()) {
      plan.left = why.str();
      plan.leftAt = at;
    }
    return false;
  }
  int32_t addHandle(Value v, Block *block, Kind kind);
  bool classify();
  bool collectEdges();
  bool findEquivalentMerges();
  bool checkNoBranchLoops();
  void resolveBases();
  bool possiblyOwned(int32_t h) const {
    return own[h] == Ownership::Yes || own[h] == Ownership::Dynamic;
  }
  void computeTransfers(Edge &e);
  void solveLattice();
  bool solve();
  /// The values that may point into handle `h`'s buffer without owning it,
  /// and their uses (ops); false when one escapes the handle's region.
  bool closure(int32_t h, SmallVectorImpl<Operation *> &uses);
  /// `v` is never used: its uses only name it (views, casts) or forward it
  /// along edges, and what they give is never used either.
  bool unused(Value v) const;
  /// Lifts `use` into `region` (through the asynchronous work it is part
  /// of); null when it does not lie in the region. `unawaited` is set when
  /// async work that uses it is never awaited.
  Operation *lift(Region *region, Operation *use, Operation *&unawaited);
  bool place();
  bool placeInBlock(int32_t h, SmallVectorImpl<Operation *> &lifted);
  bool placeInRegion(int32_t h, SmallVectorImpl<Operation *> &lifted);
  /// Frees handle `h` in `block` after `last`, its last use there (a
  /// function's return: before it), or with no use there, after the
  /// handle's definition in its own block, else at the block's start. False
  /// (the function is left) where `last` is another terminator.
  bool freeAfterLast(int32_t h, Block *block, Operation *last);
  bool regionHasLiveTransfers(int32_t h, ArrayRef<Operation *> lifted,
                              bool &changed);
  void liveness(int32_t h, ArrayRef<Operation *> lifted,
                llvm::SmallPtrSetImpl<Block *> &liveIn);
  bool flags(bool &changed);
  /// Selects forwarded on an edge that may own what they select, and
  /// selects that own all they may select (see Ownership.h); true when one
  /// was chosen.
  bool chooseOwningSelects();
  /// `v` or a view of it is forwarded on an edge (returns included) to an
  /// input that is used.
  bool forwarded(Value v) const;
  /// The allocations and call results `v` may point into, through the
  /// values selects and merges may be.
  DenseSet<int32_t> mayHold(Value v) const;
  /// The handles `v` may be (itself and, through selects and merges, what
  /// they may be), into `seen`.
  void mayBe(Value v, DenseSet<int32_t> &seen) const;
  /// Per copied return operand: the owned handles freed right before that
  /// return that it may be (ReturnCopy::takeOver).
  void takeOverAtReturns();
  bool edgeTransfersHandle(const Edge &e, int32_t h) const {
    return llvm::is_contained(e.transfer, h);
  }

  FunctionOpInterface func;
  FunctionPlan &plan;
  Callees &callees;
  std::vector<Handle> handles;
  std::vector<Ownership> own;
  DenseMap<Value, int32_t> handleOf;
  /// Memref values that are views: their source.
  DenseMap<Value, Value> viewOf;
  DenseMap<Value, int32_t> baseOf;
  /// Select handles: the values they may be.
  DenseMap<int32_t, SmallVector<Value, 2>> selectSources;
  std::vector<Edge> edges;
  /// Per operand slot that an edge forwards: (edge, position).
  DenseMap<OpOperand *, SmallVector<std::pair<int32_t, unsigned>, 2>> edgeUse;
  /// Per merge: the (edge, position) pairs that reach it.
  DenseMap<Value, SmallVector<std::pair<int32_t, unsigned>, 2>> incoming;
  /// Per handle: the edges one of whose operands points into it.
  DenseMap<int32_t, SmallVector<int32_t, 2>> edgesOf;
  /// Branch positions that may not hand ownership over: the handle is
  /// still needed in the successor.
  DenseSet<std::pair<int32_t, unsigned>> blocked;
  /// Merges that carry a flag although their edges agree (they share an
  /// operand list with a merge that needs one).
  DenseSet<Value> forced;
  /// repeatedResults of the function.
  SmallVector<int32_t> repeats;
  /// Values that name a value's buffer without being defined from it: the
  /// repeated results of a call.
  DenseMap<Value, SmallVector<Value, 1>> alsoNamedBy;
  /// Values the input frees (memref.dealloc and the like).
  SmallVector<Value> userFrees;
  /// Per merge that took a handle over on an edge: the other inputs of that
  /// edge that got views of the same buffer (it holds them too).
  DenseMap<int32_t, SmallVector<Value, 2>> siblings;
  bool siblingsChanged = false;
  /// Merges every edge into which brings one value (a loop's iteration
  /// argument yielded unchanged, both branches yielding one buffer): that
  /// value under another name, a view of it rather than a handle.
  DenseMap<Value, Value> equivalent;
  /// Owning selects and the handles each took over; who took a handle over.
  DenseMap<int32_t, SmallVector<int32_t, 2>> owningSelects;
  DenseMap<int32_t, int32_t> selectedBy;
  /// Owning selects that may select a buffer they do not own: a run-time
  /// flag says whether they selected one they took over.
  DenseSet<int32_t> partialSelects;
  /// A merge chosen to take buffers over got ownership on an edge too.
  bool selectConflict = false;
  /// `h` is a merge whose ownership its edges bring (and a flag where they
  /// disagree), not one that took buffers over as a select.
  bool edgeMerge(int32_t h) const {
    return handles[h].kind == Kind::Merge && !owningSelects.count(h);
  }
};

int32_t FunctionAnalysis::addHandle(Value v, Block *block, Kind kind) {
  int32_t id = static_cast<int32_t>(handles.size());
  handles.push_back({v, block, kind});
  handleOf[v] = id;
  return id;
}

bool FunctionAnalysis::classify() {
  Region &body = func.getFunctionBody();
  for (BlockArgument arg : body.front().getArguments())
    if (isMemref(arg))
      addHandle(arg, &body.front(), Kind::Argument);
  // Arguments of other blocks: merges (checked against the edges later).
  bool ok = true;
  body.walk([&](Block *block) {
    if (!ok || block == &body.front())
      return;
    Operation *parent = block->getParentOp();
    bool modeled = isa<RegionBranchOpInterface>(parent) ||
                   !block->isEntryBlock() || parent == func.getOperation();
    for (BlockArgument arg : block->getArguments()) {
      if (!isMemref(arg))
        continue;
      if (!modeled) {
        ok = leave(parent, "'" + parent->getName().getStringRef() +
                               "' has buffer region arguments but no "
                               "RegionBranchOpInterface");
        return;
      }
      if (Value same = equivalent.lookup(arg))
        viewOf[arg] = same;
      else if (!block->isEntryBlock() && block->hasNoPredecessors())
        // A block no branch reaches never runs: no edge brings its
        // arguments anything to own.
        addHandle(arg, block, Kind::Foreign);
      else
        addHandle(arg, block, Kind::Merge);
    }
  });
  if (!ok)
    return false;
  WalkResult walk = body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumRegions() && !isa<RegionBranchOpInterface>(op)) {
      // Regions the interfaces say nothing of: fine if no buffer is made or
      // named in them (linalg.generic's payload). A buffer of the function
      // they only read or write (a gather's `memref.load`) is used there,
      // which is a use at the op itself (each use is lifted to the op of
      // the buffer's block).
      bool buffers = false;
      op->walk([&](Operation *nested) {
        if (nested != op)
          buffers |= llvm::any_of(nested->getResults(), isMemref) ||
                     llvm::any_of(nested->getRegions(), [](Region &r) {
                       return llvm::any_of(r.getArguments(), isMemref);
                     });
      });
      if (buffers) {
        leave(op, "'" + op->getName().getStringRef() +
                      "' has regions that use buffers but no "
                      "RegionBranchOpInterface");
        return WalkResult::interrupt();
      }
    }
    if (auto kinds = dyn_cast<RegionKindInterface>(op)) {
      for (unsigned i = 0; i < op->getNumRegions(); ++i)
        if (!kinds.hasSSADominance(i) && !op->getRegion(i).empty() &&
            op != func.getOperation()) {
          leave(op, "a graph region");
          return WalkResult::interrupt();
        }
    }
    bool buffers = llvm::any_of(op->getOperands(), isMemref) ||
                   llvm::any_of(op->getResults(), isMemref);
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    bool isCall = isa<CallOpInterface>(op);
    if (!iface && !isCall &&
        !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() && buffers &&
        !op->hasTrait<OpTrait::IsTerminator>()) {
      leave(op, "'" + op->getName().getStringRef() +
                    "' has no memory effects information");
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    if (iface)
      iface.getEffects(effects);
    for (auto &e : effects) {
      if (!isa<MemoryEffects::Free>(e.getEffect()))
        continue;
      Value v = e.getValue();
      bool plain = v && op->getNumOperands() == 1 && op->getNumResults() == 0 &&
                   op->getOperand(0) == v;
      if (!plain) {
        leave(op, "'" + op->getName().getStringRef() +
                      "' frees buffers in a way memplan does not model");
        return WalkResult::interrupt();
      }
      userFrees.push_back(v);
    }
    for (OpResult r : op->getResults()) {
      if (!isMemref(r))
        continue;
      Block *block = op->getBlock();
      ResultAllocation allocation = allocationOf(effects, r);
      if (allocation != ResultAllocation::None) {
        addHandle(r, block,
                  allocation == ResultAllocation::Stack ? Kind::Stack
                                                        : Kind::Alloc);
      } else if (isa<RegionBranchOpInterface>(op) && op->getNumRegions()) {
        if (Value same = equivalent.lookup(r))
          viewOf[r] = same;
        else
          addHandle(r, block, Kind::Merge);
      } else if (isCall) {
        // A result the callee returns at an earlier position too is that
        // result under another name (one buffer, freed once).
        Operation *callee =
            cast<CallOpInterface>(op).resolveCallableInTable(&callees.symbols);
        if (callee && callees.unsafe.contains(callee)) {
          leave(op, "a call of a function left to upstream's deallocation "
                    "that may return one buffer at several positions");
          return WalkResult::interrupt();
        }
        int32_t first = -1;
        if (callee) {
          const SmallVector<int32_t> &repeats = callees.of(callee);
          if (r.getResultNumber() < repeats.size())
            first = repeats[r.getResultNumber()];
        }
        if (first >= 0) {
          viewOf[r] = op->getResult(first);
          alsoNamedBy[op->getResult(first)].push_back(r);
        } else
          addHandle(r, block, Kind::Call);
      } else if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
        viewOf[r] = view.getViewSource();
      } else {
        // Its memref operands, each once: an op that names one of them
        // (a select of a value and itself) is a view of it.
        SmallVector<Value, 2> sources;
        for (Value v : op->getOperands())
          if (isMemref(v) && !llvm::is_contained(sources, v))
            sources.push_back(v);
        if (sources.size() == 1) {
          viewOf[r] = sources.front();
        } else if (sources.empty()) {
          addHandle(r, block, Kind::Foreign);
        } else {
          int32_t h = addHandle(r, block, Kind::Select);
          selectSources[h] = sources;
        }
      }
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

void FunctionAnalysis::resolveBases() {
  for (auto &[v, h] : handleOf)
    baseOf[v] = h;
  for (auto &[v, source] : viewOf) {
    if (baseOf.count(v))
      continue;
    SmallVector<Value, 8> chain{v};
    Value cur = source;
    int32_t base = -1;
    while (true) {
      auto known = baseOf.find(cur);
      if (known != baseOf.end()) {
        base = known->second;
        break;
      }
      auto next = viewOf.find(cur);
      if (next == viewOf.end())
        break; // a value defined outside the function
      chain.push_back(cur);
      cur = next->second;
    }
    for (Value c : chain)
      baseOf[c] = base;
  }
}

bool FunctionAnalysis::collectEdges() {
  auto addEdge = [&](Edge e) {
    if (!e.ret && e.operands.size() != e.inputs.size())
      return leave(e.from, "'" + e.from->getName().getStringRef() +
                               "' forwards a different number of values than "
                               "its successor takes");
    bool any =
        llvm::any_of(e.operands, isMemref) || llvm::any_of(e.inputs, isMemref);
    if (!any)
      return true;
    int32_t id = static_cast<int32_t>(edges.size());
    for (auto [j, v] : llvm::enumerate(e.operands)) {
      if (!isMemref(v))
        continue;
      if (!e.entry || true)
        edgeUse[&e.from->getOpOperand(e.firstOperand + j)].push_back(
            {id, static_cast<unsigned>(j)});
      if (!e.ret)
        incoming[e.inputs[j]].push_back({id, static_cast<unsigned>(j)});
    }
    e.transfer.assign(e.operands.size(), -1);
    edges.push_back(std::move(e));
    return true;
  };
  auto operandIndex = [](Operation *op, OperandRange range) {
    return range.empty() ? op->getNumOperands() : range.getBeginOperandIndex();
  };
  // One edge per region successor of `op` (a region op's entry, or a
  // region terminator), forwarding what `operandsOf` gives it.
  auto addSuccessorEdges =
      [&](Operation *op, bool entry, ArrayRef<RegionSuccessor> succs,
          llvm::function_ref<OperandRange(RegionSuccessor &)> operandsOf) {
        for (RegionSuccessor s : succs) {
          Edge e;
          e.from = op;
          e.entry = entry;
          e.successor = s.isParent() ? -1 : s.getSuccessor()->getRegionNumber();
          OperandRange operands = operandsOf(s);
          e.operands.assign(operands.begin(), operands.end());
          e.inputs.assign(s.getSuccessorInputs().begin(),
                          s.getSuccessorInputs().end());
          e.firstOperand = operandIndex(op, operands);
          if (!addEdge(std::move(e)))
            return false;
        }
        return true;
      };
  bool ok = true;
  WalkResult walk = func.getFunctionBody().walk([&](Operation *op) {
    if (auto branchOp = dyn_cast<RegionBranchOpInterface>(op);
        branchOp && op->getNumRegions()) {
      SmallVector<RegionSuccessor> succs;
      SmallVector<Attribute> none(op->getNumOperands());
      branchOp.getEntrySuccessorRegions(none, succs);
      ok =
          addSuccessorEdges(op, /*entry=*/true, succs, [&](RegionSuccessor &s) {
            return branchOp.getEntrySuccessorOperands(s);
          });
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    }
    if (!op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    Operation *parent = op->getParentOp();
    if (auto br = dyn_cast<BranchOpInterface>(op)) {
      for (unsigned i = 0; i < op->getNumSuccessors(); ++i) {
        SuccessorOperands so = br.getSuccessorOperands(i);
        Block *succ = op->getSuccessor(i);
        unsigned produced = so.getProducedOperandCount();
        for (unsigned k = 0; k < produced; ++k)
          if (isMemref(succ->getArgument(k))) {
            ok = leave(op, "a branch whose successor gets buffers the "
                           "branch produces");
            return WalkResult::interrupt();
          }
        Edge e;
        e.from = op;
        e.branch = true;
        e.successor = i;
        e.target = succ;
        OperandRange operands = so.getForwardedOperands();
        e.operands.assign(operands.begin(), operands.end());
        for (BlockArgument arg : succ->getArguments().drop_front(produced))
          e.inputs.push_back(arg);
        e.firstOperand = operandIndex(op, operands);
        if (!(ok = addEdge(std::move(e))))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    if (parent == func.getOperation()) {
      if (!op->hasTrait<OpTrait::ReturnLike>())
        return WalkResult::advance(); // ends the function otherwise
      Edge e;
      e.from = op;
      e.ret = true;
      e.operands.assign(op->getOperands().begin(), op->getOperands().end());
      e.firstOperand = 0;
      if (!(ok = addEdge(std::move(e))))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(op);
    if (!terminator || !isa<RegionBranchOpInterface>(parent)) {
      if (llvm::any_of(op->getOperands(), isMemref)) {
        ok = leave(op, "'" + op->getName().getStringRef() +
                           "' forwards buffers without "
                           "RegionBranchTerminatorOpInterface");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    SmallVector<RegionSuccessor> succs;
    SmallVector<Attribute> none(op->getNumOperands());
    terminator.getSuccessorRegions(none, succs);
    ok = addSuccessorEdges(op, /*entry=*/false, succs, [&](RegionSuccessor &s) {
      return terminator.getSuccessorOperands(s);
    });
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (walk.wasInterrupted() || !ok)
    return false;
  // Every merge needs an edge into it.
  for (auto [id, h] : llvm::enumerate(handles)) {
    if (h.kind != Kind::Merge || incoming.count(h.value))
      continue;
    Operation *at = h.value.getDefiningOp();
    if (!at)
      at = h.block->getParentOp();
    return leave(at, "a memref that no modeled edge forwards");
  }
  for (auto [id, e] : llvm::enumerate(edges))
    for (Value v : e.operands)
      if (isMemref(v) && baseOf.count(v))
        edgesOf[baseOf[v]].push_back(static_cast<int32_t>(id));
  return true;
}

bool FunctionAnalysis::findEquivalentMerges() {
  // Optimistic: a merge nothing is known of yet is left out of the values
  // its edges bring; one that brings two is a merge of its own (and the
  // value other merges see). Values only go from unknown to one value to a
  // merge of their own, so this settles; a bound guards it anyway.
  DenseMap<Value, Value> same;
  DenseSet<Value> distinct;
  auto isMerge = [&](Value v) {
    auto it = handleOf.find(v);
    return it != handleOf.end() && handles[it->second].kind == Kind::Merge;
  };
  bool changed = true;
  for (unsigned round = 0; changed; ++round) {
    if (round > 2 * handles.size() + 2)
      return false;
    changed = false;
    for (const Handle &h : handles) {
      if (h.kind != Kind::Merge || distinct.contains(h.value))
        continue;
      Value one;
      bool two = false;
      for (auto [e, j] : incoming.lookup(h.value)) {
        Value v = stripCasts(edges[e].operands[j]);
        if (isMerge(v) && !distinct.contains(v)) {
          v = same.lookup(v);
          if (!v)
            continue;
        }
        if (v == h.value)
          continue;
        if (!one)
          one = v;
        else if (one != v)
          two = true;
      }
      // The value must be visible wherever the merge is.
      Region *at = h.block->getParent();
      if (one && !two && !one.getParentRegion()->isAncestor(at))
        two = true;
      if (two) {
        distinct.insert(h.value);
        same.erase(h.value);
        changed = true;
      } else if (one && same.lookup(h.value) != one) {
        same[h.value] = one;
        changed = true;
      }
    }
  }
  for (auto &[merge, value] : same)
    equivalent[merge] = value;
  return !equivalent.empty();
}

bool FunctionAnalysis::checkNoBranchLoops() {
  bool ok = true;
  func.getFunctionBody().walk<WalkOrder::PreOrder>([&](Region *region) {
    if (!ok || region->empty() || region->hasOneBlock())
      return;
    // Depth-first from the entry; an edge back to a block on the stack is
    // a loop.
    DenseMap<Block *, int> state; // 1: on the stack, 2: done
    SmallVector<std::pair<Block *, unsigned>> stack;
    stack.push_back({&region->front(), 0});
    state[&region->front()] = 1;
    while (!stack.empty() && ok) {
      auto &[block, next] = stack.back();
      if (next == block->getNumSuccessors()) {
        state[block] = 2;
        stack.pop_back();
        continue;
      }
      Block *succ = block->getSuccessor(next++);
      int &s = state[succ];
      if (s == 1)
        ok = leave(block->getTerminator(),
                   "a loop of branches (upstream's deallocation does not take "
                   "them either)");
      else if (s == 0) {
        s = 1;
        stack.push_back({succ, 0});
      }
    }
  });
  return ok;
}

void FunctionAnalysis::computeTransfers(Edge &e) {
  llvm::SmallDenseSet<int32_t, 4> seen;
  for (auto [j, v] : llvm::enumerate(e.operands)) {
    e.transfer[j] = -1;
    if (e.entry || !isMemref(v))
      continue;
    auto it = baseOf.find(v);
    if (it == baseOf.end() || it->second < 0)
      continue;
    int32_t h = it->second;
    // Only a merge (or the caller) takes a handle over.
    if (!e.ret && !handleOf.count(e.inputs[j]))
      continue;
    // Only the region that holds a handle hands it over.
    if (!possiblyOwned(h) ||
        handles[h].block->getParent() != e.from->getParentRegion())
      continue;
    if (blocked.contains({static_cast<int32_t>(&e - edges.data()),
                          static_cast<unsigned>(j)}))
      continue;
    if (!seen.insert(h).second) {
      // A value every return gives at an earlier position too: handed
      // over there, the same buffer here.
      int32_t first = e.ret && j < repeats.size() ? repeats[j] : -1;
      if (first >= 0 && e.transfer[first] == h)
        e.transfer[j] = h;
      continue;
    }
    e.transfer[j] = h;
  }
}

void FunctionAnalysis::solveLattice() {
  own.assign(handles.size(), Ownership::Unknown);
  for (auto [id, h] : llvm::enumerate(handles)) {
    switch (h.kind) {
    case Kind::Alloc:
    case Kind::Call:
      own[id] = Ownership::Yes;
      break;
    case Kind::Merge:
      if (!owningSelects.count(static_cast<int32_t>(id))) {
        own[id] = Ownership::Unknown;
        break;
      }
      [[fallthrough]]; // a merge that took buffers over, as a select
    case Kind::Select:
      if (!owningSelects.count(static_cast<int32_t>(id)))
        own[id] = Ownership::No;
      else if (partialSelects.contains(static_cast<int32_t>(id)))
        own[id] = Ownership::Dynamic;
      else
        own[id] = Ownership::Yes;
      break;
    default:
      own[id] = Ownership::No;
    }
  }
  for (Value v : userFrees) {
    auto it = baseOf.find(v);
    if (it != baseOf.end() && it->second >= 0)
      own[it->second] = Ownership::No;
  }
  auto merge = [](Ownership a, Ownership b) {
    if (a == Ownership::Unknown)
      return b;
    if (b == Ownership::Unknown || a == b)
      return a;
    return Ownership::Dynamic;
  };
  std::deque<int32_t> work;
  DenseSet<int32_t> queued;
  DenseMap<int32_t, int> updates;
  for (auto [id, h] : llvm::enumerate(handles))
    if (h.kind == Kind::Merge && !owningSelects.count(id)) {
      work.push_back(static_cast<int32_t>(id));
      queued.insert(static_cast<int32_t>(id));
    }
  while (!work.empty()) {
    int32_t p = work.front();
    work.pop_front();
    queued.erase(p);
    Value v = handles[p].value;
    Ownership result =
        forced.contains(v) ? Ownership::Dynamic : Ownership::Unknown;
    for (auto [e, j] : incoming[v]) {
      Edge &edge = edges[e];
      computeTransfers(edge);
      int32_t h = edge.transfer[j];
      result = merge(result, h >= 0 ? own[h] : Ownership::No);
    }
    if (result == own[p])
      continue;
    // A flag is right whatever the edges bring: where the lattice would
    // not settle (it does on every program seen), it stops there.
    if (++updates[p] > 8)
      result = Ownership::Dynamic;
    own[p] = result;
    // Merges whose incoming edges forward p may change.
    for (int32_t e : edgesOf.lookup(p))
      for (Value input : edges[e].inputs) {
        auto it = handleOf.find(input);
        if (it != handleOf.end() && !owningSelects.count(it->second) &&
            queued.insert(it->second).second)
          work.push_back(it->second);
      }
  }
  for (auto [id, h] : llvm::enumerate(handles))
    if (own[id] == Ownership::Unknown)
      own[id] = Ownership::No; // unreachable
  for (Edge &e : edges)
    computeTransfers(e);
  // A merge that took buffers over was chosen because no edge hands it
  // anything: its ownership is the takeover's alone.
  for (auto &[s, taken] : owningSelects) {
    if (handles[s].kind != Kind::Merge)
      continue;
    for (auto [e, j] : incoming.lookup(handles[s].value))
      if (edges[e].transfer[j] >= 0)
        selectConflict = true;
  }
}

Operation *FunctionAnalysis::lift(Region *region, Operation *use,
                                  Operation *&unawaited) {
  Operation *ancestor = region->findAncestorOpInRegion(*use);
  if (!ancestor)
    return nullptr;
  Operation *anchor = ancestor;
  // Asynchronous work (the use's own or that of an op it is nested in) is
  // a use until the op of its block that waits for it.
  for (Operation *op = use;; op = op->getParentOp()) {
    SmallVector<Value> completions = asyncCompletions(op);
    if (!completions.empty()) {
      Operation *done = completionPoint(op, completions);
      if (!done) {
        unawaited = op;
        return anchor;
      }
      Operation *lifted = region->findAncestorOpInRegion(*done);
      if (lifted && lifted->getBlock() == anchor->getBlock() &&
          anchor->isBeforeInBlock(lifted))
        anchor = lifted;
    }
    if (op == ancestor)
      break;
  }
  return anchor;
}

bool FunctionAnalysis::closure(int32_t h, SmallVectorImpl<Operation *> &uses) {
  SmallVector<Value, 8> work{handles[h].value};
  DenseSet<Value> members{handles[h].value};
  auto add = [&](Value v) {
    if (members.insert(v).second)
      work.push_back(v);
  };
  // Inputs that got views of another handle's buffer on an edge that
  // handed that buffer over to `h`: h holds them now.
  for (Value sibling : siblings.lookup(h))
    add(sibling);
  while (!work.empty()) {
    Value m = work.pop_back_val();
    for (Value other : alsoNamedBy.lookup(m))
      add(other);
    for (OpOperand &use : m.getUses()) {
      Operation *user = use.getOwner();
      auto forwarded = edgeUse.find(&use);
      if (forwarded != edgeUse.end()) {
        // Forwarding to inputs nothing uses (a block argument of the
        // generator's join blocks, a region op's dead result) does not keep
        // the buffer alive: it may be freed before the terminator.
        bool needed = false;
        for (auto [e, j] : forwarded->second) {
          const Edge &edge = edges[e];
          needed |= edge.ret || edgeTransfersHandle(edge, h) ||
                    !unused(edge.inputs[j]);
        }
        if (needed)
          uses.push_back(user);
        for (auto [e, j] : forwarded->second) {
          const Edge &edge = edges[e];
          if (edge.transfer[j] == h || edge.ret)
            continue; // handed over (or copied at the return)
          auto input = handleOf.find(edge.inputs[j]);
          if (input != handleOf.end() &&
              llvm::is_contained(owningSelects.lookup(input->second), h))
            continue; // a merge that took h over
          if (edgeTransfersHandle(edge, h)) {
            // The merge that took h over holds this one too.
            unsigned t = llvm::find(edge.transfer, h) - edge.transfer.begin();
            auto receiver = handleOf.find(edge.inputs[t]);
            if (receiver != handleOf.end() &&
                !llvm::is_contained(siblings[receiver->second],
                                    edge.inputs[j])) {
              siblings[receiver->second].push_back(edge.inputs[j]);
              siblingsChanged = true;
            }
            continue;
          }
          add(edge.inputs[j]);
        }
        continue;
      }
      // A view or a select only names the buffer (MemoryEffectOpInterface:
      // no effect): its own uses are the buffer's, not the op (a dead
      // subview does not keep a buffer alive).
      bool names = !user->getNumRegions() && isMemoryEffectFree(user) &&
                   llvm::any_of(user->getResults(), isMemref);
      if (!names)
        uses.push_back(user);
      if (user->hasTrait<OpTrait::IsTerminator>())
        continue;
      for (OpResult r : user->getResults()) {
        if (!isMemref(r))
          continue;
        auto it = viewOf.find(r);
        if (it != viewOf.end() && it->second == m)
          add(r);
        auto handle = handleOf.find(r);
        if (handle != handleOf.end() &&
            handles[handle->second].kind == Kind::Select &&
            !llvm::is_contained(owningSelects.lookup(handle->second), h))
          add(r);
      }
    }
  }
  return true;
}

bool FunctionAnalysis::forwarded(Value v) const {
  SmallVector<Value, 4> work{v};
  for (unsigned n = 0; !work.empty() && n < 64; ++n) {
    Value m = work.pop_back_val();
    for (OpOperand &use : m.getUses()) {
      auto it = edgeUse.find(&use);
      if (it != edgeUse.end() &&
          llvm::any_of(it->second, [&](std::pair<int32_t, unsigned> ej) {
            const Edge &e = edges[ej.first];
            return e.ret || !unused(e.inputs[ej.second]);
          }))
        return true;
      for (OpResult r : use.getOwner()->getResults()) {
        auto view = viewOf.find(r);
        if (view != viewOf.end() && view->second == m)
          work.push_back(r);
      }
    }
  }
  return false;
}

bool FunctionAnalysis::chooseOwningSelects() {
  bool chosen = false;
  // The selects, and the results of region ops that no edge hands
  // anything over to: such a result is one of the values its edges bring,
  // as a select is one of its operands, known once the op is done.
  SmallVector<std::pair<int32_t, SmallVector<Value, 2>>> candidates;
  for (auto &[s, sources] : selectSources) {
    Operation *op = handles[s].value.getDefiningOp();
    if (op && op->getNumResults() == 1 && !op->getNumRegions() &&
        isMemoryEffectFree(op))
      candidates.push_back({s, sources});
  }
  for (auto [id, h] : llvm::enumerate(handles)) {
    int32_t m = static_cast<int32_t>(id);
    if (h.kind != Kind::Merge || own[m] != Ownership::No ||
        !isa<OpResult>(h.value))
      continue;
    SmallVector<Value, 2> sources;
    for (auto [e, j] : incoming.lookup(h.value))
      sources.push_back(edges[e].operands[j]);
    candidates.push_back({m, sources});
  }
  for (auto &[s, sources] : candidates) {
    if (owningSelects.count(s))
      continue;
    const Handle &select = handles[s];
    Operation *op = select.value.getDefiningOp();
    // A select that is not forwarded takes its sources over only where it
    // owns every one: the ones it did not select are then freed right after
    // it, not after its last use (as upstream's ownership does at run time),
    // and it needs no flag.
    bool local = !forwarded(select.value);
    if (local && (!op || op->getNumRegions()))
      continue;
    // The sources that are buffers the select's block owns (themselves or
    // casts of them) are taken over; where others may be selected, a flag
    // says which.
    SmallVector<int32_t, 2> taken;
    bool ok = true, partial = false;
    for (Value source : sources) {
      auto it = baseOf.find(source);
      int32_t b = it == baseOf.end() ? -1 : it->second;
      bool owned =
          b >= 0 &&
          (handles[b].kind == Kind::Alloc || handles[b].kind == Kind::Call) &&
          own[b] == Ownership::Yes && handles[b].block == select.block &&
          stripCasts(source) == handles[b].value &&
          !alsoNamedBy.count(handles[b].value);
      if (owned && selectedBy.count(b))
        ok = false;
      partial |= !owned;
      if (owned && !llvm::is_contained(taken, b))
        taken.push_back(b);
    }
    if (!ok || taken.empty() || (!partial && taken.size() < 2) ||
        (local && partial))
      continue;
    // Each dies at the select but through it.
    owningSelects[s] = taken;
    for (int32_t b : taken) {
      SmallVector<Operation *> uses;
      closure(b, uses);
      Operation *unawaited = nullptr;
      for (Operation *u : uses) {
        Operation *l = lift(select.block->getParent(), u, unawaited);
        ok &= l && !unawaited && l->getBlock() == select.block &&
              (l == op || l->isBeforeInBlock(op));
      }
      if (!ok)
        break;
    }
    if (!ok) {
      owningSelects.erase(s);
      continue;
    }
    for (int32_t b : taken)
      selectedBy[b] = s;
    if (partial)
      partialSelects.insert(s);
    chosen = true;
  }
  return chosen;
}

bool FunctionAnalysis::unused(Value v) const {
  // Depth-first over what names `v` or takes it along an edge; a value met
  // again is assumed unused (a loop's iteration argument yielded back to
  // itself): `v` is unused when nothing reached uses it.
  DenseSet<Value> seen{v};
  SmallVector<Value, 8> work{v};
  auto reach = [&](Value r) {
    if (seen.insert(r).second)
      work.push_back(r);
  };
  while (!work.empty()) {
    Value m = work.pop_back_val();
    if (seen.size() > 256 || alsoNamedBy.count(m))
      return false;
    for (OpOperand &use : m.getUses()) {
      auto forwarded = edgeUse.find(&use);
      if (forwarded != edgeUse.end()) {
        for (auto [e, j] : forwarded->second) {
          if (edges[e].ret)
            return false;
          reach(edges[e].inputs[j]);
        }
        continue;
      }
      Operation *user = use.getOwner();
      if (user->getNumRegions() || user->hasTrait<OpTrait::IsTerminator>() ||
          !isMemoryEffectFree(user) ||
          llvm::none_of(user->getResults(), isMemref))
        return false;
      for (Value r : user->getResults())
        reach(r);
    }
  }
  return true;
}

void FunctionAnalysis::liveness(int32_t h, ArrayRef<Operation *> lifted,
                                llvm::SmallPtrSetImpl<Block *> &liveIn) {
  Block *def = handles[h].block;
  SmallVector<Block *, 8> work;
  for (Operation *op : lifted) {
    Block *b = op->getBlock();
    if (b != def && liveIn.insert(b).second)
      work.push_back(b);
  }
  while (!work.empty()) {
    Block *b = work.pop_back_val();
    for (Block *pred : b->getPredecessors())
      if (pred != def && liveIn.insert(pred).second)
        work.push_back(pred);
  }
}

bool FunctionAnalysis::regionHasLiveTransfers(int32_t h,
                                              ArrayRef<Operation *> lifted,
                                              bool &changed) {
  llvm::SmallPtrSet<Block *, 8> liveIn;
  liveness(h, lifted, liveIn);
  for (int32_t e : edgesOf.lookup(h)) {
    Edge &edge = edges[e];
    if (!edge.branch || !liveIn.contains(edge.target))
      continue;
    for (auto [j, t] : llvm::enumerate(edge.transfer))
      if (t == h && blocked.insert({e, static_cast<unsigned>(j)}).second)
        changed = true;
  }
  return true;
}

bool FunctionAnalysis::solve() {
  // The lattice depends on which branch edges may hand a handle over, which
  // depends on where the handle is still needed: to a fixpoint (blocking
  // transfers only ever adds uses).
  for (unsigned round = 0;; ++round) {
    solveLattice();
    bool changed = false;
    for (auto [id, h] : llvm::enumerate(handles)) {
      if (!possiblyOwned(id) || h.block->getParent()->hasOneBlock())
        continue;
      SmallVector<Operation *> uses, lifted;
      closure(id, uses);
      Operation *unawaited = nullptr;
      for (Operation *u : uses)
        if (Operation *l = lift(h.block->getParent(), u, unawaited))
          lifted.push_back(l);
      regionHasLiveTransfers(id, lifted, changed);
    }
    if (!changed)
      break;
    if (round > handles.size() + 2)
      return leave(func, "ownership did not settle");
  }
  return true;
}

bool FunctionAnalysis::placeInBlock(int32_t h,
                                    SmallVectorImpl<Operation *> &lifted) {
  Handle &handle = handles[h];
  Block *block = handle.block;
  Operation *term = block->getTerminator();
  // Handed over on the block's way out?
  unsigned successors = 0, handedOver = 0;
  bool returned = false;
  for (int32_t e : edgesOf.lookup(h)) {
    const Edge &edge = edges[e];
    if (edge.from != term)
      continue;
    if (edge.ret) {
      returned |= edgeTransfersHandle(edge, h);
      continue;
    }
    handedOver += edgeTransfersHandle(edge, h);
  }
  if (term && !returned) {
    if (auto br = dyn_cast<RegionBranchTerminatorOpInterface>(term)) {
      for (const Edge &edge : edges)
        successors += edge.from == term;
    }
  }
  if (returned || (handedOver && handedOver == successors))
    return true;
  if (handedOver)
    return leave(term, "a buffer handed over on some successors of a "
                       "terminator only");
  Operation *last = nullptr;
  for (Operation *op : lifted)
    if (!last || last->isBeforeInBlock(op))
      last = op;
  return freeAfterLast(h, block, last);
}

bool FunctionAnalysis::freeAfterLast(int32_t h, Block *block, Operation *last) {
  Handle &handle = handles[h];
  FunctionPlan::Free free;
  free.handle = h;
  if (!last) {
    if (block == handle.block && handle.value.getDefiningOp())
      free.after = handle.value.getDefiningOp();
    else
      free.atStart = block;
  } else if (last->hasTrait<OpTrait::IsTerminator>()) {
    if (!last->hasTrait<OpTrait::ReturnLike>() ||
        last->getParentOp() != func.getOperation())
      return leave(last, "a buffer of a region that may be used after it "
                         "through a value that does not own it");
    free.before = last;
  } else {
    free.after = last;
  }
  plan.frees.push_back(free);
  return true;
}

bool FunctionAnalysis::placeInRegion(int32_t h,
                                     SmallVectorImpl<Operation *> &lifted) {
  Handle &handle = handles[h];
  llvm::SmallPtrSet<Block *, 8> liveIn;
  liveness(h, lifted, liveIn);
  // Live into the region's entry (not its block): a value a branch merges
  // may point into the buffer on a path that never allocated it, and no
  // free in the blocks the handle dominates is after its last use.
  Block *entry = &handle.block->getParent()->front();
  if (entry != handle.block && liveIn.contains(entry))
    return leave(handle.value.getDefiningOp() ? handle.value.getDefiningOp()
                                              : handle.block->getParentOp(),
                 "a buffer a merged value may point into on a path that "
                 "does not pass its allocation");
  DenseMap<Block *, Operation *> last;
  for (Operation *op : lifted) {
    Operation *&l = last[op->getBlock()];
    if (!l || l->isBeforeInBlock(op))
      l = op;
  }
  SmallVector<Block *> present{handle.block};
  for (Block &b : *handle.block->getParent())
    if (liveIn.contains(&b) && &b != handle.block)
      present.push_back(&b);
  for (Block *b : present) {
    Operation *term = b->getTerminator();
    bool returned = false;
    SmallVector<unsigned> handed;
    for (int32_t e : edgesOf.lookup(h)) {
      const Edge &edge = edges[e];
      if (edge.from != term || !edgeTransfersHandle(edge, h))
        continue;
      if (edge.ret)
        returned = true;
      else if (edge.branch)
        handed.push_back(edge.successor);
      else
        return leave(term, "a buffer handed out of a region with branches");
    }
    if (returned)
      continue;
    SmallVector<unsigned> live, dead;
    for (unsigned i = 0; term && i < term->getNumSuccessors(); ++i) {
      if (liveIn.contains(term->getSuccessor(i)))
        live.push_back(i);
      else if (!llvm::is_contained(handed, i))
        dead.push_back(i);
    }
    if (live.empty() && handed.empty()) {
      if (!freeAfterLast(h, b, last.lookup(b)))
        return false;
      continue;
    }
    for (unsigned i : dead) {
      // At the start of a successor only this edge reaches; on a block of
      // its own otherwise.
      FunctionPlan::Free free;
      free.handle = h;
      Block *succ = term->getSuccessor(i);
      if (std::distance(succ->pred_begin(), succ->pred_end()) == 1) {
        free.atStart = succ;
      } else {
        free.edge = term;
        free.edgeSuccessor = i;
      }
      plan.frees.push_back(free);
    }
  }
  return true;
}

bool FunctionAnalysis::place() {
  // Who holds which siblings, to a fixpoint.
  for (unsigned round = 0; round < 8; ++round) {
    siblingsChanged = false;
    for (auto [id, h] : llvm::enumerate(handles)) {
      SmallVector<Operation *> uses;
      if (possiblyOwned(static_cast<int32_t>(id)))
        closure(static_cast<int32_t>(id), uses);
    }
    if (!siblingsChanged)
      break;
  }
  for (auto [id, h] : llvm::enumerate(handles)) {
    int32_t hid = static_cast<int32_t>(id);
    if (!possiblyOwned(hid))
      continue;
    if (auto by = selectedBy.find(hid); by != selectedBy.end()) {
      FunctionPlan::Free free;
      free.handle = hid;
      free.after = handles[by->second].value.getDefiningOp();
      free.unlessSelected = by->second;
      plan.frees.push_back(free);
      continue;
    }
    SmallVector<Operation *> uses, lifted;
    closure(hid, uses);
    Region *region = h.block->getParent();
    Operation *unawaited = nullptr;
    for (Operation *u : uses) {
      Operation *l = lift(region, u, unawaited);
      if (!l)
        return leave(u, "a buffer of a region that may be used after it "
                        "through a value that does not own it");
      lifted.push_back(l);
    }
    if (unawaited) {
      plan.unawaited.push_back({hid, unawaited});
      continue;
    }
    if (region->hasOneBlock() ? !placeInBlock(hid, lifted)
                              : !placeInRegion(hid, lifted))
      return false;
  }
  // Returns: what is not handed over is copied.
  bool mergesTakeOver = llvm::any_of(owningSelects, [&](const auto &entry) {
    return handles[entry.first].kind == Kind::Merge;
  });
  for (Edge &e : edges) {
    if (!e.ret)
      continue;
    for (auto [j, v] : llvm::enumerate(e.operands)) {
      if (!isMemref(v))
        continue;
      int32_t h = e.transfer[j];
      if (h >= 0 && own[h] == Ownership::Yes)
        continue;
      FunctionPlan::ReturnCopy copy;
      copy.ret = e.from;
      copy.operand = e.firstOperand + static_cast<unsigned>(j);
      copy.handle = h >= 0 ? h : baseOf.lookup(v);
      copy.conditional = h >= 0 && own[h] == Ownership::Dynamic;
      // One copy for a value every return gives at several positions.
      if (j < repeats.size() && repeats[j] >= 0)
        copy.sameAs = static_cast<int32_t>(e.firstOperand) + repeats[j];
      plan.returnCopies.push_back(copy);
      // Where a region op's result took buffers over (the function was left
      // to upstream before): a copy of a value that may be, on some path, a
      // buffer the function returns at another position under another
      // handle gives the caller one buffer and a copy of it, where
      // upstream's run-time ownership returns the buffer once; left to it,
      // as before.
      if (!mergesTakeOver)
        continue;
      DenseSet<int32_t> mine = mayHold(v);
      for (auto [k, w] : llvm::enumerate(e.operands)) {
        if (k == j || !isMemref(w) || baseOf.lookup(w) == baseOf.lookup(v))
          continue;
        for (int32_t b : mayHold(w))
          if (mine.contains(b))
            return leave(e.from,
                         "a returned value that may be, on some paths only, "
                         "a buffer the function returns at another position");
      }
    }
  }
  takeOverAtReturns();
  return true;
}

DenseSet<int32_t> FunctionAnalysis::mayHold(Value v) const {
  DenseSet<int32_t> held, seen;
  mayBe(v, seen);
  for (int32_t h : seen)
    if (handles[h].kind == Kind::Alloc || handles[h].kind == Kind::Call)
      held.insert(h);
  return held;
}

void FunctionAnalysis::mayBe(Value v, DenseSet<int32_t> &seen) const {
  SmallVector<int32_t, 8> work;
  auto visit = [&](Value u) {
    auto it = baseOf.find(u);
    if (it != baseOf.end() && it->second >= 0 && seen.insert(it->second).second)
      work.push_back(it->second);
  };
  visit(v);
  while (!work.empty() && seen.size() < 256) {
    int32_t h = work.pop_back_val();
    const Handle &handle = handles[h];
    if (handle.kind == Kind::Select)
      for (Value source : selectSources.lookup(h))
        visit(source);
    if (handle.kind == Kind::Merge)
      for (auto [e, j] : incoming.lookup(handle.value))
        visit(edges[e].operands[j]);
  }
}

void FunctionAnalysis::takeOverAtReturns() {
  // The frees right before each return, by handle.
  DenseMap<Operation *, DenseMap<int32_t, FunctionPlan::Free *>> atReturn;
  for (FunctionPlan::Free &f : plan.frees)
    if (f.before && f.unlessSelected < 0 &&
        f.before->hasTrait<OpTrait::ReturnLike>())
      atReturn[f.before][f.handle] = &f;
  for (FunctionPlan::ReturnCopy &copy : plan.returnCopies) {
    auto it = atReturn.find(copy.ret);
    if (copy.sameAs >= 0 || it == atReturn.end())
      continue;
    DenseSet<int32_t> seen;
    mayBe(copy.ret->getOperand(copy.operand), seen);
    for (auto &[h, free] : it->second)
      if (seen.contains(h) && possiblyOwned(h)) {
        copy.takeOver.push_back(h);
        free->unlessReturned = true;
      }
    llvm::sort(copy.takeOver);
  }
}

bool FunctionAnalysis::flags(bool &changed) {
  // One operand list feeds all the successors of a region terminator (and
  // of a region op's entry): their flagged positions must agree. In the
  // order of the edges (a map by op pointer would order the plan's flag
  // lists, and which one a function is left for, by address).
  llvm::MapVector<std::pair<Operation *, int>, SmallVector<int32_t, 2>> lists;
  for (auto [id, e] : llvm::enumerate(edges)) {
    if (e.ret)
      continue;
    int key = e.branch ? e.successor : (e.entry ? -2 : -1);
    lists[{e.from, key}].push_back(static_cast<int32_t>(id));
  }
  auto dynamic = [&](Value input) {
    auto it = handleOf.find(input);
    return it != handleOf.end() && own[it->second] == Ownership::Dynamic &&
           edgeMerge(it->second);
  };
  for (auto &[key, ids] : lists) {
    unsigned width = edges[ids.front()].inputs.size();
    SmallVector<bool> positions(width, false);
    for (int32_t id : ids)
      for (auto [j, input] : llvm::enumerate(edges[id].inputs))
        if (j < width && dynamic(input))
          positions[j] = true;
    for (int32_t id : ids)
      for (auto [j, input] : llvm::enumerate(edges[id].inputs))
        if (j < width && positions[j] && !dynamic(input) &&
            forced.insert(input).second)
          changed = true;
  }
  if (changed)
    return true;
  for (auto &[key, ids] : lists) {
    const Edge &first = edges[ids.front()];
    FunctionPlan::FlagList list;
    list.op = first.from;
    list.entry = first.entry;
    list.successor = first.branch ? first.successor : -1;
    for (auto [j, input] : llvm::enumerate(first.inputs)) {
      if (!dynamic(input))
        continue;
      FunctionPlan::Incoming in;
      int32_t h = first.transfer[j];
      if (h >= 0) {
        in.handle = h;
        in.ownership = own[h];
      }
      list.flags.push_back(in);
    }
    if (list.flags.empty())
      continue;
    Operation *op = first.from;
    Operation *appendedTo = first.entry ? op : op->getParentOp();
    if (first.entry &&
        first.firstOperand + first.operands.size() != op->getNumOperands())
      return leave(op, "flags cannot be appended to the region op's entry "
                       "operands (they are not its last operands)");
    if (!first.branch &&
        (appendedTo->hasTrait<OpTrait::AttrSizedOperandSegments>() ||
         appendedTo->hasTrait<OpTrait::AttrSizedResultSegments>()))
      return leave(appendedTo, "flags cannot be appended to '" +
                                   appendedTo->getName().getStringRef() +
                                   "' (sized operand or result segments)");
    plan.flagLists.push_back(std::move(list));
  }
  for (auto [id, h] : llvm::enumerate(handles))
    if (own[id] == Ownership::Dynamic && edgeMerge(id))
      plan.flagged.insert(h.value);
  return true;
}

void FunctionAnalysis::run() {
  plan.func = func.getOperation();
  repeats = callees.of(func.getOperation());
  if (!classify())
    return;
  resolveBases();
  if (!checkNoBranchLoops() || !collectEdges())
    return;
  if (findEquivalentMerges()) {
    // Again, with those merges as views of their one value.
    handles.clear();
    handleOf.clear();
    viewOf.clear();
    baseOf.clear();
    selectSources.clear();
    edges.clear();
    edgeUse.clear();
    incoming.clear();
    edgesOf.clear();
    userFrees.clear();
    alsoNamedBy.clear();
    if (!classify())
      return;
    resolveBases();
    if (!collectEdges())
      return;
  }
  // Allocations the input frees: each of them once, in its block.
  DenseMap<int32_t, int> frees;
  for (Value v : userFrees) {
    auto it = baseOf.find(v);
    int32_t h = it == baseOf.end() ? -1 : it->second;
    Operation *at = nullptr;
    for (OpOperand &use : v.getUses())
      if (!at && hasEffect<MemoryEffects::Free>(use.getOwner(), v))
        at = use.getOwner();
    if (h < 0 || handles[h].kind != Kind::Alloc ||
        (at && at->getBlock() != handles[h].block) || ++frees[h] > 1) {
      leave(at ? at : func.getOperation(),
            "the input frees a buffer other than an allocation of the "
            "same block, once");
      return;
    }
    handles[h].kind = Kind::UserFreed;
  }
  for (unsigned pass = 0; pass < 2; ++pass) {
    for (unsigned round = 0; round < 8; ++round) {
      if (!solve())
        return;
      if (selectConflict) {
        leave(func.getOperation(), "a region op's result that takes buffers "
                                   "over is handed one on an edge too");
        return;
      }
      bool changed = false;
      if (!flags(changed))
        return;
      if (!changed)
        break;
      plan.flagLists.clear();
      plan.flagged.clear();
    }
    // Again with the selects that take their buffers over.
    if (pass || !chooseOwningSelects())
      break;
    plan.flagLists.clear();
    plan.flagged.clear();
    forced.clear();
    blocked.clear();
    siblings.clear();
  }
  if (!place())
    return;
  for (auto [id, h] : llvm::enumerate(handles)) {
    plan.handles.push_back(h.value);
    plan.ownership.push_back(own[id]);
  }
  for (auto &[select, taken] : owningSelects)
    if (partialSelects.contains(select))
      plan.selectFlags.push_back({select, {taken.begin(), taken.end()}});
  // Returned merges that always hold one value of their type.
  std::optional<DominanceInfo> dominance;
  for (Edge &e : edges) {
    if (!e.ret)
      continue;
    for (auto [j, v] : llvm::enumerate(e.operands)) {
      Value same = equivalent.lookup(v);
      for (unsigned n = 0; same && n < 64; ++n) {
        Value next = equivalent.lookup(stripCasts(same));
        if (!next)
          break;
        same = next;
      }
      if (!same || same.getType() != v.getType())
        continue;
      if (!dominance)
        dominance.emplace(func.getOperation());
      if (dominance->properlyDominates(same, e.from))
        plan.returnForwards.push_back(
            {e.from, e.firstOperand + static_cast<unsigned>(j), same});
    }
  }
}

} // namespace

namespace {
/// `b` is `a`, or casts of it to a type a memref.cast of `a` can have.
bool sameBuffer(Value a, Value b) {
  if (a == b)
    return true;
  return stripCasts(a) == stripCasts(b) &&
         memref::CastOp::areCastCompatible(TypeRange{a.getType()},
                                           TypeRange{b.getType()});
}
} // namespace

SmallVector<int32_t> repeatedResults(Operation *func) {
  auto fn = dyn_cast_or_null<FunctionOpInterface>(func);
  if (!fn || fn.isExternal())
    return {};
  SmallVector<Operation *> returns;
  for (Block &block : fn.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
      returns.push_back(&block.back());
  unsigned n = fn.getNumResults();
  SmallVector<int32_t> repeats(n, -1);
  if (returns.empty() || llvm::any_of(returns, [&](Operation *ret) {
        return ret->getNumOperands() != n;
      }))
    return repeats;
  for (unsigned j = 0; j < n; ++j) {
    if (!isMemref(returns.front()->getOperand(j)))
      continue;
    for (unsigned k = 0; k < j && repeats[j] < 0; ++k)
      if (repeats[k] < 0 && llvm::all_of(
                                returns,
                                [&](Operation *ret) {
                                  return sameBuffer(ret->getOperand(k),
                                                    ret->getOperand(j));
                                }))
        repeats[j] = static_cast<int32_t>(k);
  }
  return repeats;
}

namespace {
/// One pass of the analysis over the functions under `root`.
std::vector<FunctionPlan> analyzeFunctions(Operation *root, Callees &callees) {
  std::vector<FunctionPlan> plans;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return WalkResult::advance();
    if (!func.isExternal() &&
        (op == root || isa_and_nonnull<ModuleOp>(op->getParentOp()))) {
      plans.emplace_back();
      FunctionAnalysis(func, plans.back(), callees).run();
      LLVM_DEBUG({
        const FunctionPlan &plan = plans.back();
        llvm::dbgs() << "[" DEBUG_TYPE "] @" << func.getName() << ": ";
        if (plan.left.empty())
          llvm::dbgs() << plan.handles.size() << " handles, "
                       << plan.flagged.size() << " run-time flags, "
                       << plan.returnCopies.size() << " returned copies\n";
        else
          llvm::dbgs() << "left to upstream: " << plan.left << "\n";
      });
      if (!plans.back().left.empty()) {
        FunctionPlan &plan = plans.back();
        plan.frees.clear();
        plan.flagLists.clear();
        plan.returnCopies.clear();
        plan.flagged.clear();
        plan.returnForwards.clear();
        plan.selectFlags.clear();
        plan.handles.clear();
        plan.ownership.clear();
        op->walk([&](Operation *nested) {
          for (Value r : nested->getResults())
            if (allocationOf(nested, r) == ResultAllocation::Heap)
              ++plan.leftAllocations;
        });
      }
    }
    return WalkResult::skip();
  });
  return plans;
}
} // namespace

std::vector<FunctionPlan> analyzeOwnership(Operation *root) {
  Callees callees;
  while (true) {
    std::vector<FunctionPlan> plans = analyzeFunctions(root, callees);
    // Callers of a left function that repeats results are left too (again,
    // until no more are).
    bool more = false;
    for (const FunctionPlan &plan : plans)
      if (!plan.left.empty() &&
          llvm::any_of(callees.of(plan.func), [](int32_t r) { return r >= 0; }))
        more |= callees.unsafe.insert(plan.func).second;
    if (!more)
      return plans;
  }
}

} // namespace memplan
