//===- IRNumbering.cpp - Dense ids for ops, tensor values and uses --------===//

#include "IRNumbering.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace memplan {
namespace {
bool isTensor(Value v) { return isa<TensorType>(v.getType()); }
} // namespace

IRNumbering::IRNumbering(Operation *root) {
  // Pre-order with an explicit stack: (op, parent id, block id).
  struct Item {
    Operation *op;
    int32_t parent, block;
  };
  size_t numOps = 0;
  root->walk([&](Operation *) { ++numOps; });
  ops.reserve(numOps);
  opId.reserve(numOps);
  opEnd.reserve(numOps);
  opParent.reserve(numOps);
  opBlock.reserve(numOps);
  std::vector<Item> stack{{root, -1, -1}};
  std::vector<int32_t> open;  // ids whose subtree is still being numbered
  auto addValue = [&](Value v, int32_t op, int32_t block) {
    if (!isTensor(v))
      return;
    valueId[v] = static_cast<int32_t>(values.size());
    values.push_back(v);
    valueOp.push_back(op);
    valueBlock.push_back(block);
  };
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    int32_t id = static_cast<int32_t>(ops.size());
    while (!open.empty() && open.back() != it.parent) {
      opEnd[open.back()] = id - 1;
      open.pop_back();
    }
    ops.push_back(it.op);
    opId[it.op] = id;
    opParent.push_back(it.parent);
    opBlock.push_back(it.block);
    opEnd.push_back(id);
    open.push_back(id);
    for (Value r : it.op->getResults())
      addValue(r, id, -1);
    if (!it.op->getNumRegions())
      continue;
    // Blocks and their arguments in order; then the nested ops, pushed last
    // first so that they pop in order.
    int32_t firstBlock = static_cast<int32_t>(blocks.size());
    for (Region &region : it.op->getRegions())
      for (Block &block : region) {
        int32_t b = static_cast<int32_t>(blocks.size());
        blocks.push_back(&block);
        blockOp.push_back(id);
        blockId[&block] = b;
        for (BlockArgument arg : block.getArguments())
          addValue(arg, -1, b);
      }
    for (int32_t b = static_cast<int32_t>(blocks.size()) - 1; b >= firstBlock; --b)
      for (Operation &child : llvm::reverse(*blocks[b]))
        stack.push_back({&child, id, b});
  }
  int32_t n = static_cast<int32_t>(ops.size());
  while (!open.empty()) {
    opEnd[open.back()] = n - 1;
    open.pop_back();
  }
  // Post-order: an op follows the ops nested in it.
  postOrder.reserve(n);
  postPos.assign(n, 0);
  for (int32_t id = 0; id <= n; ++id) {
    while (!open.empty() && (id == n || opEnd[open.back()] < id)) {
      postPos[open.back()] = static_cast<int32_t>(postOrder.size());
      postOrder.push_back(open.back());
      open.pop_back();
    }
    if (id < n)
      open.push_back(id);
  }
  // Tensor uses in pre-order of their owners.
  opOperandBegin.assign(n + 1, 0);
  std::vector<int32_t> count(values.size() + 1, 0);
  for (int32_t o = 0; o < n; ++o) {
    opOperandBegin[o] = static_cast<int32_t>(operands.size());
    for (OpOperand &use : ops[o]->getOpOperands()) {
      if (!isTensor(use.get()))
        continue;
      int32_t v = value(use.get());
      operands.push_back(&use);
      operandOp.push_back(o);
      operandValue.push_back(v);
      if (v >= 0)
        count[v + 1]++;
    }
  }
  opOperandBegin[n] = static_cast<int32_t>(operands.size());
  useBegin.assign(values.size() + 1, 0);
  for (size_t v = 0; v < values.size(); ++v)
    useBegin[v + 1] = useBegin[v] + count[v + 1];
  uses.assign(useBegin.back(), 0);
  std::vector<int32_t> fill(useBegin.begin(), useBegin.end() - 1);
  for (size_t o = 0; o < operands.size(); ++o) {
    int32_t v = operandValue[o];
    if (v >= 0)
      uses[fill[v]++] = static_cast<int32_t>(o);
  }
}

} // namespace memplan
