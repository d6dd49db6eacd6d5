//===- PlanAttributes.cpp - A deallocation plan stated by attributes ------===//
//
// See include/memplan/Deallocation/PlanAttributes.h. Each function's plan is
// read and checked first (what it asks of the IR by PlanChecks.h, whose
// checks the plan as data makes too); the rewrite (ApplyPlan.h) runs only
// when every plan is well formed, so that a malformed one changes nothing.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/PlanAttributes.h"

#include "ApplyPlan.h"
#include "PlanChecks.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-test-apply-deallocation-plan"

using namespace mlir;

namespace memplan {
namespace {

constexpr llvm::StringLiteral kPrefix = "memplan.test_";

/// Reads one function's plan from its attributes.
class PlanReader {
public:
  explicit PlanReader(FunctionOpInterface func) : func(func) {
    plan.func = func;
  }

  /// The plan, or failure after a located error per defect.
  FailureOr<FunctionPlan> read();

private:
  InFlightDiagnostic error(Operation *op) {
    ok = false;
    return op->emitError() << DEBUG_TYPE << ": ";
  }
  /// `attr`'s value on `op` as integers, or nullopt when `op` has none (an
  /// error when it is not an array<i64>).
  std::optional<ArrayRef<int64_t>> integers(Operation *op, StringRef attr);
  /// `attr`'s value on `op` as pairs of integers (`[array<i64: a, b>, ...]`).
  std::optional<SmallVector<std::pair<int64_t, int64_t>>> pairs(Operation *op,
                                                                StringRef attr);
  /// Whether `h` is a handle, else an error at `op`.
  bool isHandle(Operation *op, int64_t h);
  bool isDynamic(Operation *op, int64_t h);

  void readOwnership();
  /// Handles stated for `values` (an op's results, a block's arguments).
  void defineHandles(Operation *op, StringRef attr, ValueRange values);
  void readFlags();
  void readFlagList(Operation *op, ArrayRef<int64_t> entries,
                    FunctionPlan::FlagList list);
  void readFrees(Operation *op);
  void readReturnCopies(Operation *op);

