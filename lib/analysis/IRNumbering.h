//===- IRNumbering.h - Dense ids for ops, tensor values and uses -*- C++ -*-===//
//
// The interface engine keys its incremental index and caches by dense ids:
// ops in pre-order (an op's descendants are the ids up to `opEnd`, ops of one
// block are ordered as in the block), tensor values, and tensor uses (in
// pre-order of their owners, then operand number).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_IRNUMBERING_H
#define MEMPLAN_ANALYSIS_IRNUMBERING_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace memplan {

struct IRNumbering {
  explicit IRNumbering(mlir::Operation *root);

  std::vector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, int32_t> opId;
  std::vector<int32_t> opEnd, opParent, opBlock;  ///< opBlock: -1 for the root.
  llvm::DenseMap<mlir::Block *, int32_t> blockId;
  std::vector<mlir::Block *> blocks;
  std::vector<int32_t> blockOp;  ///< The op owning each block.

  /// Op ids in post-order (as `Operation::walk` visits them); an op's
  /// subtree is the range `postOrderOf(op)` of it, ending with the op.
  std::vector<int32_t> postOrder;
  std::vector<int32_t> postPos;  ///< Per op id: its position in `postOrder`.

  std::vector<mlir::Value> values;  ///< Tensor values.
  llvm::DenseMap<mlir::Value, int32_t> valueId;
  std::vector<int32_t> valueOp;     ///< Defining op, or -1 for block arguments.
  std::vector<int32_t> valueBlock;  ///< Owner block of block arguments, or -1.

  std::vector<mlir::OpOperand *> operands;  ///< Tensor uses.
  std::vector<int32_t> operandOp;
  std::vector<int32_t> operandValue;  ///< The used value's id (-1: not numbered).
  std::vector<int32_t> useBegin, uses;  ///< Per value: its uses (CSR).

  /// Tensor operands of op `op` are ids [opOperandBegin[op], opOperandBegin[op + 1]).
  std::vector<int32_t> opOperandBegin;

  int32_t value(mlir::Value v) const {
    auto it = valueId.find(v);
    return it == valueId.end() ? -1 : it->second;
  }
  int32_t op(mlir::Operation *o) const {
    auto it = opId.find(o);
    return it == opId.end() ? -1 : it->second;
  }
  /// The id of tensor use `use`, or -1.
  int32_t operand(mlir::OpOperand *use) const {
    int32_t o = op(use->getOwner());
    if (o < 0)
      return -1;
    for (int32_t u = opOperandBegin[o]; u < opOperandBegin[o + 1]; ++u)
      if (operands[u] == use)
        return u;
    return -1;
  }
  /// The ops nested in `op` (and `op`, last) in post-order.
  llvm::ArrayRef<int32_t> postOrderOf(int32_t op) const {
    int32_t end = postPos[op] + 1;
    return llvm::ArrayRef<int32_t>(postOrder).slice(end - (opEnd[op] - op + 1), opEnd[op] - op + 1);
  }
  /// The op defining tensor value `v`, or owning its block.
  int32_t valueOwner(int32_t v) const { return valueOp[v] >= 0 ? valueOp[v] : blockOp[valueBlock[v]]; }
  bool isProperAncestor(int32_t a, int32_t b) const { return a < b && b <= opEnd[a]; }
  bool isAncestor(int32_t a, int32_t b) const { return a <= b && b <= opEnd[a]; }
};

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_IRNUMBERING_H
