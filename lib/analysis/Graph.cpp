//===- Graph.cpp - The Graph of an op tree, and queries on its ops --------===//
//
// buildGraph numbers the IR once (IRNumbering), then adds what the analyses
// read per op and value: op names, types, and roles and flags from MLIR's
// interfaces (OpRoles.h). The queries go back to the ops through the C++
// handles the graph keeps.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"

#include "IRNumbering.h"
#include "OpRoleTable.h"
#include "TypeInfo.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace memplan {

class GraphDominance {
public:
  explicit GraphDominance(Operation *root) : info(root) {}
  DominanceInfo info;
};

namespace {

Attribute namedAttribute(const Graph &g, int32_t op, const std::string &name) {
  return g.op(op)->getAttr(name);
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

bool Graph::valueDominates(int32_t v, int32_t b) const {
  Value value;
  if (valueOp[v] >= 0) {
    value = op(valueOp[v])->getResult(valueIndex[v]);
  } else {
    // The graph keeps no block handles: reach the block through its parent
    // op's region (blocks of a region are listed in order).
    int32_t block = valueBlock[v], region = blockRegion[block];
    int32_t owner = blockParentOp[block];
    Region &r = op(owner)->getRegion(region - regionBegin[owner]);
    auto blk = r.begin();
    for (int32_t k = regionBlockBegin[region]; regionBlocks[k] != block; ++k)
      ++blk;
    value = blk->getArgument(valueIndex[v]);
  }
  return dominanceInfo().info.properlyDominates(value, op(b));
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
