//===- Graph.cpp - The Graph of an op tree, and queries on its ops --------===//
//
// buildGraph numbers the IR once (IRNumbering), then adds what the analyses
// read per op and value: op names, types, and roles and flags from MLIR's
// interfaces (OpRoles.h). The queries go back to the ops through the C++
// handles the graph keeps.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/Graph.h"

#include "OpRoleTable.h"
#include "memplan/IR/CrashGuards.h"
#include "memplan/IR/IRNumbering.h"
#include "memplan/IR/TypeInfo.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace memplan {

class GraphDominance {
public:
  explicit GraphDominance(Operation *root) : info(root) {}
  DominanceInfo info;
};

class GraphIndex {
public:
  llvm::DenseMap<Operation *, int32_t> ops;
};

namespace {

Attribute namedAttribute(const Graph &g, int32_t op, const std::string &name) {
  return g.op(op)->getAttr(name);
}

/// The integer an OpFoldResult holds: an IntegerAttr, or a constant
/// (m_ConstantInt) value, of at most 64 bits.
std::optional<int64_t> foldedInt(OpFoldResult folded) {
  APInt value;
  if (auto attr = dyn_cast_if_present<IntegerAttr>(
          dyn_cast_if_present<Attribute>(folded)))
    value = attr.getValue();
  else if (auto v = dyn_cast_if_present<Value>(folded);
           !v || !matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  if (value.getBitWidth() > 64)
    return std::nullopt;
  return value.getSExtValue();
}

/// `symbol` is referenced by an attribute of `user` that memplan did not
/// write (its own annotations are named `memplan.*` and pin nothing).
bool outsideAnnotations(Operation *user, SymbolRefAttr symbol) {
  for (NamedAttribute attr : user->getAttrDictionary()) {
    if (attr.getName().strref().starts_with("memplan."))
      continue;
    bool found = false;
    attr.getValue().walk([&](SymbolRefAttr ref) { found |= ref == symbol; });
    if (found)
      return true;
  }
  return false;
}

} // namespace

Graph buildGraph(MlirOperation rootHandle) {
  IRNumbering ir(unwrap(rootHandle));
  Graph &g = ir.graph;
  llvm::DenseMap<const void *, int32_t> nameIds;
  g.opName.reserve(ir.ops.size());
  for (Operation *op : ir.ops) {
    OperationName name = op->getName();
    auto [it, inserted] =
        nameIds.try_emplace(name.getAsOpaquePointer(), (int32_t)g.names.size());
    if (inserted)
      g.names.push_back(name.getStringRef().str());
    g.opName.push_back(it->second);
  }
  llvm::DenseMap<Type, int32_t> typeIds;
  g.valueType.reserve(g.valueOp.size());
  for (int32_t v = 0, e = g.numValues(); v < e; ++v) {
    Type type = ir.valueAt(v).getType();
    auto [it, inserted] = typeIds.try_emplace(type, (int32_t)g.types.size());
    if (inserted)
      g.types.push_back(describeType(type));
    g.valueType.push_back(it->second);
  }
  OpRoleTable roles = classifyOps(ir);
  g.opRole = std::move(roles.role);
  g.flowBegin = std::move(roles.flowBegin);
  g.flowTarget = std::move(roles.flowTarget);
  g.operandAccess = std::move(roles.access);
  g.asyncEnd = std::move(roles.asyncEnd);
  g.opPurity = std::move(roles.purity);
  g.viewSource = std::move(roles.viewSource);
  g.opInterfaces = std::move(roles.interfaces);
  return std::move(ir.graph);
}

int32_t Graph::nameId(const std::string &name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name)
      return static_cast<int32_t>(i);
  return -1;
}

int32_t Graph::ancestorInBlock(int32_t block, int32_t op) const {
  while (op >= 0 && opBlock[op] != block)
    op = opParent[op];
  return op;
}

ValueBoundsGuard &Graph::valueBoundsGuard() const {
  if (!boundsGuard)
    boundsGuard = std::make_shared<ValueBoundsGuard>();
  return *boundsGuard;
}

const GraphDominance &Graph::dominanceInfo() const {
  if (!dominance)
    dominance = std::make_shared<GraphDominance>(op(0));
  return *dominance;
}

bool Graph::happensBefore(int32_t a, int32_t b) const {
  const DominanceInfo &info = dominanceInfo().info;
  Operation *other = op(b);
  for (Operation *cur = op(a); cur; cur = cur->getParentOp()) {
    if (cur->isProperAncestor(other))
      return false;
    if (info.properlyDominates(cur, other))
      return true;
  }
  return false;
}

