//===- IRNumbering.cpp - One numbering of an op tree on MLIR's C++ API ----===//
//
// One pre-order walk with an explicit stack (deeply nested IR does not
// recurse), then the operands, uses, post-order and tensor sub-numbering
// from its arrays.
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/IRNumbering.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace memplan {
namespace {

int32_t size32(size_t n) { return static_cast<int32_t>(n); }

/// Counts `keys` into a CSR `begin` array of `numKeys + 1` entries.
void countToBegin(std::vector<int32_t> &begin, size_t numKeys,
                  llvm::ArrayRef<int32_t> keys) {
  begin.assign(numKeys + 1, 0);
  for (int32_t k : keys)
    if (k >= 0)
      ++begin[k + 1];
  for (size_t k = 0; k < numKeys; ++k)
    begin[k + 1] += begin[k];
}

} // namespace

IRNumbering::IRNumbering(Operation *root) {
  numberTopology(root);
  resolveOperands();
  numberPostOrder();
  numberTensors();
}

void IRNumbering::numberTopology(Operation *root) {
  Graph &g = graph;
  size_t numOps = 0;
  root->walk([&](Operation *) { ++numOps; });
  ops.reserve(numOps);
  opIds.reserve(numOps);
  for (std::vector<int32_t> *v :
       {&g.opParent, &g.opBlock, &g.opEnd, &g.opDepth, &g.operandBegin,
        &g.resultBegin, &g.numResults, &g.regionBegin})
    v->reserve(numOps + 1);

  // An op being walked: its region, the block entered there and the next op
  // of that block to visit.
  struct Frame {
    Operation *op;
    int32_t id;
    unsigned region;
    Block *block;
    int32_t blockId;
    Operation *next;
  };
  std::vector<Frame> stack;
  int32_t numOperands = 0;
  auto enter = [&](Operation *op, int32_t parent, int32_t block) {
    int32_t id = size32(ops.size());
    ops.push_back(op);
    opIds[op] = id;
    g.opParent.push_back(parent);
    g.opBlock.push_back(block);
    g.opEnd.push_back(id);
    g.opDepth.push_back(parent < 0 ? 0 : g.opDepth[parent] + 1);
    g.operandBegin.push_back(numOperands);
    numOperands += size32(op->getNumOperands());
    g.resultBegin.push_back(size32(g.valueOp.size()));
    g.numResults.push_back(size32(op->getNumResults()));
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      g.valueOp.push_back(id);
      g.valueBlock.push_back(-1);
      g.valueIndex.push_back(size32(i));
    }
    // An op's regions are contiguous although nested ops add their own
    // while it is walked.
    g.regionBegin.push_back(size32(g.regionOp.size()));
    g.regionOp.insert(g.regionOp.end(), op->getNumRegions(), id);
    stack.push_back({op, id, 0, nullptr, -1, nullptr});
  };
  auto enterBlock = [&](Frame &f, Block *b) {
    int32_t id = size32(blocks.size());
    blocks.push_back(b);
    blockIds[b] = id;
    g.blockParentOp.push_back(f.id);
    g.blockRegion.push_back(g.regionBegin[f.id] + size32(f.region));
    g.blockArgBegin.push_back(size32(g.valueOp.size()));
    g.blockNumArgs.push_back(size32(b->getNumArguments()));
    g.blockFirstOp.push_back(b->empty() ? -1 : size32(ops.size()));
    for (unsigned i = 0, e = b->getNumArguments(); i < e; ++i) {
      g.valueOp.push_back(-1);
      g.valueBlock.push_back(id);
      g.valueIndex.push_back(size32(i));
    }
    f.block = b;
    f.blockId = id;
    f.next = b->empty() ? nullptr : &b->front();
  };

  enter(root, -1, -1);
  while (!stack.empty()) {
    Frame &f = stack.back();
    if (Operation *next = f.next) {
      f.next = next->getNextNode();
      enter(next, f.id, f.blockId);
      continue;
    }
    // The next block of the current region, or the first of the next
    // region that has one.
    Block *nextBlock = f.block ? f.block->getNextNode() : nullptr;
    if (!nextBlock) {
      unsigned r = f.block ? f.region + 1 : f.region;
      for (; r < f.op->getNumRegions() && f.op->getRegion(r).empty(); ++r) {
      }
      if (r < f.op->getNumRegions()) {
        f.region = r;
        nextBlock = &f.op->getRegion(r).front();
      }
    }
    if (nextBlock) {
      enterBlock(f, nextBlock);
      continue;
    }
    g.opEnd[f.id] = size32(ops.size()) - 1;
    stack.pop_back();
  }
  g.operandBegin.push_back(numOperands);
  g.regionBegin.push_back(size32(g.regionOp.size()));
  g.opPtr.assign(ops.begin(), ops.end());

  // Blocks are numbered in pre-order, so a region's own blocks are not
  // contiguous once nested regions have blocks: list them CSR-style.
  countToBegin(g.regionBlockBegin, g.regionOp.size(), g.blockRegion);
  g.regionBlocks.resize(blocks.size());
  std::vector<int32_t> fill(g.regionBlockBegin.begin(),
                            g.regionBlockBegin.end() - 1);
  for (int32_t b = 0, e = size32(blocks.size()); b < e; ++b)
    g.regionBlocks[fill[g.blockRegion[b]]++] = b;
}

