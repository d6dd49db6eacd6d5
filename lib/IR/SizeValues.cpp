//===- SizeValues.cpp - The simplest value an index computation equals ----===//
//
// See Graph::simplifiedIndex (include/memplan/IR/Graph.h). Importers
// compute sizes through integer arithmetic that upstream's folders simplify
// once value ranges are known: torch-mlir's reshape takes a dimension
// through `index_cast`, a sign test and `select`s, all of which fold away
// because a dimension is never negative. The value's pure backward slice is
// copied into a scratch function (its other operands become arguments),
// upstream's `arith-int-range-optimizations`, `canonicalize` and `cse` run
// on it, and the value returned is read back: an argument, or a copied op
// that survived, names the program's value it equals.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/Graph.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-size-values"

using namespace mlir;

namespace memplan {
namespace {

/// Ops copied at most: a size computation is a few dozen ops.
constexpr size_t kSliceLimit = 256;

constexpr llvm::StringLiteral kOrigin = "memplan.origin";

/// A scratch function computing `roots` from the values their pure backward
/// slice reads (its arguments), simplified by upstream's passes.
struct Scratch {
  OwningOpRef<ModuleOp> module;
  func::FuncOp fn;
  llvm::SetVector<Value> outside;
  SmallVector<Operation *> ordered;
};

/// Copies the slice of `roots` (`combine` builds the returned value from
/// their copies) and simplifies it; nullopt when the slice is too large or
/// the passes fail.
std::optional<Scratch>
simplify(const Graph &g, ArrayRef<Value> roots,
         llvm::function_ref<Value(OpBuilder &, ArrayRef<Value>)> combine) {
  Scratch s;
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value x = work.pop_back_val();
    Operation *def = x.getDefiningOp();
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def) ||
        g.opId(def) < 0) {
      s.outside.insert(x);
      continue;
    }
    if (!slice.insert(def))
      continue;
    if (slice.size() > kSliceLimit)
      return std::nullopt;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  s.ordered.assign(slice.begin(), slice.end());
  llvm::sort(s.ordered, [&](Operation *a, Operation *b) {
    return g.opId(a) < g.opId(b); // pre-order ids: definitions come first
  });
  Location loc = roots.front().getLoc();
  s.module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(s.module->getBody());
  SmallVector<Type> argTypes;
  for (Value x : s.outside)
    argTypes.push_back(x.getType());
  s.fn = func::FuncOp::create(builder, loc, "memplan_size",
                              builder.getFunctionType(argTypes, {}));
  Block *entry = s.fn.addEntryBlock();
  IRMapping mapping;
  for (auto [x, arg] : llvm::zip(s.outside, entry->getArguments()))
    mapping.map(x, arg);
  builder.setInsertionPointToEnd(entry);
  for (Operation *op : s.ordered) {
    Operation *copy = builder.clone(*op, mapping);
    copy->setAttr(kOrigin, builder.getI32IntegerAttr(g.opId(op)));
  }
  SmallVector<Value> copies;
  for (Value root : roots)
    copies.push_back(mapping.lookup(root));
  Value result = combine(builder, copies);
  func::ReturnOp::create(builder, loc, result);
  s.fn.setFunctionType(builder.getFunctionType(argTypes, {result.getType()}));

  PassManager pm(roots.front().getContext(), ModuleOp::getOperationName());
  OpPassManager &nested = pm.nest<func::FuncOp>();
  nested.addPass(arith::createIntRangeOptimizationsPass());
  nested.addPass(createCanonicalizerPass());
  nested.addPass(createCSEPass());
  if (failed(pm.run(*s.module)))
    return std::nullopt;
  return s;
}

Value returned(Scratch &s) {
  return cast<func::ReturnOp>(s.fn.getBody().front().getTerminator())
      .getOperand(0);
}

} // namespace

int32_t Graph::simplifiedIndex(int32_t v) const {
  Value root = value(v);
  if (!root.getType().isIntOrIndex() || !root.getDefiningOp())
    return v;
  std::optional<Scratch> s =
      simplify(*this, {root}, [](OpBuilder &, ArrayRef<Value> copies) {
        return copies.front();
      });
  if (!s)
    return v;
  // The value it simplifies to: an argument of the scratch function, or an
  // op copied from the program that survived.
  Value simplified = returned(*s);
  Value candidate;
  if (auto arg = dyn_cast<BlockArgument>(simplified)) {
    candidate = s->outside[arg.getArgNumber()];
  } else if (auto origin =
                 simplified.getDefiningOp()->getAttrOfType<IntegerAttr>(
                     kOrigin)) {
    for (Operation *o : s->ordered)
      if (opId(o) == origin.getInt() &&
          o->getNumResults() == simplified.getDefiningOp()->getNumResults())
        candidate = o->getResult(cast<OpResult>(simplified).getResultNumber());
  }
  if (!candidate || candidate == root ||
      candidate.getType() != root.getType() || valueId(candidate) < 0)
    return v;
  // Proven, not trusted: the same passes fold `root == candidate` to true.
  std::optional<Scratch> proof = simplify(
      *this, {root, candidate}, [&](OpBuilder &b, ArrayRef<Value> copies) {
        return arith::CmpIOp::create(b, root.getLoc(), arith::CmpIPredicate::eq,
                                     copies[0], copies[1])
            .getResult();
      });
  if (!proof || !matchPattern(returned(*proof), m_One()))
    return v;
  LLVM_DEBUG(llvm::dbgs() << "value " << v << " equals value "
                          << valueId(candidate) << "\n");
  return valueId(candidate);
}

} // namespace memplan
