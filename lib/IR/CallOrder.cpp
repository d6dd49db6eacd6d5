//===- CallOrder.cpp - Callee-first order over MLIR's CallGraph -----------===//
//
// See include/memplan/IR/CallOrder.h. Built without RTTI (memplan_mlir).
//
//===----------------------------------------------------------------------===//

#include "memplan/IR/CallOrder.h"

#include "mlir/Analysis/CallGraph.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/SCCIterator.h"

namespace memplan {

std::vector<CallScc> callGraphOrder(MlirOperation rootHandle) {
  mlir::Operation *root = unwrap(rootHandle);
  mlir::CallGraph graph(root);
  std::vector<CallScc> out;
  // Every top-level callable hangs off the external caller node, so one
  // walk from it reaches them all; scc_iterator yields components in
  // post-order (callees first).
  for (auto it = llvm::scc_begin(static_cast<const mlir::CallGraph *>(&graph));
       !it.isAtEnd(); ++it) {
    CallScc scc;
    for (const mlir::CallGraphNode *node : *it) {
      if (node->isExternal())
        continue;
      mlir::Operation *callable = node->getCallableRegion()->getParentOp();
      if (callable->getParentOp() != root)
        continue;
      if (auto name = callable->getAttrOfType<mlir::StringAttr>(
              mlir::SymbolTable::getSymbolAttrName()))
        scc.symbols.push_back(name.str());
    }
    if (scc.symbols.empty())
      continue;
    scc.recursive = it.hasCycle();
    out.push_back(std::move(scc));
  }
  return out;
}

} // namespace memplan
