//===- extract.cpp - Build a Graph through the MLIR C API ------------------===//
//
// One pre-order walk. Operands are resolved after the walk because graph
// regions and unstructured control flow may use a value before its textual
// definition.
//
//===----------------------------------------------------------------------===//

#include "memplan/extract.h"
#include "memplan/op_roles.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <algorithm>
#include <unordered_map>

namespace memplan {
namespace {

void appendToString(MlirStringRef ref, void *userData) {
  static_cast<std::string *>(userData)->append(ref.data, ref.length);
}

int64_t elementBits(MlirType t) {
  if (mlirTypeIsAIndex(t))
    return 64;
  if (mlirTypeIsAInteger(t))
    return mlirIntegerTypeGetWidth(t);
  if (mlirTypeIsAFloat(t))
    return mlirFloatTypeGetWidth(t);
  if (mlirTypeIsAComplex(t))
    return 2 * elementBits(mlirComplexTypeGetElementType(t));
  if (mlirTypeIsAVector(t) && mlirShapedTypeHasStaticShape(t)) {
    int64_t n = 1;
    for (intptr_t i = 0, e = mlirShapedTypeGetRank(t); i < e; ++i)
      n *= mlirShapedTypeGetDimSize(t, i);
    return n * elementBits(mlirShapedTypeGetElementType(t));
  }
  return 0;
}

int64_t pow2Ceil(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// (bit width, allocation bytes) of a scalar element type; false if not one.
bool scalarLayout(MlirType t, int64_t &bits, int64_t &bytes) {
  if (mlirTypeIsAIndex(t)) {
    bits = 64, bytes = 8;
    return true;
  }
  if (mlirTypeIsAInteger(t)) {
    bits = mlirIntegerTypeGetWidth(t);
    int64_t store = (bits + 7) / 8;
    // LLVM's allocation size: the store size rounded up to the ABI alignment
    // (a power of two up to 64 bits; above, 4 in LLVM's default layout and
    // 16 with x86-64's and AArch64's i128:128: the larger is taken).
    bytes = bits <= 64 ? pow2Ceil(store) : (store + 15) / 16 * 16;
    return bits > 0;
  }
  if (mlirTypeIsAFloat(t)) {
    bits = mlirFloatTypeGetWidth(t);
    switch (bits) {
    case 16: bytes = 2; return true;   // f16, bf16
    case 32: bytes = 4; return true;
    case 64: bytes = 8; return true;
    case 80: bytes = 16; return true;  // x86_fp80
    case 128: bytes = 16; return true;
    default:
      bytes = 1;  // the 4/6/8-bit floats are an iN
      return bits <= 8;
    }
  }
  return false;
}

std::string printType(MlirType t) {
  std::string text;
  mlirTypePrint(t, appendToString, &text);
  return text;
}

}  // namespace

int64_t elementLayout(MlirType t, std::string &reason) {
  int64_t bits = 0, bytes = 0;
  if (scalarLayout(t, bits, bytes))
    return bytes;
  if (mlirTypeIsAComplex(t)) {
    int64_t inner = elementLayout(mlirComplexTypeGetElementType(t), reason);
    return inner < 0 ? -1 : 2 * inner;
  }
  if (mlirTypeIsAVector(t)) {
    if (mlirVectorTypeIsScalable(t)) {
      reason = "scalable vector element type '" + printType(t) +
               "': its size is only known at run time";
      return -1;
    }
    MlirType elem = mlirShapedTypeGetElementType(t);
    if (!scalarLayout(elem, bits, bytes)) {
      reason = "element type '" + printType(t) + "': vectors of " + printType(elem) +
               " are not modeled";
      return -1;
    }
    // LLVM's vector: its store size rounded up to a power of two (natural
    // alignment); an N-d vector is an array of 1-d vectors.
    intptr_t rank = mlirShapedTypeGetRank(t);
    int64_t lanes = rank ? mlirShapedTypeGetDimSize(t, rank - 1) : 1, outer = 1;
    for (intptr_t i = 0; i + 1 < rank; ++i)
      outer *= mlirShapedTypeGetDimSize(t, i);
    return outer * pow2Ceil(std::max<int64_t>(1, (lanes * bits + 7) / 8));
  }
  reason = "element type '" + printType(t) + "': memplan does not model its LLVM layout";
  return -1;
}

namespace {

TypeInfo describeType(MlirType t) {
  TypeInfo info;
  mlirTypePrint(t, appendToString, &info.text);
  bool ranked = false;
  if (mlirTypeIsARankedTensor(t)) {
    info.kind = TypeKind::RankedTensor;
    ranked = true;
  } else if (mlirTypeIsAUnrankedTensor(t)) {
    info.kind = TypeKind::UnrankedTensor;
  } else if (mlirTypeIsAMemRef(t)) {
    info.kind = TypeKind::MemRef;
    ranked = true;
    info.identityLayout = mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t));
  } else if (mlirTypeIsAUnrankedMemRef(t)) {
    info.kind = TypeKind::UnrankedMemRef;
    info.identityLayout = false;
  } else if (mlirTypeIsAIndex(t)) {
    info.kind = TypeKind::Index;
    info.elemBits = 64;
  } else if (mlirTypeIsAInteger(t)) {
    info.kind = TypeKind::Integer;
    info.elemBits = mlirIntegerTypeGetWidth(t);
  } else if (mlirTypeIsAFloat(t)) {
    info.kind = TypeKind::Float;
    info.elemBits = mlirFloatTypeGetWidth(t);
  }
  if (info.isTensor() || info.isMemRef()) {
    MlirType elem = mlirShapedTypeGetElementType(t);
    info.elemBits = elementBits(elem);
    info.elemBytes = elementLayout(elem, info.elemReason);
  }
  if (ranked) {
    for (intptr_t i = 0, e = mlirShapedTypeGetRank(t); i < e; ++i)
      info.shape.push_back(mlirShapedTypeIsDynamicDim(t, i)
                               ? TypeInfo::kDynamic
                               : mlirShapedTypeGetDimSize(t, i));
  }
  if (info.isMemRef()) {
    MlirAttribute space = info.kind == TypeKind::MemRef
                              ? mlirMemRefTypeGetMemorySpace(t)
                              : mlirUnrankedMemrefGetMemorySpace(t);
    if (mlirAttributeIsNull(space))
      info.memorySpace = 0;
    else if (mlirAttributeIsAInteger(space))
      info.memorySpace = mlirIntegerAttrGetValueInt(space);
    else
      info.memorySpace = -1;
  }
  return info;
}

class Extractor {
public:
  Graph g;