  FunctionOpInterface func;
  FunctionPlan plan;
  std::vector<bool> defined;
  bool ok = true;
};

std::optional<ArrayRef<int64_t>> PlanReader::integers(Operation *op,
                                                      StringRef attr) {
  Attribute a = op->getAttr(attr);
  if (!a)
    return std::nullopt;
  if (auto array = dyn_cast<DenseI64ArrayAttr>(a))
    return array.asArrayRef();
  error(op) << attr << " must be an array<i64>";
  return std::nullopt;
}

std::optional<SmallVector<std::pair<int64_t, int64_t>>>
PlanReader::pairs(Operation *op, StringRef attr) {
  Attribute a = op->getAttr(attr);
  if (!a)
    return std::nullopt;
  SmallVector<std::pair<int64_t, int64_t>> out;
  auto list = dyn_cast<ArrayAttr>(a);
  for (Attribute element : list ? list.getValue() : ArrayRef<Attribute>()) {
    auto pair = dyn_cast<DenseI64ArrayAttr>(element);
    if (!pair || pair.size() != 2) {
      list = nullptr;
      break;
    }
    out.push_back({pair[0], pair[1]});
  }
  if (!list) {
    error(op) << attr << " must be a list of array<i64: a, b>";
    return std::nullopt;
  }
  return out;
}

bool PlanReader::isHandle(Operation *op, int64_t h) {
  if (h >= 0 && h < static_cast<int64_t>(plan.handles.size()))
    return true;
  error(op) << "no handle " << h;
  return false;
}

bool PlanReader::isDynamic(Operation *op, int64_t h) {
  if (!isHandle(op, h))
    return false;
  if (plan.ownership[h] == Ownership::Dynamic)
    return true;
  error(op) << "handle " << h << " is not dynamic";
  return false;
}

void PlanReader::readOwnership() {
  auto list = func->getAttrOfType<ArrayAttr>("memplan.test_ownership");
  for (Attribute a : list.getValue()) {
    auto name = dyn_cast<StringAttr>(a);
    std::optional<Ownership> own =
        !name ? std::nullopt
              : llvm::StringSwitch<std::optional<Ownership>>(name.getValue())
                    .Case("yes", Ownership::Yes)
                    .Case("no", Ownership::No)
                    .Case("dynamic", Ownership::Dynamic)
                    .Default(std::nullopt);
    if (!own) {
      error(func) << "an ownership is \"yes\", \"no\" or \"dynamic\"";
      own = Ownership::No;
    }
    plan.ownership.push_back(*own);
  }
  plan.handles.resize(plan.ownership.size());
  defined.assign(plan.ownership.size(), false);
}

void PlanReader::defineHandles(Operation *op, StringRef attr,
                               ValueRange values) {
  std::optional<ArrayRef<int64_t>> handles = integers(op, attr);
  if (!handles)
    return;
  if (handles->size() != values.size()) {
    error(op) << attr << " needs " << values.size() << " entries";
    return;
  }
  for (auto [h, v] : llvm::zip(*handles, values)) {
    if (h == -1 || !isHandle(op, h))
      continue;
    if (defined[h])
      error(op) << "handle " << h << " is stated twice";
    else if (!isa<BaseMemRefType>(v.getType()))
      error(op) << "handle " << h << " is not a memref";
    defined[h] = true;
    plan.handles[h] = v;
  }
}

void PlanReader::readFlagList(Operation *op, ArrayRef<int64_t> entries,
                              FunctionPlan::FlagList list) {
  list.op = op;
  for (int64_t h : entries) {
    if (h == -1)
      list.flags.push_back({-1, Ownership::No});
    else if (isHandle(op, h))
      list.flags.push_back({static_cast<int32_t>(h), plan.ownership[h]});
  }
  plan.flagLists.push_back(std::move(list));
}

void PlanReader::readFlags() {
  for (auto [h, v] : llvm::enumerate(plan.handles)) {
    if (plan.ownership[h] != Ownership::Dynamic)
      continue;
    Operation *def = v.getDefiningOp();
    if (canCarryFlag(v, func)) {
      plan.flagged.insert(v);
      continue;
    }
    if (std::optional<ArrayRef<int64_t>> taken =
            def ? integers(def, "memplan.test_takes") : std::nullopt) {
      FunctionPlan::SelectFlag flag;
      flag.select = h;
      for (int64_t t : *taken)
        if (isHandle(def, t))
          flag.taken.push_back(t);
      plan.selectFlags.push_back(std::move(flag));
      continue;
    }
    Operation *at = def ? def : func.getOperation();
    error(at) << "dynamic handle " << h
              << " has no flag: it is not a block argument of another block "
                 "than the entry, a region op's result or a select with "
                 "memplan.test_takes";
  }
  func.getFunctionBody().walk([&](Operation *op) {
    if (std::optional<ArrayRef<int64_t>> flags =
            integers(op, "memplan.test_flags")) {
      if (!flagListFits(op, /*entry=*/false, /*successor=*/-1))
        error(op) << "memplan.test_flags is for region terminators";
      else
        readFlagList(op, *flags, {});
    }
    if (std::optional<ArrayRef<int64_t>> flags =
            integers(op, "memplan.test_entry_flags")) {
      if (!flagListFits(op, /*entry=*/true, /*successor=*/-1)) {
        error(op) << "memplan.test_entry_flags is for region ops";
      } else {
        FunctionPlan::FlagList list;
        list.entry = true;
        readFlagList(op, *flags, std::move(list));
      }
    }
    Attribute perSuccessor = op->getAttr("memplan.test_successor_flags");
    if (!perSuccessor)
      return;
    auto lists = dyn_cast<ArrayAttr>(perSuccessor);
    if (!flagListFits(op, /*entry=*/false, /*successor=*/0) || !lists ||
        lists.size() != op->getNumSuccessors() ||
        !llvm::all_of(lists, llvm::IsaPred<DenseI64ArrayAttr>)) {
      error(op) << "memplan.test_successor_flags is one array<i64> per "
                   "successor of a branch";
      return;
    }
    for (auto [k, flags] : llvm::enumerate(lists)) {
      FunctionPlan::FlagList list;
      list.successor = k;
      readFlagList(op, cast<DenseI64ArrayAttr>(flags).asArrayRef(),
                   std::move(list));
    }
  });
}

void PlanReader::readFrees(Operation *op) {
  bool terminator = !canFreeAfter(op);
  auto add = [&](FunctionPlan::Free free) {
    if (isHandle(op, free.handle))
      plan.frees.push_back(free);
  };
  // The frees `attr` lists as pairs on `op`, each stated by `state` (false:
  // a malformed pair, which it reported; the rest are not read).
  auto paired =
      [&](StringRef attr,
          function_ref<bool(int64_t, int64_t, FunctionPlan::Free &)> state) {
        for (auto [a, b] : pairs(op, attr).value_or(
                 SmallVector<std::pair<int64_t, int64_t>>())) {
          FunctionPlan::Free free;
          if (!state(a, b, free))
            return;
          add(free);
        }
      };
  paired("memplan.test_free_unselected",
         [&](int64_t h, int64_t select, FunctionPlan::Free &free) {
           if (terminator) {
             error(op) << "no free goes after a terminator";
             return false;
           }
           free.handle = h;
           free.after = op;
           free.unlessSelected = isHandle(op, select) ? select : -1;
           return true;
         });
  // The frees `attr` lists on `op`, each `free` with its handle, where
  // the op may carry them (else `misplaced` is the error).
  auto listed = [&](StringRef attr, bool allowed, StringRef misplaced,
                    FunctionPlan::Free free) {
    std::optional<ArrayRef<int64_t>> handles = integers(op, attr);
    if (!handles || handles->empty())
      return;
    if (!allowed) {
      error(op) << misplaced;
      return;
    }
    for (int64_t h : *handles) {
      free.handle = h;
      add(free);
    }
  };
  FunctionPlan::Free after, atStart, before;
  after.after = op;
  atStart.atStart = op->getBlock();
  before.before = op;
  listed("memplan.test_free_after", !terminator,
         "no free goes after a terminator", after);
  listed("memplan.test_free_at_start", op == &op->getBlock()->front(),
         "memplan.test_free_at_start is for a block's first op", atStart);
  listed("memplan.test_free_before", true, "", before);
  before.unlessReturned = true;
  listed("memplan.test_free_before_unless_returned", isFunctionReturn(op, func),
         "memplan.test_free_before_unless_returned is for the function's "
         "returns",
         before);
  paired("memplan.test_free_on_edge", [&](int64_t successor, int64_t h,
                                          FunctionPlan::Free &free) {
    if (!isBranchSuccessor(op, successor)) {
      error(op) << "memplan.test_free_on_edge names a successor of a branch";
      return false;
    }
    free.handle = h;
    free.edge = op;
    free.edgeSuccessor = successor;
    return true;
  });
}

void PlanReader::readReturnCopies(Operation *op) {
  Attribute attr = op->getAttr("memplan.test_copies");
  if (!attr)
    return;
  if (!isFunctionReturn(op, func)) {
    error(op) << "copies are made at the function's returns";
    return;
  }
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list || !llvm::all_of(list, llvm::IsaPred<DictionaryAttr>)) {
    error(op) << "memplan.test_copies must be a list of dictionaries";
    return;
  }
  auto isMemrefOperand = [&](int64_t position) {
    if (memplan::isMemrefOperand(op, position))
      return true;
    error(op) << "operand " << position << " is not a memref";
    return false;
  };
  for (auto entry : list.getAsRange<DictionaryAttr>()) {
    FunctionPlan::ReturnCopy copy;
    copy.ret = op;
    bool known = true;
    for (NamedAttribute field : entry) {
      StringRef key = field.getName().getValue();
      auto integer = dyn_cast<IntegerAttr>(field.getValue());
      auto integers = dyn_cast<DenseI64ArrayAttr>(field.getValue());
      if (key == "position" && integer) {
        copy.operand = integer.getInt();
        known &= isMemrefOperand(integer.getInt());
      } else if (key == "unless_owned" && integer) {
        copy.handle = integer.getInt();
        copy.conditional = true;
        known &= isDynamic(op, copy.handle);
      } else if (key == "same_as" && integer) {
        copy.sameAs = integer.getInt();
        known &= isMemrefOperand(copy.sameAs);
      } else if (key == "take_over" && integers) {
        for (int64_t h : integers.asArrayRef()) {
          known &= isHandle(op, h);
          copy.takeOver.push_back(h);
        }
      } else {
        error(op) << "a copy is {position = N, unless_owned = handle, "
                     "same_as = N, take_over = array<i64: ...>}, not "
                  << key << " = " << field.getValue();
        known = false;
      }
    }
    if (!entry.get("position")) {
      error(op) << "a copy needs its position";
      known = false;
    }
    if (known)
      plan.returnCopies.push_back(std::move(copy));
  }
}

FailureOr<FunctionPlan> PlanReader::read() {
  readOwnership();
  func.getFunctionBody().walk([&](Operation *op) {
    if (op == &op->getBlock()->front())
      defineHandles(op, "memplan.test_arguments",
                    op->getBlock()->getArguments());
    else if (op->hasAttr("memplan.test_arguments"))
      error(op) << "memplan.test_arguments is for a block's first op";
    defineHandles(op, "memplan.test_handles", op->getResults());
  });
  for (auto [h, isDefined] : llvm::enumerate(defined))
    if (!isDefined)
      error(func) << "handle " << h << " is stated by no value";
  if (!ok)
    return failure();
  readFlags();
  func.getFunctionBody().walk([&](Operation *op) {
    readFrees(op);
    readReturnCopies(op);
  });
  if (!ok)
    return failure();
  return std::move(plan);
}

/// Removes the memplan.test_ attributes of `op`.
void dropTestAttributes(Operation *op) {
  SmallVector<StringAttr> names;
  for (NamedAttribute a : op->getAttrs())
    if (a.getName().getValue().starts_with(kPrefix))
      names.push_back(a.getName());
  for (StringAttr name : names)
    op->removeAttr(name);
}

} // namespace

bool applyDeallocationPlanAttributes(MlirOperation rootHandle,
                                     DeallocationStats &stats) {
  Operation *root = unwrap(rootHandle);
  std::vector<FunctionPlan> plans;
  bool ok = true;
  root->walk([&](FunctionOpInterface func) {
    if (func.isExternal() || !func->hasAttr("memplan.test_ownership"))
      return;
    if (!func->getAttrOfType<ArrayAttr>("memplan.test_ownership")) {
      func->emitError() << DEBUG_TYPE
                        << ": memplan.test_ownership must be a list";
      ok = false;
      return;
    }
    FailureOr<FunctionPlan> plan = PlanReader(func).read();
    if (failed(plan))
      ok = false;
    else
      plans.push_back(std::move(*plan));
  });
  if (!ok)
    return false;
  for (FunctionPlan &plan : plans) {
    LLVM_DEBUG(llvm::dbgs() << "applying the plan at " << plan.func->getLoc()
                            << ": " << plan.frees.size() << " frees, "
                            << plan.flagged.size() << " flagged merges\n");
    Operation *func = plan.func;
    applyFunctionPlan(plan, stats);
    func->walk(dropTestAttributes);
  }
  return true;
}

} // namespace memplan
