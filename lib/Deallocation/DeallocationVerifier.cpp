//===- DeallocationVerifier.cpp - Every heap buffer freed exactly once ----===//
//
// See include/memplan/Deallocation/DeallocationVerifier.h for what is proven.
//
// Each function is run abstractly. A state maps every memref value in scope
// to a buffer (views, casts and forwarded values to their source's buffer),
// and says of each buffer what it is (heap, stack, argument, other memory),
// whether it is live, freed or returned, and which asynchronous work may
// still use it; it also holds the integer values known on its paths
// (constants, i1 flags, heap addresses). Values leave a state after their
// last use (lifted to their block), so a live heap buffer no value refers to
// any more is a leak, and states that agree up to the names of buffers are
// merged: the states of a program point are a small set, and loops reach a
// fixpoint. Each (issue, op, allocation) is reported once.
//
//===----------------------------------------------------------------------===//

#include "memplan/Deallocation/DeallocationVerifier.h"
#include "memplan/Deallocation/Ownership.h"

#include "memplan/IR/AsyncWork.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#define DEBUG_TYPE "memplan-verify-deallocation"

using namespace mlir;

namespace memplan {
namespace {

/// The states one program point may have before the checker gives up.
constexpr size_t kMaxStates = 64;
/// The decisions a state remembers for its diagnostics.
constexpr size_t kMaxPath = 6;

enum class Kind : uint8_t { Heap, Stack, Argument, Foreign, Unknown };
enum class Status : uint8_t { Live, Freed, Returned };

struct Buffer {
  Kind kind = Kind::Unknown;
  Status status = Status::Live;
  bool collected = false; ///< No value refers to it any more.
  /// Freed, and something was allocated after (which may have its address).
  bool outlived = false;
  int32_t refs = 0;              ///< Values of the state that refer to it.
  Operation *site = nullptr;     ///< Its allocation (diagnostics only).
  Operation *freedAt = nullptr;  ///< Its first free (diagnostics only).
  Operation *asyncUse = nullptr; ///< Async work on it (diagnostics only).
  /// Asynchronous work that may still use it: per piece of work, the values
  /// any of which completing means the work is done (none left: never).
  SmallVector<SmallVector<Value, 2>, 1> pending;
};

/// An integer value known on a state's paths: a constant, the address of a
/// buffer, or an i1 that is a function of one unknown i1 (the leaf: itself,
/// or its negation). An i1 the state knows nothing of is its own leaf.
struct Known {
  enum Form : uint8_t { Constant, Address, Leaf };
  Form form = Constant;
  int32_t buffer = -1; ///< Address: the buffer.
  APInt value;         ///< Constant.
  Value leaf;          ///< Leaf: the unknown i1 it follows.
  bool negated = false;

  static Known constant(APInt v) {
    Known k;
    k.value = std::move(v);
    return k;
  }
  static Known boolean(bool bit) { return constant(APInt(1, bit)); }
  static Known address(int32_t buffer) {
    Known k;
    k.form = Address;
    k.buffer = buffer;
    return k;
  }
  static Known follows(Value leaf, bool negated) {
    Known k;
    k.form = Leaf;
    k.leaf = leaf;
    k.negated = negated;
    return k;
  }
};

struct State {
  DenseMap<Value, int32_t> bufferOf; ///< Memref values in scope.
  DenseMap<Value, Known> known;      ///< Integer values known here.
  SmallVector<Buffer, 8> buffers;
  /// Some path of the state assumes an i1 loaded from memory the function
  /// wrote (upstream's run-time ownership flags): its violations are only
  /// unproven.
  bool speculative = false;
  /// Branch decisions that led here (op, successor; -1: the parent op).
  SmallVector<std::pair<Operation *, int>, kMaxPath> path;