int32_t IRNumbering::value(Value v) const {
  if (auto result = dyn_cast<OpResult>(v)) {
    int32_t owner = op(result.getOwner());
    return owner < 0
               ? -1
               : graph.resultBegin[owner] + size32(result.getResultNumber());
  }
  auto arg = cast<BlockArgument>(v);
  int32_t owner = block(arg.getOwner());
  return owner < 0 ? -1
                   : graph.blockArgBegin[owner] + size32(arg.getArgNumber());
}

Value IRNumbering::valueAt(int32_t v) const {
  int32_t def = graph.valueOp[v];
  if (def >= 0)
    return ops[def]->getResult(graph.valueIndex[v]);
  return blocks[graph.valueBlock[v]]->getArgument(graph.valueIndex[v]);
}

int32_t IRNumbering::tensorOperand(OpOperand *use) const {
  int32_t o = op(use->getOwner());
  if (o < 0)
    return -1;
  for (int32_t u = tensors.opOperandBegin[o]; u < tensors.opOperandBegin[o + 1];
       ++u)
    if (tensors.operands[u] == use)
      return u;
  return -1;
}

void IRNumbering::resolveOperands() {
  Graph &g = graph;
  g.operands.resize(g.operandBegin.back());
  int32_t slot = 0;
  for (Operation *o : ops)
    for (Value v : o->getOperands())
      g.operands[slot++] = value(v);

  int32_t numValues = g.numValues();
  countToBegin(g.useBegin, numValues, g.operands);
  g.useOp.resize(g.useBegin[numValues]);
  g.useOperand.resize(g.useBegin[numValues]);
  std::vector<int32_t> fill(g.useBegin.begin(), g.useBegin.end() - 1);
  for (int32_t o = 0, e = g.numOps(); o < e; ++o) {
    for (int32_t i = g.operandBegin[o]; i < g.operandBegin[o + 1]; ++i) {
      int32_t v = g.operands[i];
      if (v < 0)
        continue;
      int32_t use = fill[v]++;
      g.useOp[use] = o;
      g.useOperand[use] = i - g.operandBegin[o];
    }
  }
}

void IRNumbering::numberPostOrder() {
  int32_t n = graph.numOps();
  postOrder.reserve(n);
  postPos.assign(n, 0);
  std::vector<int32_t> open; // ids whose subtree is still being listed
  for (int32_t id = 0; id <= n; ++id) {
    while (!open.empty() && (id == n || graph.opEnd[open.back()] < id)) {
      postPos[open.back()] = size32(postOrder.size());
      postOrder.push_back(open.back());
      open.pop_back();
    }
    if (id < n)
      open.push_back(id);
  }
}

void IRNumbering::numberTensors() {
  const Graph &g = graph;
  TensorNumbering &t = tensors;
  t.ofValue.assign(g.numValues(), -1);
  auto add = [&](int32_t v, int32_t owner) {
    Value value = valueAt(v);
    if (!isa<TensorType>(value.getType()))
      return;
    t.ofValue[v] = size32(t.values.size());
    t.values.push_back(value);
    t.valueOp.push_back(g.valueOp[v]);
    t.valueBlock.push_back(g.valueBlock[v]);
    t.valueOwner.push_back(owner);
  };
  int32_t n = g.numOps();
  for (int32_t o = 0; o < n; ++o) {
    for (int32_t r = 0; r < g.numResults[o]; ++r)
      add(g.resultBegin[o] + r, o);
    for (int32_t region = g.regionBegin[o]; region < g.regionBegin[o + 1];
         ++region)
      for (int32_t k = g.regionBlockBegin[region];
           k < g.regionBlockBegin[region + 1]; ++k) {
        int32_t b = g.regionBlocks[k];
        for (int32_t a = 0; a < g.blockNumArgs[b]; ++a)
          add(g.blockArgBegin[b] + a, o);
      }
  }

  // Tensor uses in pre-order of their owners.
  t.opOperandBegin.assign(n + 1, 0);
  for (int32_t o = 0; o < n; ++o) {
    t.opOperandBegin[o] = size32(t.operands.size());
    int32_t slot = g.operandBegin[o];
    for (OpOperand &use : ops[o]->getOpOperands()) {
      int32_t v = g.operands[slot++];
      if (!isa<TensorType>(use.get().getType()))
        continue;
      t.operands.push_back(&use);
      t.operandOp.push_back(o);
      t.operandValue.push_back(v < 0 ? -1 : t.ofValue[v]);
    }
  }
  t.opOperandBegin[n] = size32(t.operands.size());
  countToBegin(t.useBegin, t.values.size(), t.operandValue);
  t.uses.assign(t.useBegin.back(), 0);
  std::vector<int32_t> fill(t.useBegin.begin(), t.useBegin.end() - 1);
  for (size_t o = 0; o < t.operands.size(); ++o) {
    int32_t v = t.operandValue[o];
    if (v >= 0)
      t.uses[fill[v]++] = size32(o);
  }
}

} // namespace memplan
