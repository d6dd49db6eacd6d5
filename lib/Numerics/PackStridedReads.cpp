//===- PackStridedReads.cpp - Tiles of strided reads packed for the JIT ---===//
//
// See include/memplan/Numerics/StridedReads.h. The numerics harness lowers
// structured ops to plain loops in the op's loop order, the innermost loop
// the parallel one that walks the output's last dimension (the reductions
// hoisted out of it: python/memplan/numerics/loop_order.py), so that it
// vectorizes. A matmul that reads its weight through a transposed map,
// `C[i, j] += A[i, k] * W[j, k]`, then walks W with a stride of a whole row
// in that loop: one scalar load per multiply, no vectors, many times slower
// than the same matmul on a transposed copy. Like a real code generator, the
// rewrite packs W tile by tile: for each tile of `tile` iterations of `j`,
// `P[k, jj] = W[j0 + jj, k]` in a stack buffer, then the op on that tile
// reads P, contiguous along `jj`. Only the iterations of `j` are split; the
// loops of the op keep their order inside a tile, so every output element
// sees the same operations in the same order.
//
//===----------------------------------------------------------------------===//

#include "memplan/Numerics/StridedReads.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#include <limits>

#define DEBUG_TYPE "memplan-pack-strided-reads"

using namespace mlir;

namespace memplan {
namespace {

/// An input to pack: its operand number and the position of the innermost
/// loop's dimension among its map's results.
struct Packed {
  unsigned operand;
  unsigned position;
};

/// The byte alignment of a pack.
constexpr int64_t kPackAlignment = 64;

/// The fewest reads of each element of an input that are worth packing it.
constexpr int64_t kMinRereads = 4;

/// The fewest iterations per tile worth a pack.
constexpr int64_t kMinTile = 8;

/// The position of `map`'s result that is exactly `dim`, if any.
std::optional<unsigned> resultPosition(AffineMap map, unsigned dim) {
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == dim)
      return i;
  return std::nullopt;
}

/// What to pack of an op: its inputs, and the iterations of the innermost
/// loop per tile.
struct PackPlan {
  SmallVector<Packed> packs;
  int64_t tile = 0;
};

/// The bytes of the pack of an input of type `type` whose innermost loop
/// dimension is at `position`, for `tile` iterations; nullopt when a size is
/// dynamic or the bytes do not fit in an int64_t.
std::optional<int64_t> packBytes(MemRefType type, unsigned position,
                                 int64_t tile) {
  int64_t bytes = tile * (type.getElementType().getIntOrFloatBitWidth() / 8);
  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    if (d == position)
      continue;
    if (ShapedType::isDynamic(size) ||
        size > std::numeric_limits<int64_t>::max() / bytes)
      return std::nullopt;
    bytes *= size;
  }
  return bytes;
}

/// What to pack of `op` (see StridedReads.h): its tile is the largest power
/// of two up to `maxTile` (and the loop's extent) whose packs all fit in
/// `maxBytes`; no packs when the op is left alone.
PackPlan planPacks(linalg::GenericOp op, int64_t maxTile, int64_t maxBytes) {
  PackPlan plan;
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2)
    return plan;
  unsigned j = op.getNumLoops() - 1;
  if (op.getIteratorTypesArray()[j] != utils::IteratorType::parallel)
    return plan;
  for (Operation &inner : op.getBlock()->getOperations())
    if (inner.getNumRegions() || isa<linalg::IndexOp>(inner))
      return plan;
  // Every operand reads `j` as a plain dimension, at most once, so that a
  // tile of `j` is a subview of each.
  for (AffineMap map : op.getIndexingMapsArray()) {
    unsigned uses = 0;
    for (AffineExpr e : map.getResults()) {
      if (!e.isFunctionOfDim(j))
        continue;
      if (!isa<AffineDimExpr>(e) || ++uses > 1)
        return plan;
    }
  }
  int64_t tile = maxTile;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!ShapedType::isDynamic(ranges[j]))
    while (tile > 1 && tile / 2 >= ranges[j])
      tile /= 2;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> p = resultPosition(map, j);
    if (!type || !p || *p + 1 == map.getNumResults())
      continue;
    // Read again across the loops its map lacks; read once or twice per
    // element, a pack would only add a copy.
    int64_t rereads = 1;
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (!map.isFunctionOfDim(d))
        rereads = ShapedType::isDynamic(ranges[d])
                      ? kMinRereads
                      : std::min(kMinRereads, rereads * ranges[d]);
    bool reread = rereads >= kMinRereads;
    Type element = type.getElementType();
    if (!reread || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      continue;
    std::optional<int64_t> bytes = packBytes(type, *p, tile);
    while (bytes && *bytes > maxBytes && tile > kMinTile) {
      tile /= 2;
      bytes = packBytes(type, *p, tile);
    }
    if (bytes && *bytes <= maxBytes)
      plan.packs.push_back({input->getOperandNumber(), *p});
  }
  plan.tile = tile;
  return plan;
}