  int32_t add(Kind kind, Operation *site) {
    for (Buffer &b : buffers)
      b.outlived |= b.status == Status::Freed;
    buffers.push_back(Buffer());
    buffers.back().kind = kind;
    buffers.back().site = site;
    return static_cast<int32_t>(buffers.size()) - 1;
  }
  void bind(Value v, int32_t b) {
    auto [it, inserted] = bufferOf.try_emplace(v, b);
    if (!inserted) {
      --buffers[it->second].refs;
      it->second = b;
    }
    ++buffers[b].refs;
  }
  /// `v` is defined (again): what the state knew of it, and of the i1s
  /// that followed it as their leaf, is gone.
  void define(Value v) {
    drop(v);
    if (!v.getType().isInteger(1))
      return;
    for (auto it = known.begin(); it != known.end();) {
      auto cur = it++;
      if (cur->second.form == Known::Leaf && cur->second.leaf == v)
        known.erase(cur);
    }
  }
  void drop(Value v) {
    auto it = bufferOf.find(v);
    if (it != bufferOf.end()) {
      --buffers[it->second].refs;
      bufferOf.erase(it);
    }
    known.erase(v);
  }
  /// Drops every value in scope (a memref or a known integer) `gone` holds
  /// for.
  template <typename Pred> void dropIf(Pred gone) {
    SmallVector<Value> dropped;
    for (auto &[v, b] : bufferOf)
      if (gone(v))
        dropped.push_back(v);
    for (auto &[v, k] : known)
      if (gone(v))
        dropped.push_back(v);
    for (Value v : dropped)
      drop(v);
  }
  int32_t lookup(Value v) const {
    auto it = bufferOf.find(v);
    return it == bufferOf.end() ? -1 : it->second;
  }
  const Known *knownOf(Value v) const {
    auto it = known.find(v);
    return it == known.end() ? nullptr : &it->second;
  }
  /// What is known of `v`, its leaf resolved: a constant where the leaf is
  /// known; for an i1 known nothing of, a leaf of its own.
  std::optional<Known> resolve(Value v) const {
    const Known *k = knownOf(v);
    if (!k) {
      if (v.getType().isInteger(1))
        return Known::follows(v, false);
      return std::nullopt;
    }
    if (k->form != Known::Leaf)
      return *k;
    const Known *leaf = knownOf(k->leaf);
    if (leaf && leaf->form == Known::Constant)
      return Known::boolean(leaf->value.getBoolValue() != k->negated);
    return *k;
  }
  void decide(Operation *op, int successor) {
    if (path.size() == kMaxPath)
      path.erase(path.begin());
    path.push_back({op, successor});
  }
};

using States = SmallVector<State, 2>;
using Key = std::vector<uintptr_t>;

bool isMemref(Value v) { return isa<BaseMemRefType>(v.getType()); }
bool isInteger(Value v) { return isa<IntegerType, IndexType>(v.getType()); }
bool isI1(Value v) { return v.getType().isInteger(1); }

/// Puts `s` in canonical form (buffers numbered in the order the sorted
/// values first refer to them, collected ones dropped) and returns its key:
/// two states with one key are the same up to diagnostics.
Key canonicalize(State &s) {
  SmallVector<std::pair<uintptr_t, int32_t>> entries;
  entries.reserve(s.bufferOf.size());
  for (auto &[v, b] : s.bufferOf)
    entries.push_back({reinterpret_cast<uintptr_t>(v.getAsOpaquePointer()), b});
  llvm::sort(entries);
  SmallVector<int32_t> renumber(s.buffers.size(), -1);
  SmallVector<Buffer, 8> buffers;
  for (auto &[ptr, b] : entries) {
    if (renumber[b] < 0) {
      renumber[b] = static_cast<int32_t>(buffers.size());
      buffers.push_back(s.buffers[b]);
    }
  }
  // Buffers no value refers to any more whose address is still known.
  SmallVector<std::pair<uintptr_t, int32_t>> addressed;
  for (auto &[v, k] : s.known)
    if (k.form == Known::Address && renumber[k.buffer] < 0)
      addressed.push_back(
          {reinterpret_cast<uintptr_t>(v.getAsOpaquePointer()), k.buffer});
  llvm::sort(addressed);
  for (auto &[ptr, b] : addressed) {
    if (renumber[b] < 0) {
      renumber[b] = static_cast<int32_t>(buffers.size());
      buffers.push_back(s.buffers[b]);
    }
  }
  for (auto &[v, b] : s.bufferOf)
    b = renumber[b];
  SmallVector<std::pair<uintptr_t, Known>> knowns;
  for (auto it = s.known.begin(); it != s.known.end();) {
    auto cur = it++;
    if (cur->second.form == Known::Address) {
      int32_t b = renumber[cur->second.buffer];
      if (b < 0) { // the buffer is gone: its address says nothing any more
        s.known.erase(cur);
        continue;
      }
      cur->second.buffer = b;
    }
    knowns.push_back(
        {reinterpret_cast<uintptr_t>(cur->first.getAsOpaquePointer()),
         cur->second});
  }
  llvm::sort(knowns,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  s.buffers = std::move(buffers);

  Key key;
  key.reserve(2 * entries.size() + 4 * s.buffers.size() + 3 * knowns.size());
  for (auto &[ptr, b] : entries)
    key.insert(key.end(), {ptr, static_cast<uintptr_t>(renumber[b])});
  key.push_back(~uintptr_t(0) - s.speculative);
  for (Buffer &b : s.buffers) {
    key.push_back(static_cast<uintptr_t>(b.kind) |
                  static_cast<uintptr_t>(b.status) << 8 |
                  static_cast<uintptr_t>(b.outlived) << 12 |
                  static_cast<uintptr_t>(b.pending.size()) << 16);
    SmallVector<SmallVector<uintptr_t, 2>> groups;
    for (auto &group : b.pending) {
      groups.emplace_back();
      for (Value v : group)
        groups.back().push_back(
            reinterpret_cast<uintptr_t>(v.getAsOpaquePointer()));
      llvm::sort(groups.back());
    }
    llvm::sort(groups);
    for (auto &group : groups) {
      key.push_back(group.size());
      key.insert(key.end(), group.begin(), group.end());
    }
  }
  key.push_back(~uintptr_t(0));
  for (auto &[ptr, k] : knowns) {
    key.push_back(ptr);
    if (k.form == Known::Address)
      key.insert(key.end(), {1, static_cast<uintptr_t>(k.buffer)});
    else if (k.form == Known::Leaf)
      key.insert(key.end(),
                 {2 + static_cast<uintptr_t>(k.negated),
                  reinterpret_cast<uintptr_t>(k.leaf.getAsOpaquePointer())});
    else
      key.insert(key.end(),
                 {4, static_cast<uintptr_t>(llvm::hash_value(k.value))});
  }
  return key;
}

/// Adds `s` to `out` unless a state with its key is there already.
void addUnique(States &out, std::set<Key> &seen, State &&s) {
  if (seen.insert(canonicalize(s)).second)
    out.push_back(std::move(s));
}

/// The issues of one root, each reported once.
class Reporter {
public:
  std::vector<DeallocIssue> issues;

  void report(StringRef kind, Operation *at, Operation *subject,
              const Twine &message,
              ArrayRef<std::pair<Location, std::string>> notes,
              const State *state) {
    std::string text = ("memplan-verify-deallocation: " + message).str();
    if (state && state->speculative && kind != "unproven") {
      text = ("memplan-verify-deallocation: cannot prove it: " + message +
              " (on a path that assumes an i1 loaded from memory the function "
              "wrote, which the checker does not follow)")
                 .str();
      kind = "unproven";
    }
    if (!reported.insert({kind.str(), at, subject}).second)
      return;
    DeallocIssue issue;
    issue.kind = kind.str();
    issue.location = wrap(at->getLoc());
    issue.message = text;
    for (auto &[loc, note] : notes)
      issue.notes.push_back({wrap(loc), note});
    if (state && !state->path.empty()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "on the path through";
      bool first = true;
      for (auto &[op, successor] : state->path) {
        os << (first ? " " : "; ") << "'" << op->getName() << "' at ";
        if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
          os << file.getFilename().getValue() << ":" << file.getLine() << ":"
             << file.getColumn();
        else
          op->getLoc().print(os);
        os << describeSuccessor(op, successor);
        first = false;
      }
      issue.notes.push_back({wrap(at->getLoc()), os.str()});
    }
    LLVM_DEBUG(llvm::dbgs()
               << "issue " << kind << ": " << issue.message << "\n");
    issues.push_back(std::move(issue));
  }

private:
  static std::string describeSuccessor(Operation *op, int successor) {
    if (successor < 0)
      return isa<LoopLikeOpInterface>(op) ? " (leaving it, or zero trips)"
                                          : " (to its results)";
    if (op->getNumSuccessors())
      return " (to successor #" + std::to_string(successor) + ")";
    if (isa<RegionBranchTerminatorOpInterface>(op))
      return " (to region #" + std::to_string(successor) + ")";
    return " (into region #" + std::to_string(successor) + ")";
  }

  std::set<std::tuple<std::string, Operation *, Operation *>> reported;
};

/// Ops cloned into a scratch block so that folding them never touches the
/// program: a fold hook may update its op in place.
class Folder {
public:
  explicit Folder(MLIRContext *ctx) : builder(ctx) {}
  ~Folder() {
    for (auto &[op, clone] : clones)
      clone->erase();
    scratch.clear();
  }

  /// Folds `op` with `operands` (null: unknown). Results are attributes or
  /// the index of an operand the result is.
  bool fold(Operation *op, ArrayRef<Attribute> operands,
            SmallVectorImpl<std::pair<Attribute, int>> &results) {
    Operation *&clone = clones[op];
    if (!clone) {
      Block *block = new Block();
      scratch.emplace_back(block);
      IRMapping mapping;
      for (Value v : op->getOperands())
        mapping.map(v, block->addArgument(v.getType(), v.getLoc()));
      builder.setInsertionPointToEnd(block);
      clone = builder.clone(*op, mapping);
    }
    SmallVector<OpFoldResult> folded;
    if (failed(clone->fold(operands, folded)) || folded.empty())
      return false;
    for (OpFoldResult r : folded) {
      if (auto attr = dyn_cast<Attribute>(r)) {
        results.push_back({attr, -1});
        continue;
      }
      auto arg = dyn_cast<BlockArgument>(cast<Value>(r));
      if (!arg || arg.getOwner() != clone->getBlock())
        return false; // folded in place, or to another value
      results.push_back({nullptr, static_cast<int>(arg.getArgNumber())});
    }
    return true;
  }

private:
  OpBuilder builder;
  DenseMap<Operation *, Operation *> clones;
  std::vector<std::unique_ptr<Block>> scratch;
};

/// Checks one function.
class FunctionChecker {
public:
  FunctionChecker(FunctionOpInterface func, Reporter &reporter, Folder &folder)
      : func(func), reporter(reporter), folder(folder), dominance(func),
        repeats(repeatedResults(func)) {}

  void run();

private:
  using ExitFn = function_ref<void(Operation *, State &)>;

  void computeDeaths();
  void runRegion(Region &region, States entry, ExitFn exit);
  bool runOp(Operation *op, States &states);
  void step(Operation *op, State &s, States &out);
  void runRegionBranch(RegionBranchOpInterface op, States &states);
  void runOpaqueRegions(Operation *op, States &states);
  void branch(Operation *term, State &s, DenseMap<Block *, std::set<Key>> &seen,
              std::vector<std::pair<Block *, State>> &work);
  void atReturn(Operation *ret, State &s);
  void free(Operation *op, Value v, State &s);
  void checkAccess(Operation *op, Value v, State &s);
  void trackAsync(Operation *op, State &s);
  void memrefResult(Operation *op, OpResult r, ArrayRef<Attribute> attrs,
                    bool allocates, bool stack, State &s, States &forks);
  void integerResults(Operation *op, State &s);
  void leaveScope(Operation *scope, State &s);
  void enterBlock(Block *block, State &s);
  void arrive(Block *block, State &s, Operation *at);
  void collect(State &s, Operation *at);
  void kill(Operation *op, State &s);
  SmallVector<Attribute> attributes(ValueRange values, const State &s);
  /// Calls `fn(state, successor)` for each successor `query` gives for the
  /// operands `values` on `s`'s paths; where more than one and exactly one
  /// i1 operand is unknown, the paths split on it, each remembering it.
  template <typename T>
  void forEachSuccessor(
      Operation *op, ValueRange values, State &s,
      function_ref<void(ArrayRef<Attribute>, SmallVectorImpl<T> &)> query,
      function_ref<int(const T &)> index,
      function_ref<void(State &, const T &)> fn);
  /// The one unknown i1 the unknown i1 `values` follow, or null.
  Value splitLeaf(ValueRange values, const State &s);
  /// `leaf` is read from a buffer the function allocated.
  bool loadedFromOwnMemory(Value leaf, const State &s);
  bool overflow(const States &states, Operation *at);
  void issue(StringRef kind, Operation *at, Operation *subject,
             const Twine &message, const State &s,
             ArrayRef<std::pair<Location, std::string>> notes = {}) {
    reporter.report(kind, at, subject, message, notes, &s);
  }
  SmallVector<std::pair<Location, std::string>, 2>
  siteNotes(const Buffer &b, bool freed = false);
  /// `op` does to the buffer of `v` what the checker does not model (`what`
  /// follows the op's name): reported unproven, and the buffer is of unknown
  /// origin from here on.
  void unmodeled(Operation *op, Value v, State &s, const Twine &what) {
    issue("unproven", op, nullptr,
          "'" + op->getName().getStringRef() + "' " + what, s);
    if (int32_t id = s.lookup(v); id >= 0)
      s.buffers[id].kind = Kind::Unknown;
  }
  /// The buffer of `v`, which `op` frees or returns (`does`); -1, reported
  /// unproven, where the state does not know it.
  int32_t knownBuffer(Operation *op, Value v, State &s, StringRef does) {
    int32_t id = s.lookup(v);
    if (id < 0)
      issue("unproven", op, nullptr,
            does + " a memref whose buffer is not known here", s);
    return id;
  }

  FunctionOpInterface func;
  Reporter &reporter;
  Folder &folder;
  DominanceInfo dominance;
  /// repeatedResults of the function and of its callees.
  SmallVector<int32_t> repeats;
  SymbolTableCollection symbols;
  DenseMap<Operation *, SmallVector<int32_t>> calleeRepeats;
  /// Values that leave the states right after an op of their block (their
  /// last use lifted to it), or at the start of their block (unused
  /// arguments).
  DenseMap<Operation *, SmallVector<Value, 2>> diesAfter;
  DenseMap<Block *, SmallVector<Value, 2>> diesAtEntry;
  bool gaveUp = false;
};

SmallVector<std::pair<Location, std::string>, 2>
FunctionChecker::siteNotes(const Buffer &b, bool freed) {
  SmallVector<std::pair<Location, std::string>, 2> notes;
  if (b.site)
    notes.push_back(
        {b.site->getLoc(), "the buffer is allocated here ('" +
                               b.site->getName().getStringRef().str() + "')"});
  if (freed && b.freedAt)
    notes.push_back({b.freedAt->getLoc(), "and freed here"});
  return notes;
}

void FunctionChecker::computeDeaths() {
  // The last use of each tracked value, lifted to its block; values used
  // in another block of a multi-block region stay until their scope ends.
  DenseMap<Value, Operation *> last;
  DenseSet<Value> acrossBlocks;
  auto tracked = [&](Value v) {
    return isMemref(v) || isInteger(v) || !v.getUses().empty();
  };
  func->walk([&](Operation *user) {
    for (Value v : user->getOperands()) {
      if (!tracked(v) || acrossBlocks.contains(v))
        continue;
      Block *block = v.getParentBlock();
      Operation *anchor = block ? block->findAncestorOpInBlock(*user) : nullptr;
      if (!anchor) {
        acrossBlocks.insert(v);
        last.erase(v);
        continue;
      }
      Operation *&cur = last[v];
      if (!cur || cur->isBeforeInBlock(anchor))
        cur = anchor;
    }
  });
  for (auto &[v, op] : last)
    diesAfter[op].push_back(v);
  // Values nothing uses leave right away.
  func->walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      if (arg.use_empty())
        diesAtEntry[block].push_back(arg);
    for (Operation &op : *block)
      for (Value r : op.getResults())
        if (r.use_empty())
          diesAfter[&op].push_back(r);
  });
}

SmallVector<Attribute> FunctionChecker::attributes(ValueRange values,
                                                   const State &s) {
  SmallVector<Attribute> attrs;
  for (Value v : values) {
    std::optional<Known> k = s.resolve(v);
    if (k && k->form == Known::Constant)
      attrs.push_back(IntegerAttr::get(v.getType(), k->value));
    else
      attrs.push_back(nullptr);
  }
  return attrs;
}

template <typename T>
void FunctionChecker::forEachSuccessor(
    Operation *op, ValueRange values, State &s,
    function_ref<void(ArrayRef<Attribute>, SmallVectorImpl<T> &)> query,
    function_ref<int(const T &)> index,
    function_ref<void(State &, const T &)> fn) {
  SmallVector<Attribute> attrs = attributes(values, s);
  SmallVector<T> all;
  query(attrs, all);
  Value leaf = all.size() > 1 ? splitLeaf(values, s) : Value();
  if (!leaf) {
    for (const T &succ : all) {
      State t = s;
      if (all.size() > 1)
        t.decide(op, index(succ));
      fn(t, succ);
    }
    return;
  }
  // Split on the unknown i1 the conditions follow: each side remembers it.
  bool speculative = loadedFromOwnMemory(leaf, s);
  for (bool bit : {true, false}) {
    State t = s;
    t.speculative |= speculative;
    t.known[leaf] = Known::boolean(bit);
    SmallVector<T> some;
    query(attributes(values, t), some);
    for (const T &succ : some) {
      State u = t;
      u.decide(op, index(succ));
      fn(u, succ);
    }
  }
}

bool FunctionChecker::loadedFromOwnMemory(Value leaf, const State &s) {
  auto iface = leaf.getDefiningOp<MemoryEffectOpInterface>();
  if (!iface)
    return false;
  for (Value v : iface->getOperands()) {
    int32_t id = isMemref(v) ? s.lookup(v) : -1;
    if (id >= 0 && iface.getEffectOnValue<MemoryEffects::Read>(v) &&
        (s.buffers[id].kind == Kind::Heap || s.buffers[id].kind == Kind::Stack))
      return true;
  }
  return false;
}

Value FunctionChecker::splitLeaf(ValueRange values, const State &s) {
  Value leaf;
  for (Value v : values) {
    std::optional<Known> k = s.resolve(v);
    if (!k || k->form != Known::Leaf)
      continue;
    if (leaf && leaf != k->leaf)
      return Value();
    leaf = k->leaf;
  }
  return leaf;
}

bool FunctionChecker::overflow(const States &states, Operation *at) {
  if (states.size() <= kMaxStates)
    return false;
  reporter.report("unproven", at, nullptr,
                  "more than " + Twine(kMaxStates) +
                      " distinct ownership states reach this op; the function "
                      "is not checked past it",
                  {}, nullptr);
  gaveUp = true;
  return true;
}

void FunctionChecker::collect(State &s, Operation *at) {
  for (Buffer &b : s.buffers) {
    if (b.collected || b.refs > 0)
      continue;
    b.collected = true;
    if (b.kind != Kind::Heap || b.status != Status::Live)
      continue;
    auto notes = siteNotes(b);
    notes.push_back({at->getLoc(), "no value refers to it after this op ('" +
                                       at->getName().getStringRef().str() +
                                       "')"});
    issue("leak", b.site ? b.site : at, b.site,
          "a heap buffer is not freed on a path through the function", s,
          notes);
  }
}

void FunctionChecker::kill(Operation *op, State &s) {
  auto it = diesAfter.find(op);
  if (it == diesAfter.end())
    return;
  for (Value v : it->second) {
    s.drop(v);
    // Work waiting on a completion value nobody can await any more is
    // never awaited.
    for (Buffer &b : s.buffers)
      for (auto &group : b.pending)
        llvm::erase(group, v);
  }
}

void FunctionChecker::leaveScope(Operation *scope, State &s) {
  s.dropIf([&](Value v) {
    Region *r = v.getParentRegion();
    return r && scope->isAncestor(r->getParentOp());
  });
}

void FunctionChecker::enterBlock(Block *block, State &s) {
  // Values of this region are visible in `block` only where their block
  // dominates it (a value of the block itself is defined again).
  Region *region = block->getParent();
  s.dropIf([&](Value v) {
    Block *def = v.getParentBlock();
    return def && def->getParent() == region &&
           !dominance.properlyDominates(def, block);
  });
}

void FunctionChecker::arrive(Block *block, State &s, Operation *at) {
  if (auto it = diesAtEntry.find(block); it != diesAtEntry.end())
    for (Value v : it->second)
      s.drop(v);
  collect(s, at);
}

void FunctionChecker::free(Operation *op, Value v, State &s) {
  int32_t id = knownBuffer(op, v, s, "frees");
  if (id < 0)
    return;
  Buffer &b = s.buffers[id];
  auto notes = siteNotes(b);
  switch (b.kind) {
  case Kind::Stack:
    issue("invalid-free", op, b.site,
          "frees stack memory (an allocation in the automatic allocation "
          "scope, which is released when the scope returns)",
          s, notes);
    return;
  case Kind::Argument:
    issue(
        "invalid-free", op, nullptr,
        "frees the buffer of a function argument, which belongs to the caller",
        s);
    return;
  case Kind::Foreign:
    issue("invalid-free", op, b.site,
          "frees memory this function did not allocate on the heap", s, notes);
    return;
  case Kind::Unknown:
    issue("unproven", op, nullptr, "frees a buffer of unknown origin", s);
    return;
  case Kind::Heap:
    break;
  }
  if (b.status == Status::Freed) {
    issue("double-free", op, b.site,
          "frees a heap buffer that is already freed on this path", s,
          siteNotes(b, /*freed=*/true));
    return;
  }
  if (!b.pending.empty()) {
    if (b.asyncUse)
      notes.push_back({b.asyncUse->getLoc(),
                       "asynchronous work that uses it starts here "
                       "and is not awaited before the free"});
    issue("async-free", op, b.site,
          "frees a buffer that asynchronous work may still use", s, notes);
  }
  b.status = Status::Freed;
  b.freedAt = op;
}

void FunctionChecker::checkAccess(Operation *op, Value v, State &s) {
  int32_t id = s.lookup(v);
  if (id < 0)
    return;
  Buffer &b = s.buffers[id];
  if (b.status != Status::Freed)
    return;
  issue("use-after-free", op, b.site,
        "uses a buffer after it was freed (' " + op->getName().getStringRef() +
            "' reads or writes it)",
        s, siteNotes(b, /*freed=*/true));
}

void FunctionChecker::trackAsync(Operation *op, State &s) {
  // Work this op waits for, or chains to its own completion values.
  for (Buffer &b : s.buffers) {
    for (auto it = b.pending.begin(); it != b.pending.end();) {
      auto isPending = [&](Value v) { return llvm::is_contained(*it, v); };
      SmallVector<Value> chained;
      AsyncStep kind = asyncStep(op, isPending, chained);
      if (kind == AsyncStep::Waits) {
        it = b.pending.erase(it);
        continue;
      }
      if (kind == AsyncStep::Chains)
        it->append(chained.begin(), chained.end());
      ++it;
    }
  }
  // Work this op starts on buffers.
  SmallVector<Value> completions = asyncCompletions(op);
  if (completions.empty())
    return;
  DenseSet<int32_t> used;
  auto use = [&](Value v) {
    int32_t id = s.lookup(v);
    if (id >= 0)
      used.insert(id);
  };
  for (Value v : op->getOperands())
    if (isMemref(v))
      use(v);
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      if (isMemref(v) && !op->isAncestor(v.getParentRegion()->getParentOp()))
        use(v);
  });
  for (int32_t id : used) {
    s.buffers[id].pending.emplace_back(completions.begin(), completions.end());
    s.buffers[id].asyncUse = op;
  }
}