  void run(MlirOperation root) {
    visit(root, -1, -1, 0);
    resolveOperands();
    buildRegionBlocks();
    buildUses();
    OpRoleTable roles = classifyOps(g.opPtr, g.operandBegin, valueIds);
    g.opRole = std::move(roles.role);
    g.flowBegin = std::move(roles.flowBegin);
    g.flowTarget = std::move(roles.flowTarget);
    g.operandAccess = std::move(roles.access);
    g.asyncEnd = std::move(roles.asyncEnd);
    g.opPurity = std::move(roles.purity);
    g.viewSource = std::move(roles.viewSource);
  }

private:
  std::unordered_map<const void *, int32_t> valueIds;
  std::unordered_map<const void *, int32_t> typeIds;
  std::unordered_map<const void *, int32_t> nameIds;
  std::vector<const void *> pendingOperands;

  int32_t internType(MlirType t) {
    auto [it, inserted] = typeIds.try_emplace(t.ptr, (int32_t)g.types.size());
    if (inserted)
      g.types.push_back(describeType(t));
    return it->second;
  }

  int32_t internName(MlirOperation op) {
    MlirIdentifier id = mlirOperationGetName(op);
    auto [it, inserted] = nameIds.try_emplace(id.ptr, (int32_t)g.names.size());
    if (inserted) {
      MlirStringRef s = mlirIdentifierStr(id);
      g.names.emplace_back(s.data, s.length);
    }
    return it->second;
  }

