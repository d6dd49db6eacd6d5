//===- IRNumbering.h - One numbering of an op tree --------------*- C++ -*-===//
//
// Every analysis of memplan reads the IR through this numbering: the Graph
// handed to Python and to the lifetime code (memplan/IR/Graph.h: ops in
// pre-order, regions, blocks, all values, operands and uses, CSR-style), the
// C++ handles behind those ids, and the in-place engine's dense tensor ids,
// a sub-numbering of the values.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_IRNUMBERING_H
#define MEMPLAN_IR_IRNUMBERING_H

#include "memplan/IR/Graph.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace memplan {

/// The tensor values of an IRNumbering, in the engine's order (an op's
/// results, then the arguments of each block of its regions, then the ops
/// nested in it), and their uses in pre-order of their owners, then operand
/// number.
struct TensorNumbering {
  std::vector<mlir::Value> values;
  std::vector<int32_t> valueOp;    ///< Defining op, or -1 for block arguments.
  std::vector<int32_t> valueBlock; ///< Owner block of block arguments, or -1.
  std::vector<int32_t> valueOwner; ///< The op defining it or owning its block.
  /// Per value id of the numbering: its tensor id, or -1.
  std::vector<int32_t> ofValue;

  std::vector<mlir::OpOperand *> operands; ///< Tensor uses.
  std::vector<int32_t> operandOp;
  std::vector<int32_t>
      operandValue; ///< The used value's id (-1: not numbered).
  std::vector<int32_t> useBegin, uses; ///< Per value: its uses (CSR).
  /// Tensor operands of op `op` are ids [opOperandBegin[op], opOperandBegin[op
  /// + 1]).
  std::vector<int32_t> opOperandBegin;
};

class IRNumbering {
public:
  /// Numbers `root` and everything nested in it.
  explicit IRNumbering(mlir::Operation *root);

  /// The arrays: every field of Graph up to the uses (no roles, names or
  /// types: buildGraph adds those); `opPtr` holds the ops.
  Graph graph;
  std::vector<mlir::Operation *> ops;
  std::vector<mlir::Block *> blocks;

  /// Op ids in post-order (as `Operation::walk` visits them); an op's
  /// subtree is the range `postOrderOf(op)` of it, ending with the op.
  std::vector<int32_t> postOrder;
  std::vector<int32_t> postPos; ///< Per op id: its position in `postOrder`.

  TensorNumbering tensors;

  /// The id of `o`, or -1 when it is not nested in the root.
  int32_t op(mlir::Operation *o) const {
    auto it = opIds.find(o);
    return it == opIds.end() ? -1 : it->second;
  }
  /// The id of `b`, or -1.
  int32_t block(mlir::Block *b) const {
    auto it = blockIds.find(b);
    return it == blockIds.end() ? -1 : it->second;
  }
  /// The value id of `v`, or -1 for a value defined above the root.
  int32_t value(mlir::Value v) const;
  /// The value with id `v`.
  mlir::Value valueAt(int32_t v) const;
  /// The tensor id of `v`, or -1.
  int32_t tensor(mlir::Value v) const {
    int32_t id = value(v);
    return id < 0 ? -1 : tensors.ofValue[id];
  }
  /// The tensor id of tensor use `use`, or -1.
  int32_t tensorOperand(mlir::OpOperand *use) const;

  /// The ops nested in `op` (and `op`, last) in post-order.
  llvm::ArrayRef<int32_t> postOrderOf(int32_t op) const {
    int32_t size = graph.opEnd[op] - op + 1;
    return llvm::ArrayRef<int32_t>(postOrder).slice(postPos[op] + 1 - size,
                                                    size);
  }
  bool isAncestor(int32_t a, int32_t b) const { return graph.isAncestor(a, b); }

private:
  void numberTopology(mlir::Operation *root);
  void resolveOperands();
  void numberPostOrder();
  void numberTensors();

  llvm::DenseMap<mlir::Operation *, int32_t> opIds;
  llvm::DenseMap<mlir::Block *, int32_t> blockIds;
  /// Operands of every op in pre-order, resolved to value ids after the
  /// walk: graph regions and unstructured control flow may use a value
  /// before its definition.
  std::vector<mlir::OpOperand *> operandUses;
};

} // namespace memplan

#endif // MEMPLAN_IR_IRNUMBERING_H
