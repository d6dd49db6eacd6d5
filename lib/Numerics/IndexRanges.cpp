//===- IndexRanges.cpp - Values of integer arguments that stay in bounds --===//
//
// See include/memplan/Numerics/IndexRanges.h. Built without RTTI
// (memplan_mlir).
//
// Positions come from the op's own run-time verification
// (RuntimeVerifiableOpInterface): on a scratch module that holds a copy of the
// op, whose operands are fresh values of the same types except the probed one,
// a constant, the op generates its checks; canonicalization folds them, and a
// check whose condition folds to `false` says the probe is out of bounds.
// Bounds checks are comparisons, so the values that pass form an interval:
// one probe at 0, one past the largest, then an exponential and a binary
// search find its top. Other operands stay unknown, so only the checks on the
// probed operand alone can fail.
//
//===----------------------------------------------------------------------===//

#include "memplan/Numerics/IndexRanges.h"

#include "memplan/IR/CrashGuards.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Affine/IR/AffineMemoryOpInterfaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

using namespace mlir;

namespace memplan {
namespace {

/// Inclusive values, or none known.
using Range = std::optional<std::pair<int64_t, int64_t>>;

/// The values in both ranges (an unknown range says nothing).
Range meet(Range a, Range b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return std::make_pair(std::max(a->first, b->first),
                        std::min(a->second, b->second));
}

bool isScalarInteger(Type type) { return isa<IntegerType, IndexType>(type); }

/// Positions past this are not probed for (a position below it is exact).
constexpr int64_t kLargestProbe = int64_t(1) << 40;
/// How many casts an argument is followed through.
constexpr int kMaxCasts = 4;
/// How many views of an integer tensor (slices, reshapes) are followed.
constexpr int kMaxViews = 4;

/// A copy of `op` at `builder`'s insertion point, detached from the IR it
/// came from: each distinct operand, and each value its regions use from
/// above, becomes a new argument of the builder's block. So nothing done to
/// the copy (checks generated, shapes reified, patterns applied) adds a use
/// to, or changes, the original IR.
Operation *detachedCopy(OpBuilder &builder, Operation *op) {
  Block *block = builder.getInsertionBlock();
  Location loc = op->getLoc();
  llvm::SetVector<Value> outer(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), outer);
  IRMapping fresh;
  for (Value value : outer)
    fresh.map(value, block->addArgument(value.getType(), loc));
  return builder.clone(*op, fresh);
}

/// Answers, for the uses of one function's values, what keeps them in bounds.
class RangeFinder {
public:
  RangeFinder(Operation *func, int64_t sizeLimit)
      : func(func), context(func->getContext()), sizeLimit(sizeLimit) {}

  /// Values of `value` that keep its uses as positions and sizes in bounds
  /// (`depth`: casts followed so far; structured ops are entered at 0 only;
  /// `views`: views of a shaped value followed so far).
  Range uses(Value value, int depth, int views = 0);

private:
  Range positions(OpOperand &use);
  static Range affinePositions(OpOperand &use);
  bool passes(OpOperand &use, int64_t probe, ArrayRef<unsigned> sizes);
  bool isSize(OpOperand &use);
  const FrozenRewritePatternSet &canonicalization();
  bufferization::AnalysisState &bufferizationState();

