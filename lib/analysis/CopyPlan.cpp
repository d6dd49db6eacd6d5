//===- CopyPlan.cpp - The copies an analyzed state asks for ---------------===//

#include "CopyPlan.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace memplan {
namespace {

/// Bytes LLVM's default data layout allocates for a scalar of `bits` bits:
/// the store size rounded up to a power of two up to 64 bits, to 16 bytes
/// above (see lifetimes/sizes.py `_int_bytes`; floats the same: f80 16).
int64_t scalarBytes(uint64_t bits) {
  uint64_t store = llvm::divideCeil(bits, 8);
  if (bits <= 64)
    return static_cast<int64_t>(llvm::PowerOf2Ceil(store));
  return static_cast<int64_t>(llvm::alignTo(store, 16));
}

int64_t scalarBits(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth();
  if (isa<IndexType>(t))
    return 64;
  if (auto f = dyn_cast<FloatType>(t))
    return f.getWidth();
  return -1;
}

int64_t elementBytes(Type t) {
  int64_t bits = scalarBits(t);
  if (bits > 0)
    return scalarBytes(bits);
  if (auto c = dyn_cast<ComplexType>(t)) {
    int64_t inner = elementBytes(c.getElementType());
    return inner < 0 ? -1 : 2 * inner;
  }
  if (auto v = dyn_cast<VectorType>(t)) {
    if (v.isScalable())
      return -1;
    int64_t inner = scalarBits(v.getElementType());
    if (inner <= 0)
      return -1;
    ArrayRef<int64_t> shape = v.getShape();
    int64_t lanes = shape.empty() ? 1 : shape.back();
    int64_t outer = 1;
    for (int64_t d : shape.drop_back())
      outer *= d;
    uint64_t store = std::max<uint64_t>(1, llvm::divideCeil(lanes * inner, 8));
    return outer * static_cast<int64_t>(llvm::PowerOf2Ceil(store));
  }
  return -1;
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
              const std::function<EngineValue(Value)> &describe, EngineCopy &copy) {
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
  if (aliases.getNumAliases() == 1 && isa<OpResult>(aliases.getAliases()[0].value) &&
      !state.bufferizesToMemoryWrite(operand) &&
      state.getAliasingOpOperands(aliases.getAliases()[0].value).getNumAliases() == 1 &&
      !isa<UnrankedTensorType>(aliases.getAliases()[0].value.getType()))
    copied = aliases.getAliases()[0].value;
  copy.value = describe(copied);
  copy.allocOnly = state.canOmitTensorCopy(operand);
  copy.bytes = staticTypeBytes(copied.getType());
  return true;
}

} // namespace memplan