void FunctionChecker::memrefResult(Operation *op, OpResult r,
                                   ArrayRef<Attribute> attrs, bool allocates,
                                   bool stack, State &s, States &forks) {
  if (allocates) {
    s.bind(r, s.add(stack ? Kind::Stack : Kind::Heap, op));
    return;
  }
  if (auto view = dyn_cast<ViewLikeOpInterface>(op)) {
    int32_t id = s.lookup(view.getViewSource());
    s.bind(r, id >= 0 ? id : s.add(Kind::Unknown, op));
    return;
  }
  if (auto call = dyn_cast<CallOpInterface>(op)) {
    // The function boundary ABI: the caller owns what a call returns; a
    // result the callee returns at an earlier position too (in every
    // return) is the buffer of that earlier result.
    int32_t first = -1;
    if (Operation *callee = call.resolveCallableInTable(&symbols)) {
      auto it = calleeRepeats.find(callee);
      if (it == calleeRepeats.end())
        it = calleeRepeats.try_emplace(callee, repeatedResults(callee)).first;
      if (r.getResultNumber() < it->second.size())
        first = it->second[r.getResultNumber()];
    }
    int32_t id = first >= 0 ? s.lookup(op->getResult(first)) : -1;
    s.bind(r, id >= 0 ? id : s.add(Kind::Heap, op));
    return;
  }
  SmallVector<unsigned> sources;
  for (OpOperand &operand : op->getOpOperands())
    if (isMemref(operand.get()))
      sources.push_back(operand.getOperandNumber());
  if (sources.size() == 1) {
    int32_t id = s.lookup(op->getOperand(sources[0]));
    s.bind(r, id >= 0 ? id : s.add(Kind::Unknown, op));
    return;
  }
  if (sources.empty()) {
    bool modeled = isa<MemoryEffectOpInterface>(op) ||
                   op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
    s.bind(r, s.add(modeled ? Kind::Foreign : Kind::Unknown, op));
    return;
  }
  // One of several memrefs (a select): what the op folds to on each path.
  auto pick = [&](ArrayRef<Attribute> operands) -> int {
    SmallVector<std::pair<Attribute, int>> folded;
    if (!isMemoryEffectFree(op) || op->getNumRegions() ||
        !folder.fold(op, operands, folded))
      return -1;
    int k = folded[r.getResultNumber()].second;
    return k >= 0 && isMemref(op->getOperand(k)) ? k : -1;
  };
  int k = pick(attrs);
  if (k >= 0) {
    s.bind(r, s.lookup(op->getOperand(k)));
    return;
  }
  if (Value leaf = splitLeaf(op->getOperands(), s)) {
    int chosen[2];
    State sides[2] = {s, s};
    bool speculative = loadedFromOwnMemory(leaf, s);
    for (bool bit : {true, false}) {
      sides[bit].speculative |= speculative;
      sides[bit].known[leaf] = Known::boolean(bit);
      chosen[bit] = pick(attributes(op->getOperands(), sides[bit]));
    }
    if (chosen[0] >= 0 && chosen[1] >= 0) {
      for (bool bit : {false, true}) {
        State &t = sides[bit];
        t.decide(op, bit ? 0 : 1);
        t.bind(r, t.lookup(op->getOperand(chosen[bit])));
      }
      s = std::move(sides[1]);
      forks.push_back(std::move(sides[0]));
      return;
    }
  }
  s.bind(r, s.add(Kind::Unknown, op));
}

