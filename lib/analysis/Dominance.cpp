//===- Dominance.cpp - Order and dominance of ops through DominanceInfo ---===//
//
// See include/memplan/analysis/Dominance.h. Built without RTTI, like the MLIR
// it links (memplan_mlir in CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Dominance.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Operation.h"

namespace memplan {

class OpDominance {
public:
  explicit OpDominance(mlir::Operation *root) : info(root) {}
  mlir::DominanceInfo info;
};

std::shared_ptr<OpDominance> makeOpDominance(MlirOperation root) {
  return std::make_shared<OpDominance>(unwrap(root));
}

bool opProperlyDominates(const OpDominance &d, MlirOperation a,
                         MlirOperation b) {
  return d.info.properlyDominates(unwrap(a), unwrap(b),
                                  /*enclosingOpOk=*/false);
}

bool opHappensBefore(const OpDominance &d, MlirOperation a, MlirOperation b) {
  mlir::Operation *op = unwrap(a), *other = unwrap(b);
  for (; op; op = op->getParentOp()) {
    if (op->isProperAncestor(other))
      return false;
    if (d.info.properlyDominates(op, other))
      return true;
  }
  return false;
}

bool valueProperlyDominates(const OpDominance &d, MlirValue v,
                            MlirOperation b) {
  return d.info.properlyDominates(unwrap(v), unwrap(b));
}

} // namespace memplan
