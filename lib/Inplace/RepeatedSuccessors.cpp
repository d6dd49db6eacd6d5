//===- RepeatedSuccessors.cpp - One block per edge that carries tensors ---===//
//
// See include/memplan/Inplace/RepeatedSuccessors.h.
//
//===----------------------------------------------------------------------===//

#include "memplan/Inplace/RepeatedSuccessors.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-one-shot-bufferize"

using namespace mlir;

namespace memplan {

int64_t splitRepeatedSuccessors(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  SmallVector<std::pair<BranchOpInterface, unsigned>> edges;
  root->walk([&](BranchOpInterface branch) {
    Operation *op = branch.getOperation();
    for (unsigned i = 1, e = op->getNumSuccessors(); i < e; ++i) {
      Block *succ = op->getSuccessor(i);
      bool repeated = llvm::any_of(op->getSuccessors().take_front(i),
                                   [&](Block *b) { return b == succ; });
      if (!repeated)
        continue;
      OperandRange forwarded =
          branch.getSuccessorOperands(i).getForwardedOperands();
      if (llvm::any_of(forwarded.getTypes(), llvm::IsaPred<TensorType>))
        edges.push_back({branch, i});
    }
  });
  for (auto [branch, i] : edges) {
    Operation *op = branch.getOperation();
    Block *succ = op->getSuccessor(i);
    auto *split = new Block();
    succ->getParent()->getBlocks().insert(succ->getIterator(), split);
    SmallVector<Value> args;
    for (BlockArgument arg : succ->getArguments())
      args.push_back(split->addArgument(arg.getType(), arg.getLoc()));
    OpBuilder builder = OpBuilder::atBlockEnd(split);
    cf::BranchOp::create(builder, op->getLoc(), succ, args);
    op->setSuccessor(split, i);
    LLVM_DEBUG(llvm::dbgs() << "split successor #" << i << " of "
                            << op->getName() << " at " << op->getLoc() << "\n");
  }
  return static_cast<int64_t>(edges.size());
}

} // namespace memplan