  Operation *func;
  MLIRContext *context;
  int64_t sizeLimit;
  std::optional<FrozenRewritePatternSet> patterns;
  size_t patternDialects = 0;
  ValueBoundsGuard boundsGuard;
  /// What BufferizableOpInterface answers with (which results are views of
  /// an operand: its elements, not a copy): One-Shot's state, as the
  /// interfaces of region and call ops expect, not analyzed; made (a walk
  /// of the function) only once a shaped integer value is followed.
  bufferization::OneShotBufferizationOptions options;
  std::unique_ptr<bufferization::OneShotAnalysisState> state;
};

bufferization::AnalysisState &RangeFinder::bufferizationState() {
  if (!state) {
    state =
        std::make_unique<bufferization::OneShotAnalysisState>(func, options);
    state->addExtension<bufferization::func_ext::FuncAnalysisState>();
  }
  return *state;
}

/// Canonicalization patterns of the loaded dialects and their ops (rebuilt
/// when a probe loaded another dialect).
const FrozenRewritePatternSet &RangeFinder::canonicalization() {
  size_t loaded = context->getLoadedDialects().size();
  if (patterns && patternDialects == loaded)
    return *patterns;
  RewritePatternSet set(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(set);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    name.getCanonicalizationPatterns(set, context);
  patterns.emplace(std::move(set));
  patternDialects = loaded;
  return *patterns;
}

/// Whether the run-time checks of `use`'s owner hold with `probe` as that
/// operand, its operands numbered in `sizes` at the largest size, and nothing
/// known about the others.
bool RangeFinder::passes(OpOperand &use, int64_t probe,
                         ArrayRef<unsigned> sizes) {
  Operation *owner = use.getOwner();
  Location loc = owner->getLoc();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  Block *body = scratch->getBody();
  OpBuilder builder = OpBuilder::atBlockEnd(body);
  Operation *copy = detachedCopy(builder, owner);
  builder.setInsertionPoint(copy);
  Value constant = arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(use.get().getType(), probe));
  copy->setOperand(use.getOperandNumber(), constant);
  if (!sizes.empty()) {
    Value largest = arith::ConstantIndexOp::create(builder, loc, sizeLimit);
    for (unsigned size : sizes)
      copy->setOperand(size, largest);
  }
  cast<RuntimeVerifiableOpInterface>(copy).generateRuntimeVerification(
      builder, loc, [](Operation *, StringRef) { return std::string(); });
  // The copy itself is no check.
  if (copy->use_empty())
    copy->erase();

  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  (void)applyPatternsGreedily(scratch->getBodyRegion(), canonicalization(),
                              config);
  // A check is a result-less op on a condition; the probe fails one when
  // its condition folded to false.
  for (Operation &op : *body) {
    if (op.getNumResults() != 0)
      continue;
    for (Value condition : op.getOperands())
      if (condition.getType().isInteger(1) && matchPattern(condition, m_Zero()))
        return false;
  }
  return true;
}

/// `[0, top]` when the op's run-time verification bounds the operand as a
/// position (0 passes, a large value fails), else none. Sizes the harness
/// picks are at most `sizeLimit`: the op's other size operands are probed
/// at that.
Range RangeFinder::positions(OpOperand &use) {
  Type type = use.get().getType();
  if (!isa<RuntimeVerifiableOpInterface>(use.getOwner()) ||
      !isScalarInteger(type) || type.isInteger(1))
    return std::nullopt;
  int64_t largest = kLargestProbe;
  if (auto integer = dyn_cast<IntegerType>(type);
      integer && integer.getWidth() < 42)
    largest = (int64_t(1) << (integer.getWidth() - 1)) - 1;
  // The op's other dynamic sizes at their largest: a slice's offset then
  // leaves room for any size the harness picks.
  SmallVector<unsigned> sizes;
  for (OpOperand &other : use.getOwner()->getOpOperands())
    if (&other != &use && other.get() != use.get() && isSize(other))
      sizes.push_back(other.getOperandNumber());
  if (!passes(use, 0, sizes) || passes(use, largest, sizes))
    return std::nullopt;
  int64_t good = 0, bad = 1;
  while (bad < largest && passes(use, bad, sizes)) {
    good = bad;
    bad = std::min(largest, 2 * bad);
  }
  while (bad - good > 1) {
    int64_t middle = good + (bad - good) / 2;
    (passes(use, middle, sizes) ? good : bad) = middle;
  }
  return std::make_pair(int64_t(0), good);
}

/// `[0, size)` of each static dimension of the memref that an affine access
/// of one element (AffineReadOpInterface / AffineWriteOpInterface, which
/// verify nothing at run time) indexes by the operand itself, a bare
/// dimension or symbol of its map. A vector access (also bounded by its
/// width) says nothing.
template <typename Access>
static Range accessPositions(Access access, Value element, Value value) {
  if (isa<ShapedType>(element.getType()))
    return std::nullopt;
  AffineMap map = access.getAffineMap();
  auto operands = access.getMapOperands();
  MemRefType type = access.getMemRefType();
  Range found;
  for (auto [dim, expr] : llvm::enumerate(map.getResults())) {
    unsigned position;
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      position = d.getPosition();
    else if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      position = map.getNumDims() + s.getPosition();
    else
      continue;
    if (operands[position] == value && !type.isDynamicDim(dim))
      found = meet(found, std::make_pair(int64_t(0), type.getDimSize(dim) - 1));
  }
  return found;
}

Range RangeFinder::affinePositions(OpOperand &use) {
  if (auto read = dyn_cast<affine::AffineReadOpInterface>(use.getOwner()))
    return accessPositions(read, read.getValue(), use.get());
  if (auto write = dyn_cast<affine::AffineWriteOpInterface>(use.getOwner()))
    return accessPositions(write, write.getValueToStore(), use.get());
  return std::nullopt;
}

/// Whether the operand is a loop's upper bound or a dynamic size of a shaped
/// result.
bool RangeFinder::isSize(OpOperand &use) {
  Value value = use.get();
  Operation *owner = use.getOwner();
  if (auto loop = dyn_cast<LoopLikeOpInterface>(owner))
    if (std::optional<SmallVector<OpFoldResult>> bounds =
            loop.getLoopUpperBounds())
      if (llvm::any_of(*bounds, [&](OpFoldResult bound) {
            return dyn_cast_if_present<Value>(bound) == value;
          }))
        return true;
  if (!value.getType().isIndex())
    return false;
  if (isa<ValueBoundsOpInterface>(owner) &&
      boundsGuard.canAsk(SmallVector<Value>(owner->getResults())))
    for (OpResult result : owner->getResults()) {
      auto shaped = dyn_cast<ShapedType>(result.getType());
      if (!shaped || !shaped.hasRank())
        continue;
      for (int64_t dim = 0; dim < shaped.getRank(); ++dim) {
        if (!shaped.isDynamicDim(dim))
          continue;
        FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
            ValueBoundsConstraintSet::Variable(result, dim),
            ValueBoundsConstraintSet::Variable(value));
        if (succeeded(equal) && *equal)
          return true;
      }
    }
  if (!isa<ReifyRankedShapedTypeOpInterface>(owner))
    return false;
  // Reifying creates ops: it asks a detached copy on a scratch module, where
  // the operand is the copy's operand at the same number.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(owner->getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  Operation *copy = detachedCopy(builder, owner);
  Value copied = copy->getOperand(use.getOperandNumber());
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyResultShapes(builder, copy, shapes)))
    return false;
  for (const SmallVector<OpFoldResult> &shape : shapes)
    for (OpFoldResult size : shape)
      if (dyn_cast_if_present<Value>(size) == copied)
        return true;
  return false;
}

