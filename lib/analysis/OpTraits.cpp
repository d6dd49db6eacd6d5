//===- OpTraits.cpp - Op traits asked from Python -------------------------===//
//
// See include/memplan/analysis/OpTraits.h. Built without RTTI (memplan_mlir).
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/OpTraits.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/OpDefinition.h"

namespace memplan {

bool isConstantLike(MlirOperation op) {
  return unwrap(op)->hasTrait<mlir::OpTrait::ConstantLike>();
}

} // namespace memplan