void FunctionChecker::integerResults(Operation *op, State &s) {
  if (llvm::none_of(op->getResults(), isInteger))
    return;
  // The address of a buffer, and addresses compared for equality (the
  // run-time ownership checks of upstream's lowered deallocations).
  if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
    int32_t id = s.lookup(extract.getSource());
    if (id >= 0)
      s.known[extract.getResult()] = Known::address(id);
    return;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const Known *a = s.knownOf(cmp.getLhs());
    const Known *b = s.knownOf(cmp.getRhs());
    bool eq = cmp.getPredicate() == arith::CmpIPredicate::eq;
    if (a && b && a->form == Known::Address && b->form == Known::Address &&
        (eq || cmp.getPredicate() == arith::CmpIPredicate::ne)) {
      const Buffer &x = s.buffers[a->buffer], &y = s.buffers[b->buffer];
      bool same = a->buffer == b->buffer;
      // Two distinct buffers have distinct addresses unless one was
      // allocated after the other was freed.
      if (same || (!x.outlived && !y.outlived))
        s.known[cmp.getResult()] = Known::boolean(same == eq);
      return;
    }
  }
  APInt constant;
  if (op->hasTrait<OpTrait::ConstantLike>()) {
    if (op->getNumResults() == 1 &&
        matchPattern(op->getResult(0), m_ConstantInt(&constant)))
      s.known[op->getResult(0)] = Known::constant(constant);
    return;
  }
  // i1 results of pure integer ops over constants and i1s that follow one
  // leaf: folded for each value of the leaf.
  if (op->getNumRegions() || !isMemoryEffectFree(op) ||
      !llvm::all_of(op->getOperands(), isInteger))
    return;
  Value leaf;
  for (Value v : op->getOperands()) {
    std::optional<Known> k = s.resolve(v);
    if (!k || k->form == Known::Address)
      return;
    if (k->form == Known::Leaf) {
      if (leaf && leaf != k->leaf)
        return;
      leaf = k->leaf;
    }
  }
  auto foldWith = [&](const State &t, SmallVectorImpl<Known> &out) {
    SmallVector<std::pair<Attribute, int>> folded;
    if (!folder.fold(op, attributes(op->getOperands(), t), folded))
      return false;
    for (auto [r, f] : llvm::zip(op->getResults(), folded)) {
      std::optional<Known> k;
      if (auto attr = dyn_cast_or_null<IntegerAttr>(f.first))
        k = Known::constant(attr.getValue());
      else if (f.second >= 0)
        k = t.resolve(op->getOperand(f.second));
      if (!k || k->form != Known::Constant)
        return false;
      out.push_back(*k);
    }
    return true;
  };
  SmallVector<Known> results;
  if (!leaf) {
    if (foldWith(s, results))
      for (auto [r, k] : llvm::zip(op->getResults(), results))
        if (isI1(r))
          s.known[r] = k;
    return;
  }
  SmallVector<Known> onTrue, onFalse;
  State t = s;
  t.known[leaf] = Known::boolean(true);
  bool foldedTrue = foldWith(t, onTrue);
  t.known[leaf] = Known::boolean(false);
  if (!foldedTrue || !foldWith(t, onFalse))
    return;
  for (auto [r, a, b] : llvm::zip(op->getResults(), onTrue, onFalse)) {
    if (!isI1(r))
      continue;
    bool x = a.value.getBoolValue(), y = b.value.getBoolValue();
    s.known[r] = x == y ? Known::boolean(x) : Known::follows(leaf, !x);
  }
}