bool Graph::properlyDominates(int32_t a, int32_t b) const {
  return dominanceInfo().info.properlyDominates(op(a), op(b),
                                                /*enclosingOpOk=*/false);
}

Value Graph::value(int32_t v) const {
  if (valueOp[v] >= 0)
    return op(valueOp[v])->getResult(valueIndex[v]);
  return block(valueBlock[v])->getArgument(valueIndex[v]);
}

Block *Graph::block(int32_t b) const {
  // The graph keeps no block handles: reach the block through its parent
  // op's region (blocks of a region are listed in order).
  int32_t region = blockRegion[b], owner = blockParentOp[b];
  Region &r = op(owner)->getRegion(region - regionBegin[owner]);
  auto blk = r.begin();
  for (int32_t k = regionBlockBegin[region]; regionBlocks[k] != b; ++k)
    ++blk;
  return &*blk;
}

bool Graph::valueDominates(int32_t v, int32_t b) const {
  return dominanceInfo().info.properlyDominates(value(v), op(b));
}

std::string Graph::location(int32_t op) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  this->op(op)->getLoc().print(os);
  return out;
}

bool Graph::hasAttribute(int32_t op, const std::string &name) const {
  return static_cast<bool>(namedAttribute(*this, op, name));
}

std::optional<int64_t> Graph::intAttribute(int32_t op,
                                           const std::string &name) const {
  auto attr = dyn_cast_if_present<IntegerAttr>(namedAttribute(*this, op, name));
  if (!attr)
    return std::nullopt;
  Type type = attr.getType();
  if (type.isIndex())
    return attr.getInt();
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.getWidth() > 64)
    return std::nullopt;
  if (integer.isUnsigned()) {
    uint64_t v = attr.getUInt();
    if (v > (uint64_t)INT64_MAX)
      return std::nullopt;
    return (int64_t)v;
  }
  if (integer.isSigned())
    return attr.getSInt();
  return attr.getInt();
}

std::optional<std::string> Graph::strAttribute(int32_t op,
                                               const std::string &name) const {
  auto attr = dyn_cast_if_present<StringAttr>(namedAttribute(*this, op, name));
  if (!attr)
    return std::nullopt;
  return attr.getValue().str();
}

std::optional<std::string>
Graph::symbolAttribute(int32_t op, const std::string &name) const {
  auto attr =
      dyn_cast_if_present<FlatSymbolRefAttr>(namedAttribute(*this, op, name));
  if (!attr)
    return std::nullopt;
  return attr.getValue().str();
}

std::optional<int64_t> Graph::constantInt(int32_t op) const {
  Operation *o = this->op(op);
  APInt value;
  if (o->getNumResults() != 1 || !o->hasTrait<OpTrait::ConstantLike>() ||
      !matchPattern(o->getResult(0), m_ConstantInt(&value)) ||
      value.getBitWidth() > 64)
    return std::nullopt;
  return value.getSExtValue();
}

std::optional<std::string> Graph::callee(int32_t op) const {
  auto call = dyn_cast<CallOpInterface>(this->op(op));
  if (!call)
    return std::nullopt;
  auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!symbol)
    return std::nullopt;
  return symbol.getLeafReference().str();
}

std::optional<std::pair<int32_t, std::optional<int64_t>>>
Graph::shapedDim(int32_t op) const {
  return shapedDimOf(wrap(this->op(op)));
}

std::optional<std::pair<int32_t, std::optional<int64_t>>>
shapedDimOf(MlirOperation op) {
  auto dim = dyn_cast<ShapedDimOpInterface>(unwrap(op));
  if (!dim)
    return std::nullopt;
  std::optional<int64_t> index = foldedInt(dim.getDimension());
  Value shaped = dim.getShapedValue();
  for (OpOperand &operand : dim->getOpOperands())
    if (operand.get() == shaped)
      return std::make_pair((int32_t)operand.getOperandNumber(), index);
  return std::nullopt;
}

