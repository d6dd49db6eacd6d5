//===- AllocsToViewsBindings.cpp - Python entry of the view rewrites ------===//
//
// memplan._core.PoolEdit and memplan._core.TransientEdit: the plain-data
// edits (memplan/Reuse/PoolEdit.h, memplan/Transients/TransientEdit.h),
// bound as classes that Python fills field by field. The pool rewrite
// (memplan/reuse/rewrite.py) states each pool's edit as a PoolEdit, applied
// by memplan._core.apply_pool_edit in one call; transient emplacement
// (memplan/transients/emplace.py) and the size queries
// (memplan/transients/queries.py) state the module's rewrite as a
// TransientEdit, applied by memplan._core.apply_transient_edit. Both are
// checked against the graph first: a malformed edit raises and leaves the IR
// as it was.
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/IR/Graph.h"
#include "memplan/IR/OpRoles.h"
#include "memplan/Reuse/EditStep.h"
#include "memplan/Reuse/PoolEdit.h"
#include "memplan/Transients/TransientEdit.h"

#include "EditClasses.h"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace memplan {
namespace {

using namespace edit_classes;

bool isOp(const Graph &g, int64_t op) { return op >= 0 && op < g.numOps(); }

int32_t numOperands(const Graph &g, int32_t op) {
  return g.operandBegin[op + 1] - g.operandBegin[op];
}

/// What a step's value is, for checking the steps that read it.
enum class Kind { None, Index, I1, MemRef, Other };

Kind kindOfValue(const Graph &g, int32_t value) {
  const TypeInfo &t = g.types[g.valueType[value]];
  if (t.kind == TypeKind::Index)
    return Kind::Index;
  if (t.isMemRef())
    return Kind::MemRef;
  if (t.kind == TypeKind::Integer && t.elemBits == 1)
    return Kind::I1;
  return Kind::Other;
}

/// The entry block of function `op`, or -1 when `op` is no function with a
/// body.
int32_t entryBlock(const Graph &g, int64_t op) {
  if (!isOp(g, op) || (g.opRole[op] & 0xFF) != kRoleFunc ||
      g.regionBegin[op] == g.regionBegin[op + 1])
    return -1;
  int32_t region = g.regionBegin[op];
  if (g.regionBlockBegin[region] == g.regionBlockBegin[region + 1])
    return -1;
  return g.regionBlocks[g.regionBlockBegin[region]];
}

/// The function (an op of the func role) that holds `op`, or `op` itself if
/// it is one; -1 if none does.
int32_t functionOf(const Graph &g, int32_t op) {
  while (op >= 0 && (g.opRole[op] & 0xFF) != kRoleFunc)
    op = g.opParent[op];
  return op;
}

/// The function that holds value `v` (its defining op or block).
int32_t functionOfValue(const Graph &g, int32_t v) {
  return functionOf(g, g.valueOp[v] >= 0 ? g.valueOp[v]
                                         : g.blockParentOp[g.valueBlock[v]]);
}

/// What each step of an edit makes: the kind of its value, and the function
/// it is in (an op id, or for the functions the edit makes, -2 - the index
/// of their Function step; -1: no value).
struct StepValues {
  std::vector<Kind> kinds;
  std::vector<int32_t> scopes;
};

/// A step that reads values of fixed kinds (None: not a value) from steps
/// a, b and c and makes a value of kind `out`.
struct Signature {
  std::array<Kind, 3> reads;
  Kind out;
};

/// The signature of `step`, if its kinds are fixed.
std::optional<Signature> signatureOf(EditStep step) {
  using K = Kind;
  switch (step) {
  case EditStep::Constant:
    return Signature{{K::None, K::None, K::None}, K::Index};
  case EditStep::AddI:
  case EditStep::MulI:
  case EditStep::DivUI:
  case EditStep::MaxUI:
    return Signature{{K::Index, K::Index, K::None}, K::Index};
  case EditStep::CmpULT:
  case EditStep::CmpULE:
    return Signature{{K::Index, K::Index, K::None}, K::I1};
  case EditStep::Dim:
    return Signature{{K::MemRef, K::Index, K::None}, K::Index};
  case EditStep::Assert:
    return Signature{{K::I1, K::None, K::None}, K::None};
  case EditStep::View:
    return Signature{{K::MemRef, K::Index, K::Index}, K::MemRef};
  case EditStep::Dealloc:
    return Signature{{K::MemRef, K::None, K::None}, K::None};
  default:
    return std::nullopt;
  }
}

/// Checks an edit's steps and returns what each one's value is: kinds known,
/// operands earlier steps of the right kinds and of the function the step
/// creates its op in, ids in range. A pool edit (`transient` false) uses the
/// steps up to Pool, exactly one Pool, all in function `scope`; a transient
/// edit positions its steps before they create ops, and names its Function
/// steps' functions among `numNames` names.
StepValues checkSteps(const Graph &g,
                      const std::vector<std::array<int64_t, 4>> &steps,
                      const std::vector<int64_t> &cloneOperands, bool transient,
                      const std::set<int32_t> &newArguments, int32_t scope,
                      size_t numNames = 0) {
  StepValues values;
  std::vector<Kind> &kinds = values.kinds;
  int pools = 0;
  bool positioned = !transient;
  // The arguments of the function the last Function step made: those of
  // its source's entry block but the one it leaves out.
  std::vector<int32_t> made;
  auto fail = [](const char *what) {
    throw nb::index_error((std::string("edit step with ") + what).c_str());
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    auto [kind, a, b, c] = steps[i];
    auto earlier = [&](int64_t s) { return s >= 0 && (size_t)s < i; };
    // Step s exists, its value is of `want` (any value for Other), and it
    // is in the function this step creates its op in.
    auto is = [&](int64_t s, Kind want) {
      if (!earlier(s))
        fail("an operand out of range");
      if (kinds[s] == Kind::None || (want != Kind::Other && kinds[s] != want))
        throw nb::value_error("edit step reading a value of the wrong type");
      if (values.scopes[s] != scope)
        throw nb::value_error("edit step reading a value of another function");
    };
    Kind out = Kind::None;
    int32_t in = scope;
    bool creates = true;
    if (!transient && kind > static_cast<int64_t>(EditStep::Pool))
      fail("an unknown kind");
    std::optional<Signature> signature =
        signatureOf(static_cast<EditStep>(kind));
    if (signature) {
      int64_t operands[] = {a, b, c};
      for (size_t k = 0; k < 3; ++k)
        if (signature->reads[k] != Kind::None)
          is(operands[k], signature->reads[k]);
      out = signature->out;
    }
    switch (static_cast<EditStep>(kind)) {
    case EditStep::Value:
      if (a < 0 || a >= g.numValues())
        fail("a value out of range");
      out = kindOfValue(g, static_cast<int32_t>(a));
      in = functionOfValue(g, static_cast<int32_t>(a));
      creates = false;
      break;
    case EditStep::Select:
      is(a, Kind::I1);
      is(b, Kind::Other);
      is(c, kinds[b]);
      out = kinds[b];
      break;
    case EditStep::Pool:
      ++pools;
      if (a == -1)
        is(b, Kind::Index);
      else if (a < 0)
        fail("a negative size");
      out = Kind::MemRef;
      break;
    case EditStep::Argument: {
      int32_t entry = entryBlock(g, a);
      int64_t args =
          entry < 0 ? 0
                    : g.blockNumArgs[entry] + (newArguments.count(a) ? 1 : 0);
      if (entry < 0 || b < 0 || b >= args)
        fail("an argument out of range");
      out = b < g.blockNumArgs[entry]
                ? kindOfValue(g, g.blockArgBegin[entry] + b)
                : Kind::MemRef;
      in = static_cast<int32_t>(a);
      creates = false;
      break;
    }
    case EditStep::Clone:
      if (!isOp(g, a) || !(g.opPurity[a] & kPurityEffectFree) ||
          g.numResults[a] < 1 || g.opEnd[a] != a || b < 0 ||
          b + numOperands(g, a) > (int64_t)cloneOperands.size())
        fail("an op that is not an effect-free op with results, or clone "
             "operands out of range");
      for (int32_t k = 0; k < numOperands(g, a); ++k)
        is(cloneOperands[b + k], Kind::Other);
      out = kindOfValue(g, g.resultBegin[a]);
      break;
    case EditStep::Result:
      if (!earlier(a) || steps[a][0] != static_cast<int64_t>(EditStep::Clone) ||
          b < 0 || b >= g.numResults[steps[a][1]])
        fail("a result out of range");
      out = kindOfValue(g, g.resultBegin[steps[a][1]] + b);
      in = values.scopes[a];
      creates = false;
      break;
    case EditStep::EntryBegin:
      if (entryBlock(g, a) < 0)
        fail("an op that is no function with a body");
      positioned = true;
      in = scope = static_cast<int32_t>(a);
      creates = false;
      break;
    case EditStep::Before:
    case EditStep::After:
      if (!isOp(g, a) || g.opBlock[a] < 0)
        fail("an op out of range");
      positioned = true;
      in = scope = functionOf(g, static_cast<int32_t>(a));
      creates = false;
      break;
    case EditStep::Function: {
      int32_t entry = entryBlock(g, a);
      if (entry < 0 || newArguments.count(a) || b < 0 ||
          (size_t)b >= numNames || c < -1 || c >= g.blockNumArgs[entry])
        fail("a function, name or left-out argument out of range");
      made.clear();
      for (int32_t k = 0; k < g.blockNumArgs[entry]; ++k)
        if (k != c)
          made.push_back(g.blockArgBegin[entry] + k);
      positioned = true;
      in = scope = -2 - static_cast<int32_t>(i);
      creates = false;
      break;
    }
    case EditStep::NewArgument:
      if (a < 0 || (size_t)a >= made.size())
        fail("an argument out of range of the function made last");
      out = kindOfValue(g, made[a]);
      creates = false;
      break;
    case EditStep::Return:
      is(a, Kind::Index);
      break;
    default:
      if (!signature)
        fail("an unknown kind");
    }
    if (creates && !positioned)
      throw nb::value_error("edit step creating an op before a step that "
                            "positions it");
    kinds.push_back(out);
    values.scopes.push_back(out == Kind::None ? -1 : in);
  }
  if (!transient && pools != 1)
    throw nb::value_error("a pool edit has exactly one pool step");
  return values;
}

/// Checks the members of an edit: each an allocation (a memref result, its
/// dynamic sizes first) with its dealloc or -1, a buffer and an offset step
/// of the right kinds; the ops to erase are ops without results or regions.
void checkMembers(const Graph &g, const StepValues &values,
                  const std::vector<int32_t> &allocs,
                  const std::vector<int32_t> &deallocs,
                  const std::vector<int32_t> &bufferStep,
                  const std::vector<int32_t> &offsetStep,
                  const std::vector<int32_t> &erase) {
  size_t n = allocs.size();
  if (deallocs.size() != n || offsetStep.size() != n || bufferStep.size() != n)
    throw nb::value_error("member arrays differ in length");
  const std::vector<Kind> &kinds = values.kinds;
  auto step = [&](int32_t s) { return s >= 0 && (size_t)s < kinds.size(); };
  auto erasable = [&](int32_t op) {
    return g.numResults[op] == 0 && g.opEnd[op] == op;
  };
  std::set<int32_t> seen;
  for (size_t i = 0; i < n; ++i) {
    int32_t a = allocs[i], d = deallocs[i];
    if (!isOp(g, a) || (d != -1 && !isOp(g, d)) || !step(offsetStep[i]) ||
        !step(bufferStep[i]))
      throw nb::index_error("member op or step out of range");
    if (kinds[offsetStep[i]] != Kind::Index ||
        kinds[bufferStep[i]] != Kind::MemRef)
      throw nb::value_error("a member's buffer or offset step is of the "
                            "wrong type");
    int32_t in = functionOf(g, a);
    if (values.scopes[offsetStep[i]] != in ||
        values.scopes[bufferStep[i]] != in)
      throw nb::value_error("a member's buffer or offset step is in another "
                            "function");
    // A member is an allocation: a memref result, its dynamic sizes first.
    const TypeInfo *type =
        g.numResults[a] ? &g.types[g.valueType[g.resultBegin[a]]] : nullptr;
    if (!type || !type->isMemRef() || g.opEnd[a] != a ||
        std::count(type->shape.begin(), type->shape.end(), TypeInfo::kDynamic) >
            numOperands(g, a) ||
        !seen.insert(a).second)
      throw nb::value_error("a member is not a memref allocation, or twice");
    if (d != -1 && !erasable(d))
      throw nb::value_error("a dealloc has results or regions");
  }
  for (int32_t op : erase) {
    if (!isOp(g, op))
      throw nb::index_error("op to erase out of range");
    if (!erasable(op) || seen.count(op))
      throw nb::value_error("an op to erase has results or regions");
  }
}

/// Checks a pool edit against `g` (ids in range, step operands earlier
/// steps of the right kinds, one Pool step): a malformed edit raises.
void checkPoolEdit(const Graph &g, const PoolEdit &edit) {
  if (!isOp(g, edit.insertBefore) || !isOp(g, edit.deallocAfter) ||
      edit.alignment < 1)
    throw nb::index_error("pool edit anchor out of range");
  for (int32_t op : edit.hoist)
    if (!isOp(g, op))
      throw nb::index_error("hoisted op out of range");
  for (auto [op, index, value] : edit.sizeOperands)
    if (!isOp(g, op) || index < 0 || index >= numOperands(g, op) || value < 0 ||
        value >= g.numValues())
      throw nb::index_error("size operand out of range");
  StepValues values = checkSteps(g, edit.steps, {}, false, {},
                                 functionOf(g, edit.insertBefore));
  const std::vector<Kind> &kinds = values.kinds;
  int32_t pool = static_cast<int32_t>(
      std::find_if(edit.steps.begin(), edit.steps.end(),
                   [](const auto &s) {
                     return s[0] == static_cast<int64_t>(EditStep::Pool);
                   }) -
      edit.steps.begin());
  checkMembers(g, values, edit.allocs, edit.deallocs,
               std::vector<int32_t>(edit.allocs.size(), pool), edit.offsetStep,
               edit.erase);
}

/// Checks a transient edit against `g` (ids in range, step operands earlier
/// steps of the right kinds, steps positioned before they create): a
/// malformed edit raises.
void checkTransientEdit(const Graph &g, const TransientEdit &edit) {
  if (edit.alignment < 1)
    throw nb::value_error("transient edit alignment below 1");
  std::set<int32_t> added;
  for (int32_t f : edit.newArguments)
    if (entryBlock(g, f) < 0 || !added.insert(f).second)
      throw nb::index_error("storage argument for no function with a "
                            "body, or twice");
  StepValues values = checkSteps(g, edit.steps, edit.cloneOperands, true, added,
                                 -1, edit.names.size());
  const std::vector<Kind> &kinds = values.kinds;
  for (const auto *list : {&edit.marked, &edit.unmarked})
    for (int64_t s : *list)
      if (s < 0 || (size_t)s >= kinds.size() || kinds[s] == Kind::None)
        throw nb::index_error("marked step out of range");
  for (auto [op, name] : edit.symbols)
    if (!isOp(g, op) || name < 0 || (size_t)name >= edit.names.size())
      throw nb::index_error("symbol op or name out of range");
  if (!edit.symbols.empty() && edit.symbolAttribute.empty())
    throw nb::value_error("symbols without an attribute name");
  checkMembers(g, values, edit.allocs, edit.deallocs, edit.bufferStep,
               edit.offsetStep, edit.erase);
  for (auto [call, argument, step] : edit.calls) {
    if (!isOp(g, call) || (g.opRole[call] & 0xFF) != kRoleCall ||
        argument < 0 || argument > numOperands(g, call) || step < 0 ||
        (size_t)step >= kinds.size())
      throw nb::index_error("call, argument or step out of range");
    if (kinds[step] != Kind::MemRef)
      throw nb::value_error("a call's storage step is no memref");
    if (values.scopes[step] != functionOf(g, call))
      throw nb::value_error("a call's storage step is in another function");
  }
}

} // namespace