void FunctionChecker::step(Operation *op, State &s, States &out) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  bool isCall = isa<CallOpInterface>(op);
  bool modeled =
      iface || isCall || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  if (iface)
    iface.getEffects(effects);

  // Frees, and every other use of a buffer.
  DenseSet<Value> freed;
  for (auto &e : effects) {
    if (!isa<MemoryEffects::Free>(e.getEffect()) || !e.getValue())
      continue;
    Value v = e.getValue();
    bool plain = op->getNumOperands() == 1 && op->getNumResults() == 0 &&
                 op->getOperand(0) == v;
    if (plain)
      free(op, v, s);
    else
      unmodeled(op, v, s,
                "frees a buffer under conditions the checker does not model");
    freed.insert(v);
  }
  for (Value v : op->getOperands()) {
    if (!isMemref(v) || freed.contains(v))
      continue;
    if (!modeled) {
      unmodeled(op, v, s,
                "has no memory effects information: it may free or keep the "
                "buffers it takes");
      continue;
    }
    bool touches = isCall;
    for (auto &e : effects)
      if ((isa<MemoryEffects::Read>(e.getEffect()) ||
           isa<MemoryEffects::Write>(e.getEffect())) &&
          (!e.getValue() || e.getValue() == v))
        touches = true;
    if (touches)
      checkAccess(op, v, s);
  }
  trackAsync(op, s);

  // Results.
  for (Value r : op->getResults())
    s.define(r);
  SmallVector<Attribute> attrs = attributes(op->getOperands(), s);
  States forks;
  for (OpResult r : op->getResults()) {
    if (!isMemref(r))
      continue;
    // Not allocationOf (HeapAllocation.h): the verifier stays independent
    // of the analysis it checks.
    bool allocates = false, stack = false;
    for (auto &e : effects) {
      if (isa<MemoryEffects::Allocate>(e.getEffect()) && e.getValue() == r) {
        allocates = true;
        stack =
            isa<SideEffects::AutomaticAllocationScopeResource>(e.getResource());
      }
    }
    if (!modeled) {
      s.bind(r, s.add(Kind::Unknown, op));
      continue;
    }
    memrefResult(op, r, attrs, allocates, stack, s, forks);
  }
  integerResults(op, s);
  for (State &t : forks) {
    integerResults(op, t);
    out.push_back(std::move(t));
  }
  out.push_back(std::move(s));
}