/// `map` with its result at `position` moved last.
AffineMap moveResultLast(AffineMap map, unsigned position) {
  SmallVector<AffineExpr> results;
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (i != position)
      results.push_back(e);
  results.push_back(map.getResult(position));
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

void pack(linalg::GenericOp op, ArrayRef<Packed> packs, int64_t tile) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned j = op.getNumLoops() - 1;
  linalg::LinalgOp linalgOp = op;
  OpFoldResult extent = linalgOp.createLoopRanges(b, loc)[j].size;
  std::optional<int64_t> staticExtent = getConstantIntValue(extent);
  SmallVector<Value> buffers;
  for (const Packed &p : packs) {
    auto type = cast<MemRefType>(op->getOperand(p.operand).getType());
    SmallVector<int64_t> shape;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (d != p.position)
        shape.push_back(size);
    shape.push_back(tile);
    // Aligned as the planner's pools are, so that vector loads of a row of
    // the pack do not straddle cache lines.
    buffers.push_back(memref::AllocaOp::create(
        b, loc, MemRefType::get(shape, type.getElementType()),
        b.getI64IntegerAttr(kPackAlignment)));
  }
  // The op on the tile of `j` at `iv` of `length` iterations: every operand
  // that `j` indexes cut to the tile, each packed input copied into its
  // buffer, `j` last.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  auto onTile = [&](Value iv, OpFoldResult length) -> Operation * {
    SmallVector<AffineMap> tileMaps = maps;
    SmallVector<Value> operands(op->getOperands());
    for (OpOperand &operand : op->getOpOperands()) {
      std::optional<unsigned> q =
          resultPosition(maps[operand.getOperandNumber()], j);
      if (!q)
        continue;
      Value source = operand.get();
      unsigned rank = cast<MemRefType>(source.getType()).getRank();
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, source);
      offsets[*q] = iv;
      sizes[*q] = length;
      operands[operand.getOperandNumber()] =
          memref::SubViewOp::create(b, loc, source, offsets, sizes, strides);
    }
    for (auto [p, buffer] : llvm::zip(packs, buffers)) {
      Value tileOfInput = operands[p.operand];
      unsigned rank = cast<MemRefType>(tileOfInput.getType()).getRank();
      auto bufferType = cast<MemRefType>(buffer.getType());
      SmallVector<OpFoldResult> sizes;
      for (int64_t size : bufferType.getShape().drop_back())
        sizes.push_back(b.getIndexAttr(size));
      sizes.push_back(length);
      Value packed = memref::SubViewOp::create(
          b, loc, buffer, SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)),
          sizes, SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)));
      AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
      AffineMap toPack = moveResultLast(identity, p.position);
      linalg::GenericOp::create(
          b, loc, TypeRange(), ValueRange{tileOfInput}, ValueRange{packed},
          ArrayRef<AffineMap>{inversePermutation(toPack), identity},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &nested, Location at, ValueRange args) {
            linalg::YieldOp::create(nested, at, args[0]);
          });
      operands[p.operand] = packed;
      tileMaps[p.operand] = moveResultLast(maps[p.operand], p.position);
    }
    Operation *clone = b.clone(*op);
    clone->setOperands(operands);
    cast<linalg::GenericOp>(clone).setIndexingMapsAttr(
        b.getAffineMapArrayAttr(tileMaps));
    return clone;
  };
  // A static extent: a loop over the whole tiles, then the last partial tile
  // on its own, so that every op has static sizes (what the harness' tiling
  // of matmul-like kernels needs); a dynamic one: one loop, the last tile cut
  // at the extent.
  Value step = arith::ConstantIndexOp::create(b, loc, tile);
  int64_t whole = staticExtent ? *staticExtent - *staticExtent % tile : 0;
  Operation *last = nullptr;
  if (!staticExtent || whole > 0) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value upper = staticExtent
                      ? arith::ConstantIndexOp::create(b, loc, whole)
                      : getValueOrCreateConstantIndexOp(b, loc, extent);
    auto loop = scf::ForOp::create(b, loc, zero, upper, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    OpFoldResult length = b.getIndexAttr(tile);
    if (!staticExtent) {
      Value left = arith::SubIOp::create(b, loc, upper, iv);
      length = arith::MinSIOp::create(b, loc, step, left).getResult();
    }
    last = onTile(iv, length);
  }
  if (staticExtent && whole < *staticExtent)
    last = onTile(arith::ConstantIndexOp::create(b, loc, whole),
                  b.getIndexAttr(*staticExtent - whole));
  (void)last;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] packed " << packs.size()
                          << " input(s) of " << *last << "\n");
  op.erase();
}

} // namespace

int64_t packStridedReads(MlirOperation rootHandle, int64_t maxTile,
                         int64_t maxBytes) {
  Operation *root = unwrap(rootHandle);
  MLIRContext *ctx = root->getContext();
  SmallVector<std::pair<linalg::GenericOp, PackPlan>> work;
  root->walk([&](linalg::GenericOp op) {
    PackPlan plan = planPacks(op, maxTile, maxBytes);
    if (!plan.packs.empty())
      work.push_back({op, std::move(plan)});
  });
  if (work.empty())
    return 0;
  // The harness' own context, outside any pass: loading is safe here.
  ctx->getOrLoadDialect<arith::ArithDialect>();
  ctx->getOrLoadDialect<memref::MemRefDialect>();
  ctx->getOrLoadDialect<scf::SCFDialect>();
  for (auto &[op, plan] : work)
    pack(op, plan.packs, plan.tile);
  return static_cast<int64_t>(work.size());
}

} // namespace memplan
