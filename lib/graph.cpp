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

bool Graph::happensBefore(int32_t a, int32_t b) const {
  if (a == b || isAncestor(a, b))
    return false;
  // Pre-order agrees with program order once both sit in one block; it also
  // orders distinct blocks of a region by their textual position.
  return a < b;
}

bool Graph::properlyDominates(int32_t a, int32_t b) const {
  if (a == b || opBlock[a] < 0)
    return false;
  int32_t bAncestor = ancestorInBlock(opBlock[a], b);
  if (bAncestor < 0)
    return false;
  return a < bAncestor;
}

bool Graph::valueDominates(int32_t v, int32_t b) const {
  if (valueOp[v] >= 0)
    return properlyDominates(valueOp[v], b);
  return ancestorInBlock(valueBlock[v], b) >= 0;
}

}  // namespace memplan