void FunctionChecker::atReturn(Operation *ret, State &s) {
  DenseSet<int32_t> returned;
  for (auto [j, v] : llvm::enumerate(ret->getOperands())) {
    if (!isMemref(v))
      continue;
    // A value every return gives at an earlier position too (or a cast of
    // it): one buffer, which the caller frees once (repeatedResults).
    if (j < repeats.size() && repeats[j] >= 0)
      continue;
    int32_t id = knownBuffer(ret, v, s, "returns");
    if (id < 0)
      continue;
    Buffer &b = s.buffers[id];
    auto notes = siteNotes(b, /*freed=*/true);
    if (b.kind == Kind::Unknown) {
      issue("unproven", ret, b.site, "returns a buffer of unknown origin", s,
            notes);
    } else if (b.kind == Kind::Stack) {
      issue("bad-return", ret, b.site,
            "returns stack memory, which is released when the function returns",
            s, notes);
    } else if (b.kind == Kind::Argument || b.kind == Kind::Foreign) {
      issue("bad-return", ret, b.site,
            "returns memory it does not own (" +
                Twine(b.kind == Kind::Argument ? "a function argument"
                                               : "not a heap allocation") +
                "), but the caller owns and frees what a function returns",
            s, notes);
    } else if (b.status == Status::Freed) {
      issue("bad-return", ret, b.site, "returns a freed buffer", s, notes);
    } else if (!returned.insert(id).second) {
      issue("bad-return", ret, b.site,
            "returns one heap buffer twice (not one value at the same "
            "positions in every return): the caller would free it twice",
            s, notes);
    }
    if (b.kind == Kind::Heap)
      b.status = Status::Returned;
  }
  for (Buffer &b : s.buffers) {
    if (b.collected || b.kind != Kind::Heap || b.status != Status::Live)
      continue;
    auto notes = siteNotes(b);
    notes.push_back({ret->getLoc(), "the function returns here"});
    issue("leak", b.site ? b.site : ret, b.site,
          "a heap buffer is not freed on a path through the function", s,
          notes);
  }
}