void registerAllocsToViewsBindings(nb::module_ &m) {
  {
    nb::enum_<EditStep> e(m, "EditStep", nb::is_arithmetic(),
                          "The steps of an edit's program.");
#define MEMPLAN_EDIT_STEP(Name, Py, Doc) e.value(#Py, EditStep::Name, Doc);
#include "memplan/Reuse/EditSteps.def"
  }

  auto pool = bindEditClass<PoolEdit>(
      m, "PoolEdit",
      "One pool's rewrite as plain data (memplan/Reuse/PoolEdit.h): op and "
      "value ids of the Graph it was planned on, step operands indices of "
      "earlier steps");
#define MEMPLAN_POOL_EDIT_FIELD(Field, Py, Init, Doc, ...)                     \
  bindField<&PoolEdit::Field>(pool, #Py, Doc);
#include "memplan/Reuse/PoolEditFields.def"

  auto transient =
      bindEditClass<TransientEdit>(m, "TransientEdit",
                                   "A module's transient rewrite as plain data "
                                   "(memplan/Transients/TransientEdit.h): op "
                                   "and value ids of the Graph it was planned "
                                   "on, step operands indices of earlier "
                                   "steps");
#define MEMPLAN_TRANSIENT_EDIT_FIELD(Field, Py, Init, Doc, ...)                \
  bindField<&TransientEdit::Field>(transient, #Py, Doc);
#include "memplan/Transients/TransientEditFields.def"

  // A pool's edit changes its members and the ops it adds, in the
  // function of insert_before; a transient edit, the whole module.
  Sequencing<PoolEdit, Graph> pools{
      kPoolEdit,
      [](const Graph &g, const PoolEdit &edit) -> std::optional<int32_t> {
        if (!isOp(g, edit.insertBefore))
          return std::nullopt;
        return functionOf(g, edit.insertBefore);
      },
      /*again=*/true};
  Sequencing<TransientEdit, Graph> transients{
      kTransientEdit,
      [](const Graph &, const TransientEdit &) -> std::optional<int32_t> {
        return -1;
      },
      /*again=*/false};
  bindApply<PoolEdit, checkPoolEdit, applyPoolEdit, Graph>(
      m, "apply_pool_edit",
      "Apply one pool's edit (memplan/Reuse/PoolEdit.h) after checking it "
      "against the graph: the size operands set, the hoisted ops moved, the "
      "steps created before insert_before, the pool freed after "
      "dealloc_after, each member a view at its offset step, the members' "
      "allocs and deallocs and `erase` erased. Refused (ValueError) on a "
      "graph an edit other than a pool's has gone through.",
      pools);

  bindApply<TransientEdit, checkTransientEdit, applyTransientEdit, Graph>(
      m, "apply_transient_edit",
      "Apply a module's transient edit (memplan/Transients/TransientEdit.h) "
      "after checking it against the graph: the storage arguments added to "
      "new_arguments (with the unit attribute `storage_marker` unless it is "
      "empty), the steps created (the FUNCTION steps' functions named by "
      "`names`), the marked steps' ops given the unit attribute `marker` and "
      "the unmarked ones' losing it, each symbols op given "
      "`symbol_attribute` naming its name, each call given its storage step "
      "as an argument, each alloc a view of its buffer step at its offset "
      "step, the allocs, their deallocs and `erase` erased. Refused "
      "(ValueError) on a graph an edit has gone through.",
      transients);
}

} // namespace memplan
