//===- OpRoleTable.h - Interface roles of the numbered ops ------*- C++ -*-===//
//
// The role words, flags and bits of memplan/IR/OpRoles.h for every op
// of an IRNumbering, from MLIR's interfaces.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_IR_OPROLETABLE_H
#define MEMPLAN_LIB_IR_OPROLETABLE_H

#include "memplan/IR/OpRoles.h"

#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace memplan {

class IRNumbering;

/// Roles of the ops of a graph and where their operands flow.
struct OpRoleTable {
  std::vector<int32_t> role; ///< Role word per op.
  /// CSR over operand slots, size numOperands+1.
  std::vector<int32_t> flowBegin;
  std::vector<int32_t> flowTarget; ///< Value ids an operand is forwarded to.
  std::vector<int32_t> access;     ///< OperandAccess bits per operand slot.
  /// Per op with kFlagAsync: the op of its block that waits for its work
  /// (its completion point), or -1 when no op of its block does (the token
  /// escapes, is never awaited, or is awaited conditionally). -1 elsewhere.
  std::vector<int32_t> asyncEnd;
  std::vector<int32_t> purity; ///< OpPurity bits per op.
  /// Per op: the operand number of its view source (ViewLikeOpInterface), or
  /// -1.
  std::vector<int32_t> viewSource;
  std::vector<int32_t> interfaces; ///< OpInterfaceBit bits per op.
};

/// OpInterfaceBit bits of `op`.
int32_t opInterfaces(mlir::Operation *op);

/// Roles of the ops of `ir`, indexed like its Graph (operand slots for the
/// per-operand tables, value ids for the flow targets).
OpRoleTable classifyOps(const IRNumbering &ir);

} // namespace memplan

#endif // MEMPLAN_LIB_IR_OPROLETABLE_H
