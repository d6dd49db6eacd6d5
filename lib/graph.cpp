//===- graph.cpp - Order and dominance queries on a Graph -----------------===//

#include "memplan/graph.h"

namespace memplan {

bool TypeInfo::hasStaticShape() const {
  if (kind != TypeKind::RankedTensor && kind != TypeKind::MemRef)
    return false;
  for (int64_t d : shape)
    if (d == kDynamic)
      return false;
  return true;
}

int64_t TypeInfo::staticBytes() const {
  if (!hasStaticShape() || elemBits <= 0)
    return -1;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n * ((elemBits + 7) / 8);
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

const OpDominance &Graph::dominanceInfo() const {
  if (!dominance)
    dominance = makeOpDominance(MlirOperation{opPtr[0]});
  return *dominance;
}

bool Graph::happensBefore(int32_t a, int32_t b) const {
  return opHappensBefore(dominanceInfo(), MlirOperation{opPtr[a]}, MlirOperation{opPtr[b]});
}

bool Graph::properlyDominates(int32_t a, int32_t b) const {
  return opProperlyDominates(dominanceInfo(), MlirOperation{opPtr[a]}, MlirOperation{opPtr[b]});
}

bool Graph::valueDominates(int32_t v, int32_t b) const {
  MlirValue value;
  if (valueOp[v] >= 0) {
    value = mlirOperationGetResult(MlirOperation{opPtr[valueOp[v]]}, valueIndex[v]);
  } else {
    // The graph keeps no block handles: reach the block through its parent
    // op's region (blocks of a region are listed in order).
    int32_t block = valueBlock[v], region = blockRegion[block];
    int32_t owner = blockParentOp[block];
    MlirRegion r = mlirOperationGetRegion(MlirOperation{opPtr[owner]}, region - regionBegin[owner]);
    MlirBlock blk = mlirRegionGetFirstBlock(r);
    for (int32_t k = regionBlockBegin[region]; regionBlocks[k] != block; ++k)
      blk = mlirBlockGetNextInRegion(blk);
    value = mlirBlockGetArgument(blk, valueIndex[v]);
  }
  return valueProperlyDominates(dominanceInfo(), value, MlirOperation{opPtr[b]});
}

}  // namespace memplan
