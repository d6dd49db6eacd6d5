//===- CallOrder.h - Callee-first order of functions ------------*- C++ -*-===//
//
// The one call-graph order of memplan's own passes: the strongly connected
// components of MLIR's CallGraph (CallOpInterface / CallableOpInterface,
// calls resolved through symbol tables) in post-order, so callees come
// before their callers. (The in-place engine keeps upstream One-Shot's own
// order, getFuncOpsOrderedByCalls, which its decisions must match.)
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_CALLORDER_H
#define MEMPLAN_IR_CALLORDER_H

#include "mlir-c/IR.h"

#include <string>
#include <vector>

namespace memplan {

/// One strongly connected component of the call graph.
struct CallScc {
  std::vector<std::string> symbols; ///< Symbol names of its callables.
  bool recursive = false;           ///< A cycle, or a callable calling itself.
};

/// Components of the callables directly inside `root`, callees first.
std::vector<CallScc> callGraphOrder(MlirOperation root);

} // namespace memplan

#endif // MEMPLAN_IR_CALLORDER_H
