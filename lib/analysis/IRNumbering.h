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

  std::vector<mlir::Value> values;  ///< Tensor values.
  llvm::DenseMap<mlir::Value, int32_t> valueId;
  std::vector<int32_t> valueOp;     ///< Defining op, or -1 for block arguments.
  std::vector<int32_t> valueBlock;  ///< Owner block of block arguments, or -1.

  std::vector<mlir::OpOperand *> operands;  ///< Tensor uses.
  llvm::DenseMap<mlir::OpOperand *, int32_t> operandId;
  std::vector<int32_t> operandOp;
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
  bool isProperAncestor(int32_t a, int32_t b) const { return a < b && b <= opEnd[a]; }
  bool isAncestor(int32_t a, int32_t b) const { return a <= b && b <= opEnd[a]; }
};

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_IRNUMBERING_H
