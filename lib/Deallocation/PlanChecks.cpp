//===- PlanChecks.cpp - What a deallocation plan asks of the IR -----------===//
//
// See lib/Deallocation/PlanChecks.h.
//
//===----------------------------------------------------------------------===//

#include "PlanChecks.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace memplan {

bool isFunctionReturn(Operation *op, Operation *func) {
  return op->hasTrait<OpTrait::ReturnLike>() && op->getParentOp() == func;
}

bool isMemrefOperand(Operation *op, int64_t position) {
  return position >= 0 &&
         position < static_cast<int64_t>(op->getNumOperands()) &&
         isa<BaseMemRefType>(op->getOperand(position).getType());
}

bool canFreeAfter(Operation *op) {
  return !op->hasTrait<OpTrait::IsTerminator>();
}

bool isBranchSuccessor(Operation *op, int64_t successor) {
  return isa<BranchOpInterface>(op) && successor >= 0 &&
         successor < static_cast<int64_t>(op->getNumSuccessors());
}

bool canCarryFlag(Value v, Operation *func) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner() !=
           &cast<FunctionOpInterface>(func).getFunctionBody().front();
  Operation *def = v.getDefiningOp();
  return isa<RegionBranchOpInterface>(def) && def->getNumRegions();
}

bool flagListFits(Operation *op, bool entry, int64_t successor) {
  if (entry)
    return successor < 0 && isa<RegionBranchOpInterface>(op) &&
           op->getNumRegions();
  if (successor >= 0)
    return isBranchSuccessor(op, successor);
  return isa<RegionBranchTerminatorOpInterface>(op);
}

} // namespace memplan