void FunctionChecker::branch(Operation *term, State &s,
                             DenseMap<Block *, std::set<Key>> &seen,
                             std::vector<std::pair<Block *, State>> &work) {
  auto br = dyn_cast<BranchOpInterface>(term);
  if (!br) {
    issue("unproven", term, nullptr,
          "'" + term->getName().getStringRef() +
              "' branches without BranchOpInterface",
          s);
    return;
  }
  using Succ = unsigned;
  auto query = [&](ArrayRef<Attribute> attrs, SmallVectorImpl<Succ> &succs) {
    // The interface names the block the branch takes, not the successor: a
    // block that is several successors (their operands differ) stands for
    // each of them.
    Block *only = br.getSuccessorForOperands(attrs);
    for (unsigned i = 0; i < term->getNumSuccessors(); ++i)
      if (!only || term->getSuccessor(i) == only)
        succs.push_back(i);
  };
  auto index = [](const Succ &i) { return static_cast<int>(i); };
  auto go = [&](State &t, const Succ &i) {
    Block *succ = term->getSuccessor(i);
    SuccessorOperands operands = br.getSuccessorOperands(i);
    if (operands.getProducedOperandCount()) {
      issue("unproven", term, nullptr,
            "a branch with produced operands is not modeled", t);
      return;
    }
    // Read what flows before the block's values leave.
    SmallVector<std::pair<int32_t, std::optional<Known>>> flows;
    for (Value v : operands.getForwardedOperands()) {
      flows.push_back({isMemref(v) ? t.lookup(v) : -1, t.resolve(v)});
    }
    enterBlock(succ, t);
    for (auto [arg, flow] : llvm::zip(succ->getArguments(), flows)) {
      t.define(arg);
      if (isMemref(arg))
        t.bind(arg, flow.first >= 0 ? flow.first : t.add(Kind::Unknown, term));
      if (flow.second)
        t.known[arg] = *flow.second;
    }
    arrive(succ, t, term);
    if (seen[succ].insert(canonicalize(t)).second)
      work.push_back({succ, std::move(t)});
  };
  forEachSuccessor<Succ>(term, term->getOperands(), s, query, index, go);
}

void FunctionChecker::runRegion(Region &region, States entry, ExitFn exit) {
  if (region.empty())
    return;
  DenseMap<Block *, std::set<Key>> seen;
  std::vector<std::pair<Block *, State>> work;
  for (State &s : entry) {
    Block *block = &region.front();
    arrive(block, s, region.getParentOp());
    if (seen[block].insert(canonicalize(s)).second)
      work.push_back({block, std::move(s)});
  }
  while (!work.empty() && !gaveUp) {
    auto [block, start] = std::move(work.back());
    work.pop_back();
    States states;
    states.push_back(std::move(start));
    for (Operation &op : block->without_terminator())
      if (!runOp(&op, states))
        return;
    Operation *term = block->getTerminator();
    if (!term)
      continue;
    for (State &s : states) {
      if (term->getNumSuccessors()) {
        branch(term, s, seen, work);
        continue;
      }
      exit(term, s);
    }
    if (seen.size() > 4 * kMaxStates) {
      overflow(States(kMaxStates + 1), term);
      return;
    }
  }
}

bool FunctionChecker::runOp(Operation *op, States &states) {
  if (gaveUp)
    return false;
  if (auto branchOp = dyn_cast<RegionBranchOpInterface>(op);
      branchOp && op->getNumRegions())
    runRegionBranch(branchOp, states);
  else if (op->getNumRegions())
    runOpaqueRegions(op, states);
  else {
    States next;
    for (State &s : states)
      step(op, s, next);
    states = std::move(next);
  }
  if (gaveUp)
    return false;
  States merged;
  std::set<Key> seen;
  for (State &s : states) {
    kill(op, s);
    collect(s, op);
    if (states.size() > 1)
      addUnique(merged, seen, std::move(s));
    else
      merged.push_back(std::move(s));
  }
  states = std::move(merged);
  return !overflow(states, op);
}

