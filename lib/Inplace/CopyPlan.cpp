//===- CopyPlan.cpp - The copies an analyzed state asks for ---------------===//

#include "memplan/Inplace/CopyPlan.h"
#include "memplan/IR/TypeInfo.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace memplan {
namespace {

/// Bytes per element at LLVM's default layout: the Graph's rules (lifetimes
/// and reuse size buffers with the same ones), -1 if not modeled.
int64_t elementBytes(Type t) {
  std::string reason;
  return elementLayout(t, reason);
}

} // namespace

int64_t staticTypeBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || !shaped.hasStaticShape())
    return -1;
  int64_t bytes = elementBytes(shaped.getElementType());
  if (bytes < 0)
    return -1;
  for (int64_t d : shaped.getShape())
    bytes *= d;
  return bytes;
}

bool planCopy(OpOperand &operand, const OneShotAnalysisState &state,
              const std::function<EngineValue(Value)> &describe,
              EngineCopy &copy,
              const llvm::DenseSet<OpOperand *> *undefinedUses) {
  Operation *op = operand.getOwner();
  // insertTensorCopies only resolves conflicts of allowed bufferizable ops.
  if (!state.getOptions().dynCastBufferizableOp(op))
    return false;
  copy.op = -1;
  copy.operand = operand.getOperandNumber();
  // resolveTensorOpOperandConflicts: an op that does not write and creates
  // exactly one alias copies that result instead of the operand.
  Value copied = operand.get();
  AliasingValueList aliases = state.getAliasingValues(operand);
  if (aliases.getNumAliases() == 1 &&
      isa<OpResult>(aliases.getAliases()[0].value) &&
      !state.bufferizesToMemoryWrite(operand) &&
      state.getAliasingOpOperands(aliases.getAliases()[0].value)
              .getNumAliases() == 1 &&
      !isa<UnrankedTensorType>(aliases.getAliases()[0].value.getType()))
    copied = aliases.getAliases()[0].value;
  copy.value = describe(copied);
  copy.allocOnly = state.canOmitTensorCopy(operand) ||
                   (undefinedUses && undefinedUses->contains(&operand));
  copy.bytes = staticTypeBytes(copied.getType());
  return true;
}

} // namespace memplan
