//===- BlockPeakModel.cpp - Bytes a block's tensors hold, op by op --------===//
//
// See BlockPeakModel.h. One walk over the block's ops and the uses of their
// results: O(ops + uses) (a nested use climbs to the block once).
//
//===----------------------------------------------------------------------===//

#include "BlockPeakModel.h"

#include "memplan/IR/TypeInfo.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;

namespace memplan {

int64_t heapBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !isa<TensorType, BaseMemRefType>(type))
    return -1;
  std::string reason;
  int64_t element = elementLayout(shaped.getElementType(), reason);
  if (element < 0)
    return -1;
  int64_t bytes = shaped.getNumElements() * element;
  return (bytes + 63) / 64 * 64;
}

PeakProfile::PeakProfile(int32_t points)
    : size(std::max(points, 1)), tree(4 * size, 0), lazy(4 * size, 0) {}

void PeakProfile::add(int32_t first, int32_t last, int64_t bytes) {
  first = std::max(first, 0);
  last = std::min(last, size - 1);
  if (first <= last && bytes != 0)
    add(1, 0, size - 1, first, last, bytes);
}

void PeakProfile::add(int32_t node, int32_t lo, int32_t hi, int32_t first,
                      int32_t last, int64_t bytes) {
  if (first <= lo && hi <= last) {
    tree[node] += bytes;
    lazy[node] += bytes;
    return;
  }
  int32_t mid = lo + (hi - lo) / 2;
  if (first <= mid)
    add(2 * node, lo, mid, first, last, bytes);
  if (last > mid)
    add(2 * node + 1, mid + 1, hi, first, last, bytes);
  tree[node] = std::max(tree[2 * node], tree[2 * node + 1]) + lazy[node];
}

int32_t PeakProfile::argmax() const {
  // Descend towards the first child holding the maximum (the lazy additions
  // on the path apply to both children alike).
  int32_t node = 1, lo = 0, hi = size - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (tree[2 * node] >= tree[2 * node + 1]) {
      node = 2 * node;
      hi = mid;
    } else {
      node = 2 * node + 1;
      lo = mid + 1;
    }
  }
  return lo;
}

BlockPeakModel::BlockPeakModel(Block &block,
                               bufferization::AnalysisState &state)
    : block(block) {
  for (Operation &op : block)
    ops.push_back(&op);
  for (size_t i = 0; i < ops.size(); ++i)
    index[ops[i]] = static_cast<int32_t>(i);
  auto isTensor = [](Value v) { return isa<TensorType>(v.getType()); };
  // Last uses first: the in-place rule asks them of values defined later.
  auto recordLastUse = [&](Value v, int32_t def) {
    int32_t last = def;
    for (Operation *user : v.getUsers())
      last = std::max(last, indexOf(user));
    lastUses[v] = last;
  };
  for (BlockArgument arg : block.getArguments())
    if (isTensor(arg)) {
      recordLastUse(arg, 0);
      int32_t b = newBuffer(arg, 0, /*external=*/true);
      buffers[b].writable = true;
    }
  for (size_t i = 0; i < ops.size(); ++i)
    for (Value result : ops[i]->getResults())
      if (isTensor(result))
        recordLastUse(result, static_cast<int32_t>(i));

  for (size_t i = 0; i < ops.size(); ++i) {
    Operation *op = ops[i];
    int32_t at = static_cast<int32_t>(i);
    for (Value result : op->getResults()) {
      if (!isTensor(result))
        continue;
      if (op->hasTrait<OpTrait::ConstantLike>()) {
        newBuffer(result, at, /*external=*/true);
        continue;
      }
      int32_t shared = -1;
      for (const bufferization::AliasingOpOperand &alias :
           state.getAliasingOpOperands(result)) {
        OpOperand *operand = alias.opOperand;
        int32_t b = bufferOf(operand->get());
        if (b < 0)
          continue;
        if (!state.bufferizesToMemoryWrite(*operand)) {
          shared = b; // a view of the operand
          break;
        }
        Buffer &buffer = buffers[b];
        if (buffer.external && !buffer.writable)
          continue;
        // In place only into a buffer every value of which dies here.
        if (buffer.last <= 2 * at) {
          shared = b;
          break;
        }
      }
      if (shared < 0) {
        newBuffer(result, at, /*external=*/false);
        continue;
      }
      bufferIndex[result] = shared;
      Buffer &buffer = buffers[shared];
      buffer.values.push_back(result);
      buffer.last = std::max(buffer.last, 2 * lastUse(result));
    }
  }
}

int32_t BlockPeakModel::newBuffer(Value value, int32_t at, bool external) {
  int32_t b = static_cast<int32_t>(buffers.size());
  Buffer buffer;
  buffer.external = external;
  buffer.bytes = external ? 0 : heapBytes(value.getType());
  buffer.first = 2 * at;
  buffer.last = 2 * lastUse(value);
  buffer.values.push_back(value);
  buffers.push_back(std::move(buffer));
  bufferIndex[value] = b;
  return b;
}

int32_t BlockPeakModel::indexOf(Operation *op) const {
  Operation *at = op ? block.findAncestorOpInBlock(*op) : nullptr;
  auto it = at ? index.find(at) : index.end();
  return it == index.end() ? -1 : it->second;
}

int32_t BlockPeakModel::bufferOf(Value value) const {
  auto it = bufferIndex.find(value);
  return it == bufferIndex.end() ? -1 : it->second;
}

int32_t BlockPeakModel::lastUse(Value value) const {
  auto it = lastUses.find(value);
  return it == lastUses.end() ? -1 : it->second;
}

void BlockPeakModel::addTo(PeakProfile &profile) const {
  for (const Buffer &buffer : buffers)
    if (buffer.bytes > 0)
      profile.add(buffer.first, buffer.last, buffer.bytes);
}

} // namespace memplan