Range RangeFinder::uses(Value value, int depth, int views) {
  Range found;
  bool scalar = isScalarInteger(value.getType());
  for (OpOperand &use : value.getUses()) {
    Operation *owner = use.getOwner();
    if (scalar) {
      found = meet(found, positions(use));
      found = meet(found, affinePositions(use));
      if (isSize(use))
        found = meet(found, std::make_pair(int64_t(1), sizeLimit));
      if (depth < kMaxCasts && isa<CastOpInterface>(owner) &&
          owner->getNumResults() == 1 &&
          isScalarInteger(owner->getResult(0).getType()))
        found = meet(found, uses(owner->getResult(0), depth + 1));
    }
    // An input of a structured op (an integer buffer read by a generic: token
    // ids indexing an embedding table) is its body's block argument.
    if (depth == 0)
      if (auto structured = dyn_cast<linalg::LinalgOp>(owner))
        if (structured.isDpsInput(&use))
          if (BlockArgument arg = structured.getMatchingBlockArgument(&use))
            found = meet(found, uses(arg, 1));
    // A view of a shaped value holds some of its elements (a slice of the
    // ids, a reshape of them): what keeps those in bounds keeps these.
    if (!scalar && depth == 0 && views < kMaxViews)
      if (auto bufferizable =
              dyn_cast<bufferization::BufferizableOpInterface>(owner))
        if (!bufferizable.bufferizesToMemoryWrite(use, bufferizationState()))
          for (const bufferization::AliasingValue &alias :
               bufferizable.getAliasingValues(use, bufferizationState()))
            if (isa<ShapedType>(alias.value.getType()))
              found = meet(found, uses(alias.value, 0, views + 1));
  }
  if (found && found->first > found->second)
    return std::nullopt;
  return found;
}

} // namespace

std::vector<ArgumentRange> indexArgumentRanges(MlirOperation handle,
                                               int64_t sizeLimit) {
  Operation *func = unwrap(handle);
  std::vector<ArgumentRange> ranges;
  if (func->getNumRegions() == 0 || func->getRegion(0).empty())
    return ranges;
  RangeFinder finder(func, sizeLimit);
  for (BlockArgument arg : func->getRegion(0).front().getArguments()) {
    Type type = arg.getType();
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      if (!shaped.hasRank())
        continue;
      type = shaped.getElementType();
    }
    if (!isScalarInteger(type))
      continue;
    if (Range range = finder.uses(arg, 0))
      ranges.push_back({arg.getArgNumber(), range->first, range->second});
  }
  return ranges;
}

} // namespace memplan