void FunctionChecker::runRegionBranch(RegionBranchOpInterface op,
                                      States &states) {
  Operation *raw = op.getOperation();
  // The op's own operands are used as by a plain op first (a loop's
  // bounds, an scf.if's condition: no buffer is touched).
  States out;
  std::set<Key> outSeen;
  DenseMap<Region *, std::set<Key>> regionSeen;
  std::vector<std::pair<Region *, State>> work;
  // A loop known to run at least once never leaves before its body.
  bool runsOnce = false;
  if (auto loop = dyn_cast<LoopLikeOpInterface>(raw)) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    runsOnce = trips && !trips->isZero();
  }
  auto index = [](const RegionSuccessor &succ) {
    return succ.isParent()
               ? -1
               : static_cast<int>(succ.getSuccessor()->getRegionNumber());
  };
  auto enter = [&](State &t, const RegionSuccessor &succ, ValueRange operands,
                   Operation *from) {
    SmallVector<std::pair<int32_t, std::optional<Known>>> flows;
    for (Value v : operands) {
      flows.push_back({isMemref(v) ? t.lookup(v) : -1, t.resolve(v)});
    }
    // Leaving a region (to the results, or into a region again): none of
    // the values of the op's regions is in scope any more.
    if (from != raw)
      leaveScope(raw, t);
    ValueRange inputs = succ.getSuccessorInputs();
    for (auto [i, input] : llvm::enumerate(inputs)) {
      t.define(input);
      auto flow = i < flows.size() ? flows[i]
                                   : std::make_pair(-1, std::optional<Known>());
      if (isMemref(input))
        t.bind(input,
               flow.first >= 0 ? flow.first : t.add(Kind::Unknown, from));
      if (flow.second)
        t.known[input] = *flow.second;
    }
    collect(t, from);
    if (succ.isParent()) {
      addUnique(out, outSeen, std::move(t));
      return;
    }
    Region *region = succ.getSuccessor();
    if (regionSeen[region].insert(canonicalize(t)).second)
      work.push_back({region, std::move(t)});
  };

  for (State &s : states) {
    // Uses of the operands themselves (none touches memory).
    auto query = [&](ArrayRef<Attribute> attrs,
                     SmallVectorImpl<RegionSuccessor> &succs) {
      op.getEntrySuccessorRegions(attrs, succs);
      if (runsOnce && succs.size() > 1)
        llvm::erase_if(succs,
                       [](const RegionSuccessor &r) { return r.isParent(); });
    };
    auto go = [&](State &t, const RegionSuccessor &succ) {
      enter(t, succ, op.getEntrySuccessorOperands(succ), raw);
    };
    forEachSuccessor<RegionSuccessor>(raw, raw->getOperands(), s, query, index,
                                      go);
  }
  while (!work.empty() && !gaveUp) {
    auto [region, start] = std::move(work.back());
    work.pop_back();
    States entry;
    entry.push_back(std::move(start));
    auto exit = [&](Operation *term, State &t) {
      auto terminator = dyn_cast<RegionBranchTerminatorOpInterface>(term);
      if (term->getParentRegion()->getParentOp() != raw ||
          (!terminator && llvm::any_of(term->getOperands(), isMemref))) {
        issue(
            "unproven", term, nullptr,
            "'" + term->getName().getStringRef() +
                "' forwards buffers without RegionBranchTerminatorOpInterface",
            t);
        return;
      }
      if (!terminator) {
        // A terminator that forwards no buffer (scf.forall.in_parallel):
        // where the op says its region goes.
        SmallVector<RegionSuccessor> succs;
        op.getSuccessorRegions(*term->getParentRegion(), succs);
        for (const RegionSuccessor &succ : succs) {
          State u = t;
          if (succs.size() > 1)
            u.decide(term, index(succ));
          enter(u, succ, ValueRange(), term);
        }
        return;
      }
      auto query = [&](ArrayRef<Attribute> attrs,
                       SmallVectorImpl<RegionSuccessor> &succs) {
        terminator.getSuccessorRegions(attrs, succs);
      };
      auto go = [&](State &u, const RegionSuccessor &succ) {
        enter(u, succ, terminator.getSuccessorOperands(succ), term);
      };
      forEachSuccessor<RegionSuccessor>(term, term->getOperands(), t, query,
                                        index, go);
    };
    runRegion(*region, std::move(entry), exit);
    if (regionSeen[region].size() > 4 * kMaxStates) {
      overflow(States(kMaxStates + 1), raw);
      return;
    }
  }
  // Asynchronous work the op starts (async.execute), and its results
  // beyond those forwarded (none for scf ops).
  for (State &s : out)
    trackAsync(raw, s);
  states = std::move(out);
}

void FunctionChecker::runOpaqueRegions(Operation *op, States &states) {
  // An op with regions but no RegionBranchOpInterface: each region may run
  // any number of times, forwarding nothing. Regions that hold no memref
  // (linalg.generic's payload) are plain ops' bodies.
  bool memrefs = false;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    memrefs |= llvm::any_of(nested->getOperands(), isMemref) ||
               llvm::any_of(nested->getResults(), isMemref);
  });
  for (Region &region : op->getRegions())
    for (Block &block : region)
      memrefs |= llvm::any_of(block.getArguments(), isMemref);
  States next;
  if (memrefs && !gaveUp) {
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
        !isa<MemoryEffectOpInterface>(op)) {
      for (State &s : states)
        issue("unproven", op, nullptr,
              "'" + op->getName().getStringRef() +
                  "' has regions that use buffers, but neither "
                  "RegionBranchOpInterface nor memory effects information",
              s);
    }
    // Fixpoint: the states before the op, and after each region.
    std::set<Key> seen;
    States all;
    for (State &s : states)
      addUnique(all, seen, std::move(s));
    for (size_t i = 0; i < all.size() && !gaveUp; ++i) {
      for (Region &region : op->getRegions()) {
        if (region.empty())
          continue;
        State t = all[i];
        for (BlockArgument arg : region.front().getArguments()) {
          t.define(arg);
          if (isMemref(arg))
            t.bind(arg, t.add(Kind::Unknown, op));
        }
        States entry;
        entry.push_back(std::move(t));
        States exits;
        runRegion(region, std::move(entry), [&](Operation *term, State &u) {
          leaveScope(op, u);
          collect(u, term);
          exits.push_back(std::move(u));
        });
        for (State &u : exits)
          addUnique(all, seen, std::move(u));
        if (overflow(all, op))
          return;
      }
    }
    states = std::move(all);
  }
  for (State &s : states)
    step(op, s, next);
  states = std::move(next);
}

void FunctionChecker::run() {
  if (func.isExternal())
    return;
  Region &body = func.getFunctionBody();
  if (auto kinds = dyn_cast<RegionKindInterface>(func.getOperation());
      kinds && !kinds.hasSSADominance(0)) {
    reporter.report("unproven", func, nullptr, "a graph region is not checked",
                    {}, nullptr);
    return;
  }
  computeDeaths();
  State entry;
  for (BlockArgument arg : body.front().getArguments())
    if (isMemref(arg))
      entry.bind(arg, entry.add(Kind::Argument, nullptr));
  States states;
  states.push_back(std::move(entry));
  runRegion(body, std::move(states), [&](Operation *term, State &s) {
    if (term->getParentOp() == func.getOperation() &&
        term->hasTrait<OpTrait::ReturnLike>()) {
      atReturn(term, s);
      return;
    }
    issue("unproven", term, nullptr,
          "'" + term->getName().getStringRef() +
              "' ends the function without returning: the paths through it are "
              "not checked",
          s);
  });
}

} // namespace

std::vector<DeallocIssue> verifyDeallocation(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  Reporter reporter;
  Folder folder(root->getContext());
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return WalkResult::advance();
    // Host functions: those of builtin.modules (not of a gpu.module).
    if (op == root || isa_and_nonnull<ModuleOp>(op->getParentOp())) {
      FunctionChecker checker(func, reporter, folder);
      checker.run();
    }
    return WalkResult::skip();
  });
  return std::move(reporter.issues);
}

} // namespace memplan