  int32_t addValue(MlirValue v, int32_t op, int32_t block, int32_t index) {
    int32_t id = (int32_t)g.valueType.size();
    g.valueType.push_back(internType(mlirValueGetType(v)));
    g.valueOp.push_back(op);
    g.valueBlock.push_back(block);
    g.valueIndex.push_back(index);
    valueIds.emplace(v.ptr, id);
    return id;
  }

  void visit(MlirOperation op, int32_t parent, int32_t block, int32_t depth) {
    int32_t id = (int32_t)g.opName.size();
    g.opName.push_back(internName(op));
    g.opParent.push_back(parent);
    g.opBlock.push_back(block);
    g.opEnd.push_back(id);
    g.opDepth.push_back(depth);
    g.opPtr.push_back(op.ptr);

    intptr_t nOperands = mlirOperationGetNumOperands(op);
    g.operandBegin.push_back((int32_t)pendingOperands.size());
    for (intptr_t i = 0; i < nOperands; ++i)
      pendingOperands.push_back(mlirOperationGetOperand(op, i).ptr);

    intptr_t nResults = mlirOperationGetNumResults(op);
    g.resultBegin.push_back((int32_t)g.valueType.size());
    g.numResults.push_back((int32_t)nResults);
    for (intptr_t i = 0; i < nResults; ++i)
      addValue(mlirOperationGetResult(op, i), id, -1, (int32_t)i);

    g.regionBegin.push_back((int32_t)g.regionOp.size());
    intptr_t nRegions = mlirOperationGetNumRegions(op);
    // Reserve region ids first so an op's regions are contiguous even though
    // nested ops add regions of their own while we walk.
    int32_t firstRegion = (int32_t)g.regionOp.size();
    for (intptr_t r = 0; r < nRegions; ++r)
      g.regionOp.push_back(id);
    for (intptr_t r = 0; r < nRegions; ++r) {
      int32_t regionId = firstRegion + (int32_t)r;
      MlirRegion region = mlirOperationGetRegion(op, r);
      for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
           b = mlirBlockGetNextInRegion(b))
        visitBlock(b, id, regionId, depth);
    }
    g.opEnd[id] = (int32_t)g.opName.size() - 1;
  }

  void visitBlock(MlirBlock b, int32_t parentOp, int32_t regionId, int32_t depth) {
    int32_t blockId = (int32_t)g.blockParentOp.size();
    g.blockParentOp.push_back(parentOp);
    g.blockRegion.push_back(regionId);
    g.blockArgBegin.push_back((int32_t)g.valueType.size());
    intptr_t nArgs = mlirBlockGetNumArguments(b);
    g.blockNumArgs.push_back((int32_t)nArgs);
    g.blockFirstOp.push_back(-1);
    for (intptr_t i = 0; i < nArgs; ++i)
      addValue(mlirBlockGetArgument(b, i), -1, blockId, (int32_t)i);
    for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
         o = mlirOperationGetNextInBlock(o)) {
      if (g.blockFirstOp[blockId] < 0)
        g.blockFirstOp[blockId] = (int32_t)g.opName.size();
      visit(o, parentOp, blockId, depth + 1);
    }
  }

  void resolveOperands() {
    g.operandBegin.push_back((int32_t)pendingOperands.size());
    g.regionBegin.push_back((int32_t)g.regionOp.size());
    g.operands.resize(pendingOperands.size());
    for (size_t i = 0; i < pendingOperands.size(); ++i) {
      auto it = valueIds.find(pendingOperands[i]);
      // A value defined above the root (e.g. when extracting one function
      // nested in a larger region) has no id here.
      g.operands[i] = it == valueIds.end() ? -1 : it->second;
    }
  }

  // Blocks are numbered in pre-order, so a region's own blocks are not
  // contiguous once nested regions have blocks: list them CSR-style.
  void buildRegionBlocks() {
    int32_t nRegions = g.numRegions();
    g.regionBlockBegin.assign(nRegions + 1, 0);
    for (int32_t r : g.blockRegion)
      ++g.regionBlockBegin[r + 1];
    for (int32_t r = 0; r < nRegions; ++r)
      g.regionBlockBegin[r + 1] += g.regionBlockBegin[r];
    g.regionBlocks.resize(g.numBlocks());
    std::vector<int32_t> fill(g.regionBlockBegin.begin(), g.regionBlockBegin.end() - 1);
    for (int32_t b = 0, e = g.numBlocks(); b < e; ++b)
      g.regionBlocks[fill[g.blockRegion[b]]++] = b;
  }

  void buildUses() {
    int32_t nValues = g.numValues();
    g.useBegin.assign(nValues + 1, 0);
    for (int32_t v : g.operands)
      if (v >= 0)
        ++g.useBegin[v + 1];
    for (int32_t v = 0; v < nValues; ++v)
      g.useBegin[v + 1] += g.useBegin[v];
    g.useOp.resize(g.useBegin[nValues]);
    g.useOperand.resize(g.useBegin[nValues]);
    std::vector<int32_t> fill(g.useBegin.begin(), g.useBegin.end() - 1);
    for (int32_t op = 0, e = g.numOps(); op < e; ++op) {
      for (int32_t i = g.operandBegin[op]; i < g.operandBegin[op + 1]; ++i) {
        int32_t v = g.operands[i];
        if (v < 0)
          continue;
        int32_t slot = fill[v]++;
        g.useOp[slot] = op;
        g.useOperand[slot] = i - g.operandBegin[op];
      }
    }
  }
};

}  // namespace

