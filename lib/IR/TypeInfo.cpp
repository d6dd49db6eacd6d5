//===- TypeInfo.cpp - What the analyses know of an MLIR type --------------===//

#include "memplan/IR/TypeInfo.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace memplan {
namespace {

std::string printType(Type t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  t.print(os);
  return text;
}

int64_t elementBits(Type t) {
  if (t.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(t))
    return integer.getWidth();
  if (auto fp = dyn_cast<FloatType>(t))
    return fp.getWidth();
  if (auto complex = dyn_cast<ComplexType>(t))
    return 2 * elementBits(complex.getElementType());
  auto vector = dyn_cast<VectorType>(t);
  if (vector && vector.hasStaticShape())
    return vector.getNumElements() * elementBits(vector.getElementType());
  return 0;
}

int64_t pow2Ceil(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// (bit width, allocation bytes) of a scalar element type; false if not one.
bool scalarLayout(Type t, int64_t &bits, int64_t &bytes) {
  if (t.isIndex()) {
    bits = 64, bytes = 8;
    return true;
  }
  if (auto integer = dyn_cast<IntegerType>(t)) {
    bits = integer.getWidth();
    int64_t store = (bits + 7) / 8;
    // LLVM's allocation size: the store size rounded up to the ABI alignment
    // (a power of two up to 64 bits; above, 4 in LLVM's default layout and
    // 16 with x86-64's and AArch64's i128:128: the larger is taken).
    bytes = bits <= 64 ? pow2Ceil(store) : (store + 15) / 16 * 16;
    return bits > 0;
  }
  if (auto fp = dyn_cast<FloatType>(t)) {
    bits = fp.getWidth();
    switch (bits) {
    case 16: // f16, bf16
      bytes = 2;
      return true;
    case 32:
      bytes = 4;
      return true;
    case 64:
      bytes = 8;
      return true;
    case 80: // x86_fp80
    case 128:
      bytes = 16;
      return true;
    default:
      bytes = 1; // the 4/6/8-bit floats are an iN
      return bits <= 8;
    }
  }
  return false;
}

} // namespace

int64_t elementLayout(Type t, std::string &reason) {
  int64_t bits = 0, bytes = 0;
  if (scalarLayout(t, bits, bytes))
    return bytes;
  if (auto complex = dyn_cast<ComplexType>(t)) {
    int64_t inner = elementLayout(complex.getElementType(), reason);
    return inner < 0 ? -1 : 2 * inner;
  }
  if (auto vector = dyn_cast<VectorType>(t)) {
    if (vector.isScalable()) {
      reason = "scalable vector element type '" + printType(t) +
               "': its size is only known at run time";
      return -1;
    }
    Type elem = vector.getElementType();
    if (!scalarLayout(elem, bits, bytes)) {
      reason = "element type '" + printType(t) + "': vectors of " +
               printType(elem) + " are not modeled";
      return -1;
    }
    // LLVM's vector: its store size rounded up to a power of two (natural
    // alignment); an N-d vector is an array of 1-d vectors.
    ArrayRef<int64_t> shape = vector.getShape();
    int64_t lanes = shape.empty() ? 1 : shape.back(), outer = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i)
      outer *= shape[i];
    return outer * pow2Ceil(std::max<int64_t>(1, (lanes * bits + 7) / 8));
  }
  reason = "element type '" + printType(t) +
           "': memplan does not model its LLVM layout";
  return -1;
}

int64_t elementLayout(MlirType type, std::string &reason) {
  return elementLayout(unwrap(type), reason);
}

TypeInfo describeType(Type t) {
  TypeInfo info;
  info.text = printType(t);
  if (isa<RankedTensorType>(t)) {
    info.kind = TypeKind::RankedTensor;
  } else if (isa<UnrankedTensorType>(t)) {
    info.kind = TypeKind::UnrankedTensor;
  } else if (auto memref = dyn_cast<MemRefType>(t)) {
    info.kind = TypeKind::MemRef;
    info.identityLayout = memref.getLayout().getAffineMap().isIdentity();
  } else if (isa<UnrankedMemRefType>(t)) {
    info.kind = TypeKind::UnrankedMemRef;
    info.identityLayout = false;
  } else if (t.isIndex()) {
    info.kind = TypeKind::Index;
    info.elemBits = 64;
  } else if (auto integer = dyn_cast<IntegerType>(t)) {
    info.kind = TypeKind::Integer;
    info.elemBits = integer.getWidth();
  } else if (auto fp = dyn_cast<FloatType>(t)) {
    info.kind = TypeKind::Float;
    info.elemBits = fp.getWidth();
  }
  if (info.isTensor() || info.isMemRef()) {
    Type elem = cast<ShapedType>(t).getElementType();
    info.elemBits = elementBits(elem);
    info.elemBytes = elementLayout(elem, info.elemReason);
  }
  if (auto shaped = dyn_cast<ShapedType>(t);
      shaped && shaped.hasRank() && (info.isTensor() || info.isMemRef()))
    for (int64_t d : shaped.getShape())
      info.shape.push_back(ShapedType::isDynamic(d) ? TypeInfo::kDynamic : d);
  if (info.isMemRef()) {
    Attribute space = cast<BaseMemRefType>(t).getMemorySpace();
    if (!space)
      info.memorySpace = 0;
    else if (auto integer = dyn_cast<IntegerAttr>(space))
      info.memorySpace = integer.getInt();
    else
      info.memorySpace = -1;
  }
  return info;
}

bool TypeInfo::hasStaticShape() const {
  if (kind != TypeKind::RankedTensor && kind != TypeKind::MemRef)
    return false;
  for (int64_t d : shape)
    if (d == kDynamic)
      return false;
  return true;
}

int64_t TypeInfo::staticBytes() const {
  if (!hasStaticShape() || elemBits <= 0)
    return -1;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n * ((elemBits + 7) / 8);
}

} // namespace memplan
