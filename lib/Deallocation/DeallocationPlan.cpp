//===- DeallocationPlan.cpp - A deallocation plan as data, and back -------===//
//
// See include/memplan/Deallocation/DeallocationPlan.h. A FunctionPlan is
// stated in the Graph's ids and read back from them; the check runs on the
// ids first (ranges, the function holding what the plan names, the kinds of
// values and ops), then on the ops they name with the checks the plan stated
// by attributes makes too (ApplyPlan.h), so that applying a checked plan
// cannot fail half-way.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/DeallocationPlan.h"
#include "memplan/Deallocation/Ownership.h"
#include "memplan/IR/Graph.h"

#include "ApplyPlan.h"
#include "PlanChecks.h"

#include "mlir/IR/Block.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-deallocation-plan"

using namespace mlir;

namespace memplan {
namespace {

/// The id of `op` (-1 for none).
int32_t idOf(const Graph &g, Operation *op) { return op ? g.opId(op) : -1; }

DeallocationPlan toData(const Graph &g, const FunctionPlan &plan) {
  DeallocationPlan out;
  out.function = idOf(g, plan.func);
  out.left = plan.left;
  out.leftAt = idOf(g, plan.leftAt);
  out.leftAllocations = plan.leftAllocations;
  for (Value v : plan.handles)
    out.handles.push_back(g.valueId(v));
  out.ownership = plan.ownership;
  for (Value v : plan.flagged)
    out.flagged.push_back(g.valueId(v));
  for (const FunctionPlan::FlagList &list : plan.flagLists) {
    std::vector<std::pair<int32_t, Ownership>> flags;
    for (const FunctionPlan::Incoming &in : list.flags)
      flags.push_back({in.handle, in.ownership});
    out.flagLists.emplace_back(idOf(g, list.op), list.entry, list.successor,
                               std::move(flags));
  }
  for (const FunctionPlan::SelectFlag &flag : plan.selectFlags)
    out.selectFlags.emplace_back(flag.select, flag.taken);
  for (const FunctionPlan::Free &f : plan.frees) {
    FreePlace place = f.after     ? FreePlace::After
                      : f.before  ? FreePlace::Before
                      : f.atStart ? FreePlace::AtStart
                                  : FreePlace::OnEdge;
    int32_t at = f.atStart ? g.blockId(f.atStart)
                           : idOf(g, f.after    ? f.after
                                     : f.before ? f.before
                                                : f.edge);
    int32_t successor =
        place == FreePlace::OnEdge ? static_cast<int32_t>(f.edgeSuccessor) : 0;
    out.frees.emplace_back(f.handle, place, at, successor, f.unlessSelected,
                           f.unlessReturned);
  }
  for (const FunctionPlan::ReturnCopy &copy : plan.returnCopies)
    out.returnCopies.emplace_back(
        idOf(g, copy.ret), static_cast<int32_t>(copy.operand), copy.handle,
        copy.conditional, copy.sameAs, copy.takeOver);
  for (const FunctionPlan::ReturnForward &f : plan.returnForwards)
    out.returnForwards.push_back(
        {idOf(g, f.ret), static_cast<int32_t>(f.operand), g.valueId(f.value)});
  for (auto [h, op] : plan.unawaited)
    out.unawaited.push_back({h, idOf(g, op)});
  return out;
}

/// `plan` in MLIR's handles; its ids are in range (checkIds).
FunctionPlan fromData(const Graph &g, const DeallocationPlan &plan) {
  FunctionPlan out;
  out.func = g.op(plan.function);
  out.left = plan.left;
  out.leftAt = plan.leftAt < 0 ? nullptr : g.op(plan.leftAt);
  out.leftAllocations = static_cast<unsigned>(plan.leftAllocations);
  for (int32_t v : plan.handles)
    out.handles.push_back(g.value(v));
  out.ownership = plan.ownership;
  for (int32_t v : plan.flagged)
    out.flagged.insert(g.value(v));
  for (const auto &[op, entry, successor, flags] : plan.flagLists) {
    FunctionPlan::FlagList list;
    list.op = g.op(op);
    list.entry = entry;
    list.successor = successor;
    for (auto [h, own] : flags)
      list.flags.push_back({h, own});
    out.flagLists.push_back(std::move(list));
  }
  for (const auto &[select, taken] : plan.selectFlags)
    out.selectFlags.push_back({select, taken});
  for (const auto &[h, place, at, successor, unlessSelected, unlessReturned] :
       plan.frees) {
    FunctionPlan::Free free;
    free.handle = h;
    switch (place) {
    case FreePlace::After:
      free.after = g.op(at);
      break;
    case FreePlace::Before:
      free.before = g.op(at);
      break;
    case FreePlace::AtStart:
      free.atStart = g.block(at);
      break;
    case FreePlace::OnEdge:
      free.edge = g.op(at);
      free.edgeSuccessor = successor;
      break;
    }
    free.unlessSelected = unlessSelected;
    free.unlessReturned = unlessReturned;
    out.frees.push_back(free);
  }
  for (const auto &[ret, operand, h, conditional, sameAs, takeOver] :
       plan.returnCopies) {
    FunctionPlan::ReturnCopy copy;
    copy.ret = g.op(ret);
    copy.operand = operand;
    copy.handle = h;
    copy.conditional = conditional;
    copy.sameAs = sameAs;
    copy.takeOver = takeOver;
    out.returnCopies.push_back(std::move(copy));
  }
  for (auto [h, op] : plan.unawaited)
    out.unawaited.push_back({h, g.op(op)});
  return out;
}

/// Checks a plan: the first defect, as an exception kind and a message.
class PlanChecker {
public:
  PlanChecker(const Graph &g, const DeallocationPlan &plan)
      : g(g), plan(plan) {}
  std::optional<PlanDefect> run();

private:
  using Defect = std::optional<PlanDefect>;
  static Defect fail(PlanDefect::Kind kind, std::string message) {
    return PlanDefect{kind, std::move(message)};
  }
  /// The checks of the ids alone: after them, every id can be read back.
  Defect checkIds();
  /// The checks of what the ids name.
  Defect checkIR(const FunctionPlan &fp);