Graph extractGraph(void *opPtr) {
  Extractor ex;
  ex.run(MlirOperation{opPtr});
  return std::move(ex.g);
}

std::string opLocation(void *opPtr) {
  std::string out;
  mlirLocationPrint(mlirOperationGetLocation(MlirOperation{opPtr}), appendToString,
                    &out);
  return out;
}

namespace {
MlirAttribute namedAttribute(void *opPtr, const std::string &name) {
  return mlirOperationGetAttributeByName(MlirOperation{opPtr},
                                         mlirStringRefCreate(name.data(), name.size()));
}
}  // namespace

bool opHasAttribute(void *opPtr, const std::string &name) {
  return !mlirAttributeIsNull(namedAttribute(opPtr, name));
}

std::optional<int64_t> opIntegerAttribute(void *opPtr, const std::string &name) {
  MlirAttribute attr = namedAttribute(opPtr, name);
  if (mlirAttributeIsNull(attr))
    return std::nullopt;
  if (!mlirAttributeIsAInteger(attr))
    return std::nullopt;
  MlirType type = mlirAttributeGetType(attr);
  if (mlirTypeIsAIndex(type))
    return mlirIntegerAttrGetValueInt(attr);
  if (!mlirTypeIsAInteger(type) || mlirIntegerTypeGetWidth(type) > 64)
    return std::nullopt;
  if (mlirIntegerTypeIsUnsigned(type)) {
    uint64_t v = mlirIntegerAttrGetValueUInt(attr);
    if (v > (uint64_t)INT64_MAX)
      return std::nullopt;
    return (int64_t)v;
  }
  if (mlirIntegerTypeIsSigned(type))
    return mlirIntegerAttrGetValueSInt(attr);
  return mlirIntegerAttrGetValueInt(attr);
}

std::optional<std::string> opStringAttribute(void *opPtr, const std::string &name) {
  MlirAttribute attr = namedAttribute(opPtr, name);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAString(attr))
    return std::nullopt;
  MlirStringRef s = mlirStringAttrGetValue(attr);
  return std::string(s.data, s.length);
}

std::optional<std::string> opSymbolAttribute(void *opPtr, const std::string &name) {
  MlirAttribute attr = namedAttribute(opPtr, name);
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAFlatSymbolRef(attr))
    return std::nullopt;
  MlirStringRef s = mlirFlatSymbolRefAttrGetValue(attr);
  return std::string(s.data, s.length);
}

std::string printOperation(MlirOperation op, bool assumeVerified) {
  std::string text;
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  if (assumeVerified)
    mlirOpPrintingFlagsAssumeVerified(flags);
  mlirOperationPrintWithFlags(op, flags, appendToString, &text);
  mlirOpPrintingFlagsDestroy(flags);
  return text;
}

}  // namespace memplan