std::vector<std::pair<int32_t, std::string>> Graph::nonCallSymbolUses() const {
  std::vector<std::pair<int32_t, std::string>> out;
  if (op(0)->getNumRegions() != 1)
    return out;
  // The uses in the root's region (the Operation overload stops at the root,
  // a symbol table itself).
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(&op(0)->getRegion(0));
  if (!uses)
    return out;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto symbol = dyn_cast<FlatSymbolRefAttr>(use.getSymbolRef());
    int32_t user = opId(use.getUser());
    if (!symbol || user < 0)
      continue;
    auto call = dyn_cast<CallOpInterface>(use.getUser());
    if (call && call.getCallableForCallee() == CallInterfaceCallable(symbol))
      continue;
    if (!outsideAnnotations(use.getUser(), symbol))
      continue;
    out.emplace_back(user, symbol.getValue().str());
  }
  return out;
}

std::optional<InductionBounds> Graph::inductionBounds(int32_t v) const {
  if (valueOp[v] >= 0)
    return std::nullopt;
  int32_t owner = blockParentOp[valueBlock[v]];
  auto loop = dyn_cast<LoopLikeOpInterface>(op(owner));
  if (!loop)
    return std::nullopt;
  std::optional<Value> iv = loop.getSingleInductionVar();
  std::optional<OpFoldResult> lb = loop.getSingleLowerBound();
  std::optional<OpFoldResult> ub = loop.getSingleUpperBound();
  std::optional<OpFoldResult> step = loop.getSingleStep();
  if (!iv || *iv != value(v) || !lb || !ub)
    return std::nullopt;
  // The induction variable stays below the upper bound when it counts up.
  if (step) {
    std::optional<int64_t> constant = foldedInt(*step);
    if (constant && *constant <= 0)
      return std::nullopt;
  }
  auto bound = [&](OpFoldResult b) {
    LoopBound out{-1, foldedInt(b)};
    if (auto operand = dyn_cast_if_present<Value>(b))
      for (OpOperand &use : loop->getOpOperands())
        if (use.get() == operand)
          out.value = operands[operandBegin[owner] + use.getOperandNumber()];
    return out;
  };
  return InductionBounds{bound(*lb), bound(*ub)};
}

int32_t Graph::opId(Operation *o) const {
  if (!index) {
    index = std::make_shared<GraphIndex>();
    for (int32_t i = 0, e = numOps(); i < e; ++i)
      index->ops[op(i)] = i;
  }
  auto it = index->ops.find(o);
  return it == index->ops.end() ? -1 : it->second;
}

int32_t Graph::valueId(Value v) const {
  if (auto result = dyn_cast<OpResult>(v)) {
    int32_t owner = opId(result.getOwner());
    return owner < 0 ? -1
                     : resultBegin[owner] + (int32_t)result.getResultNumber();
  }
  auto arg = cast<BlockArgument>(v);
  int32_t id = blockId(arg.getOwner());
  return id < 0 ? -1 : blockArgBegin[id] + (int32_t)arg.getArgNumber();
}

int32_t Graph::blockId(Block *block) const {
  int32_t parent = opId(block->getParentOp());
  if (parent < 0)
    return -1;
  int32_t region =
      regionBegin[parent] + (int32_t)block->getParent()->getRegionNumber();
  int32_t position =
      (int32_t)std::distance(block->getParent()->begin(), block->getIterator());
  return regionBlocks[regionBlockBegin[region] + position];
}

std::optional<int64_t>
Graph::upperBound(int32_t v, const std::function<bool(int32_t)> &stop) const {
  Value start = value(v);
  if (!start.getType().isIndex() || !valueBoundsGuard().canAsk(start))
    return std::nullopt;
  // Stop at the values `stop` names (a dimension of a shaped value is
  // followed to the index value that defines it instead).
  auto stopCondition = [&](Value x, std::optional<int64_t> dim,
                           ValueBoundsConstraintSet &) {
    if (dim)
      return false;
    int32_t id = valueId(x);
    return id < 0 || stop(id);
  };
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(start),
      stopCondition, /*closedUB=*/true);
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

bool Graph::equalIndex(int32_t a, int32_t b) const {
  if (a == b)
    return true;
  Value x = value(a), y = value(b);
  if (!x.getType().isIndex() || !y.getType().isIndex() ||
      !valueBoundsGuard().canAsk({x, y}))
    return false;
  FailureOr<bool> equal =
      ValueBoundsConstraintSet::areEqual(ValueBoundsConstraintSet::Variable(x),
                                         ValueBoundsConstraintSet::Variable(y));
  return succeeded(equal) && *equal;
}

int32_t interfacesOf(MlirOperation op) { return opInterfaces(unwrap(op)); }

std::string printOperation(MlirOperation op, bool assumeVerified) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (assumeVerified)
    flags.assumeVerified();
  unwrap(op)->print(os, flags);
  return text;
}

} // namespace memplan