  /// An op of the function (nested in it, not the function itself).
  Defect inFunction(int64_t op, const char *what);
  Defect isHandle(int64_t h, const char *what, bool orNone = false);
  /// A value of the function.
  Defect isValue(int64_t v, const char *what);

  const Graph &g;
  const DeallocationPlan &plan;
};

PlanChecker::Defect PlanChecker::inFunction(int64_t op, const char *what) {
  if (op < 0 || op >= g.numOps())
    return fail(PlanDefect::Index, std::string(what) + " op " +
                                       std::to_string(op) + " out of range");
  if (op == plan.function || !g.isAncestor(plan.function, op))
    return fail(PlanDefect::Value, std::string(what) + " op " +
                                       std::to_string(op) +
                                       " is not in the function");
  return std::nullopt;
}

PlanChecker::Defect PlanChecker::isHandle(int64_t h, const char *what,
                                          bool orNone) {
  if ((orNone && h == -1) ||
      (h >= 0 && h < static_cast<int64_t>(plan.handles.size())))
    return std::nullopt;
  return fail(PlanDefect::Index, std::string(what) + " handle " +
                                     std::to_string(h) + " out of range");
}

PlanChecker::Defect PlanChecker::isValue(int64_t v, const char *what) {
  if (v < 0 || v >= g.numValues())
    return fail(PlanDefect::Index, std::string(what) + " value " +
                                       std::to_string(v) + " out of range");
  int32_t at =
      g.valueOp[v] >= 0 ? g.valueOp[v] : g.blockParentOp[g.valueBlock[v]];
  if (!g.isAncestor(plan.function, at))
    return fail(PlanDefect::Value, std::string(what) + " value " +
                                       std::to_string(v) +
                                       " is not in the function");
  return std::nullopt;
}

#define MEMPLAN_CHECK(expr)                                                    \
  if (Defect defect = (expr))                                                  \
  return defect

PlanChecker::Defect PlanChecker::checkIds() {
  int32_t f = plan.function;
  if (f < 0 || f >= g.numOps())
    return fail(PlanDefect::Index,
                "function op " + std::to_string(f) + " out of range");
  auto func = dyn_cast<FunctionOpInterface>(g.op(f));
  if (!func || func.isExternal())
    return fail(PlanDefect::Type,
                "op " + std::to_string(f) + " is no function with a body");
  if (!plan.left.empty())
    return fail(PlanDefect::Value,
                "the function is left to upstream's deallocation (" +
                    plan.left + "): there is no plan to apply");
  if (!plan.returnForwards.empty())
    return fail(PlanDefect::Value,
                "the plan forwards returns: return those values and plan "
                "again (memplan-buffer-deallocation does)");
  if (plan.leftAt != -1 && (plan.leftAt < 0 || plan.leftAt >= g.numOps()))
    return fail(PlanDefect::Index,
                "left_at op " + std::to_string(plan.leftAt) + " out of range");
  if (plan.ownership.size() != plan.handles.size())
    return fail(PlanDefect::Value, "handles and ownership differ in length");
  llvm::DenseSet<int32_t> seen;
  for (int32_t v : plan.handles) {
    MEMPLAN_CHECK(isValue(v, "a handle's"));
    if (!seen.insert(v).second)
      return fail(PlanDefect::Value,
                  "value " + std::to_string(v) + " is two handles");
    if (!g.types[g.valueType[v]].isMemRef())
      return fail(PlanDefect::Type,
                  "handle value " + std::to_string(v) + " is not a memref");
  }
  seen.clear();
  for (int32_t v : plan.flagged) {
    MEMPLAN_CHECK(isValue(v, "a flagged"));
    if (!seen.insert(v).second)
      return fail(PlanDefect::Value,
                  "value " + std::to_string(v) + " is flagged twice");
  }
  for (const auto &[op, entry, successor, flags] : plan.flagLists) {
    MEMPLAN_CHECK(inFunction(op, "a flag list's"));
    for (auto [h, own] : flags) {
      MEMPLAN_CHECK(isHandle(h, "a flag's", /*orNone=*/true));
      if (h >= 0 && own != Ownership::No && own != Ownership::Yes &&
          plan.ownership[h] != Ownership::Dynamic)
        return fail(PlanDefect::Value, "a flag hands over the flag of handle " +
                                           std::to_string(h) +
                                           ", which is not dynamic");
    }
  }
  for (const auto &[select, taken] : plan.selectFlags) {
    MEMPLAN_CHECK(isHandle(select, "a select flag's"));
    if (taken.empty())
      return fail(PlanDefect::Value, "a select flag takes no handle");
    for (int32_t t : taken)
      MEMPLAN_CHECK(isHandle(t, "a select flag's taken"));
  }
  for (const auto &[h, place, at, successor, unlessSelected, unlessReturned] :
       plan.frees) {
    MEMPLAN_CHECK(isHandle(h, "a free's"));
    MEMPLAN_CHECK(isHandle(unlessSelected, "a free's unless_selected",
                           /*orNone=*/true));
    if (place == FreePlace::AtStart) {
      if (at < 0 || at >= g.numBlocks())
        return fail(PlanDefect::Index,
                    "a free's block " + std::to_string(at) + " out of range");
      if (!g.isAncestor(f, g.blockParentOp[at]))
        return fail(PlanDefect::Value, "a free's block " + std::to_string(at) +
                                           " is not in the function");
    } else if (place == FreePlace::After || place == FreePlace::Before ||
               place == FreePlace::OnEdge) {
      MEMPLAN_CHECK(inFunction(at, "a free's"));
    } else {
      return fail(PlanDefect::Value, "a free's place is no FreePlace");
    }
    if (unlessReturned && place != FreePlace::Before)
      return fail(PlanDefect::Value,
                  "a free unless returned goes before a return");
  }
  for (const auto &[ret, operand, h, conditional, sameAs, takeOver] :
       plan.returnCopies) {
    MEMPLAN_CHECK(inFunction(ret, "a return copy's"));
    MEMPLAN_CHECK(isHandle(h, "a return copy's", /*orNone=*/!conditional));
    if (conditional && plan.ownership[h] != Ownership::Dynamic)
      return fail(PlanDefect::Value, "a conditional copy's handle " +
                                         std::to_string(h) + " is not dynamic");
    for (int32_t t : takeOver)
      MEMPLAN_CHECK(isHandle(t, "a return copy's take_over"));
  }
  for (auto [h, op] : plan.unawaited) {
    MEMPLAN_CHECK(isHandle(h, "an unawaited"));
    MEMPLAN_CHECK(inFunction(op, "an unawaited handle's"));
  }
  // Every dynamic handle has a flag: a flagged merge or an owning select's.
  llvm::DenseSet<int32_t> hasFlag(plan.flagged.begin(), plan.flagged.end());
  for (const auto &[select, taken] : plan.selectFlags)
    hasFlag.insert(plan.handles[select]);
  for (auto [h, own] : llvm::enumerate(plan.ownership))
    if (own == Ownership::Dynamic && !hasFlag.contains(plan.handles[h]))
      return fail(PlanDefect::Value, "dynamic handle " + std::to_string(h) +
                                         " has no flag: it is neither "
                                         "flagged nor a select flag's");
  return std::nullopt;
}

/// The flagged values among `inputs`.
size_t countFlagged(const FunctionPlan &fp, ValueRange inputs) {
  return llvm::count_if(inputs,
                        [&](Value v) { return fp.flagged.contains(v); });
}

/// The number of flags the list must hold: one per flagged input of the
/// successor(s) its operands go to.
size_t flagsNeeded(const FunctionPlan &fp, const FunctionPlan::FlagList &l) {
  SmallVector<RegionSuccessor> succs;
  if (l.successor >= 0) {
    return countFlagged(fp, l.op->getSuccessor(l.successor)->getArguments());
  }
  if (l.entry) {
    SmallVector<Attribute> none(l.op->getNumOperands());
    cast<RegionBranchOpInterface>(l.op).getEntrySuccessorRegions(none, succs);
  } else {
    SmallVector<Attribute> none(l.op->getNumOperands());
    cast<RegionBranchTerminatorOpInterface>(l.op).getSuccessorRegions(none,
                                                                      succs);
  }
  return succs.empty() ? 0
                       : countFlagged(fp, succs.front().getSuccessorInputs());
}

PlanChecker::Defect PlanChecker::checkIR(const FunctionPlan &fp) {
  for (auto [k, v] : llvm::enumerate(fp.flagged))
    if (!canCarryFlag(v, fp.func))
      return fail(PlanDefect::Type,
                  "flagged value " + std::to_string(plan.flagged[k]) +
                      " is neither an argument of a block other than the "
                      "entry nor a result of a region op");
  for (const FunctionPlan::FlagList &list : fp.flagLists) {
    std::string op = std::to_string(g.opId(list.op));
    if (!flagListFits(list.op, list.entry, list.successor))
      return fail(PlanDefect::Type,
                  "a flag list on op " + op +
                      " is not a region terminator's, a region op's entry "
                      "or a branch's successor's");
    size_t needed = flagsNeeded(fp, list);
    if (needed != list.flags.size())
      return fail(PlanDefect::Value,
                  "a flag list on op " + op + " has " +
                      std::to_string(list.flags.size()) + " flags for " +
                      std::to_string(needed) + " flagged inputs");
  }
  for (const FunctionPlan::Free &free : fp.frees) {
    if (free.after && !canFreeAfter(free.after))
      return fail(PlanDefect::Value, "a free goes after a terminator");
    if (free.edge && !isBranchSuccessor(free.edge, free.edgeSuccessor))
      return fail(PlanDefect::Type,
                  "a free on an edge names no successor of a branch");
    if (free.unlessReturned && !isFunctionReturn(free.before, fp.func))
      return fail(PlanDefect::Value,
                  "a free unless returned goes before a return of the "
                  "function");
  }
  for (const FunctionPlan::ReturnCopy &copy : fp.returnCopies) {
    if (!isFunctionReturn(copy.ret, fp.func))
      return fail(PlanDefect::Type,
                  "copies are made at the function's returns");
    if (!isMemrefOperand(copy.ret, copy.operand) ||
        (copy.sameAs != -1 && !isMemrefOperand(copy.ret, copy.sameAs)))
      return fail(PlanDefect::Type, "a return copy's operand is not a memref");
  }
  return std::nullopt;
}

std::optional<PlanDefect> PlanChecker::run() {
  MEMPLAN_CHECK(checkIds());
  return checkIR(fromData(g, plan));
}

#undef MEMPLAN_CHECK

} // namespace

std::vector<DeallocationPlan> planDeallocation(const Graph &g) {
  std::vector<DeallocationPlan> out;
  for (const FunctionPlan &plan : analyzeOwnership(g.op(0)))
    out.push_back(toData(g, plan));
  return out;
}

std::optional<PlanDefect> checkDeallocationPlan(const Graph &g,
                                                const DeallocationPlan &plan) {
  return PlanChecker(g, plan).run();
}

DeallocationStats applyDeallocationPlan(const Graph &g,
                                        const DeallocationPlan &plan) {
  FunctionPlan fp = fromData(g, plan);
  LLVM_DEBUG(llvm::dbgs() << "applying the plan of " << fp.func->getLoc()
                          << ": " << fp.frees.size() << " frees\n");
  DeallocationStats stats;
  applyFunctionPlan(fp, stats);
  return stats;
}

} // namespace memplan
