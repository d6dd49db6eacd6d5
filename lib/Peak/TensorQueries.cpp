//===- TensorQueries.cpp - What memplan's tensor rewrites ask -------------===//
//
// See TensorQueries.h.
//
//===----------------------------------------------------------------------===//

#include "TensorQueries.h"
#include "memplan/Inplace/AnalysisSteps.h"
#include "memplan/Inplace/CopyPlan.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace memplan {

bool isFreshDestination(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isMemoryEffectFree(op))
    return false;
  Value result = op->getResult(0);
  if (!isa<TensorType>(result.getType()) ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return isa<TensorType>(t); }))
    return false;
  auto bufferizable = dyn_cast<bufferization::BufferizableOpInterface>(op);
  return bufferizable && bufferizable.bufferizesToAllocation(result);
}

int64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return std::max<int64_t>(staticTypeBytes(tensor), 0);
}

Value engineValue(ArrayRef<Operation *> ops, const EngineValue &v) {
  if (v.op < 0 || v.op >= (int32_t)ops.size())
    return Value();
  Operation *op = ops[v.op];
  if (!v.blockArgument)
    return v.index < (int32_t)op->getNumResults() ? op->getResult(v.index)
                                                  : Value();
  if (v.region >= (int32_t)op->getNumRegions())
    return Value();
  Region &region = op->getRegion(v.region);
  int32_t k = 0;
  for (Block &block : region) {
    if (k++ == v.block)
      return v.index < (int32_t)block.getNumArguments()
                 ? block.getArgument(v.index)
                 : Value();
  }
  return Value();
}

EngineResult analyzeQuietly(Operation *root, bool functionBoundaries,
                            std::vector<std::pair<int32_t, int32_t>> deferred,
                            QuietAnalysis what) {
  EngineOptions options;
  options.deferredOperands = std::move(deferred);
  options.analysisOnly = true;
  options.undefinedUses = false;
  options.collectAliasSets = what.aliasSets;
  options.collectEquivalenceSets = options.collectCopies = false;
  options.keepForBufferization = what.keepForBufferization;
  options.bufferize.bufferizeFunctionBoundaries = functionBoundaries;
  options.bufferize.allowUnknownOps = true;
  ScopedDiagnosticHandler silence(root->getContext(),
                                  [](Diagnostic &) { return success(); });
  return runInterfaceEngine(wrap(root), options);
}

QueryState::QueryState(Operation *root) {
  state = std::make_unique<bufferization::OneShotAnalysisState>(root, options);
  state->addExtension<bufferization::func_ext::FuncAnalysisState>();
}

namespace {

/// Whether every buffer `v` may alias is one the program allocates in
/// straight-line code: its reverse use-def chain through aliasing operands
/// ends at allocations only (not at block arguments, not at values of ops
/// that are not bufferizable, such as constants), without passing through a
/// region-branch op.
bool ownsBuffer(Value v, bufferization::AnalysisState &state) {
  SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    auto result = dyn_cast<OpResult>(cur);
    // Block arguments are the caller's or a loop's buffers; results of
    // region-branch ops (scf.if, scf.for) take the layout that fits every
    // branch, which bufferization makes dynamic.
    if (!result || isa<RegionBranchOpInterface>(result.getOwner()))
      return false;
    auto bufferizable =
        dyn_cast<bufferization::BufferizableOpInterface>(result.getOwner());
    if (!bufferizable)
      return false;
    if (bufferizable.bufferizesToAllocation(result))
      continue;
    bufferization::AliasingOpOperandList aliasing =
        bufferizable.getAliasingOpOperands(result, state);
    if (aliasing.getNumAliases() == 0)
      return false;
    for (const bufferization::AliasingOpOperand &a : aliasing)
      work.push_back(a.opOperand->get());
  }
  return true;
}

/// The buffer type bufferization gives `v` (One-Shot's prediction, IR
/// untouched), or null.
Type bufferTypeOf(Value v, const bufferization::BufferizationOptions &options) {
  bufferization::BufferizationState state;
  FailureOr<bufferization::BufferLikeType> type =
      bufferization::getBufferType(v, options, state);
  return succeeded(type) ? Type(*type) : Type();
}

/// Whether `nested`, an op of a payload, can touch no buffer: it has scalar
/// operands and results and no regions, and either no memory effect or only
/// writes that name no value or symbol (`cf.assert`, which torch-mlir puts
/// in the payloads it fuses: a write to the program's state, its abort).
/// Without a buffer operand it cannot name the buffer the op writes, so
/// which buffer that is does not change what it does; a read of memory it
/// does not name could see the input being overwritten, and is not allowed.
bool touchesNoBuffer(Operation *nested) {
  auto scalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
  if (nested->getNumRegions() != 0 ||
      !llvm::all_of(nested->getOperandTypes(), scalar) ||
      !llvm::all_of(nested->getResultTypes(), scalar))
    return false;
  if (isMemoryEffectFree(nested))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [](MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) && !e.getValue() &&
           !e.getSymbolRef();
  });
}

/// Upstream's `linalg::isElementwise` (all loops parallel, projected
/// permutation maps, permutations for the results, a payload of scalar
/// elementwise ops), or the same shape with a payload whose ops touch no
/// buffer (touchesNoBuffer): fused payloads that keep the importer's
/// checks are elementwise too.
bool isElementwiseWithChecks(linalg::LinalgOp op) {
  if (linalg::isElementwise(op))
    return true;
  if (op.getNumLoops() != op.getNumParallelLoops() ||
      !linalg::allIndexingsAreProjectedPermutation(op) ||
      op->getNumRegions() != 1 || !op->getRegion(0).hasOneBlock())
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isPermutation())
      return false;
  return llvm::all_of(
      op->getRegion(0).front().without_terminator(),
      [](Operation &nested) { return touchesNoBuffer(&nested); });
}

/// The options the dying-input queries ask the interfaces with: upstream's
/// defaults, with identity layouts at function boundaries.
OneShotOptions queryOptions(bool functionBoundaries) {
  OneShotOptions options;
  options.bufferizeFunctionBoundaries = functionBoundaries;
  options.functionBoundaryTypeConversion = "identity-layout-map";
  return options;
}

} // namespace

DyingInputQueries::DyingInputQueries(Operation *root, bool functionBoundaries)
    : options(
          makeBufferizeOptions(queryOptions(functionBoundaries), funcFilter)),
      query(root) {}

std::optional<DyingInputCandidate>
DyingInputQueries::candidate(Operation *operation) {
  auto op = dyn_cast<linalg::LinalgOp>(operation);
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !isElementwiseWithChecks(op))
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.payloadUsesValueFromOperand(init) ||
      !isFreshDestination(init->get().getDefiningOp()))
    return std::nullopt;
  AffineMap initMap = op.getMatchingIndexingMap(init);
  // The input must bufferize to the buffer type the destination would have
  // had: otherwise the result's buffer changes layout, and its users (a
  // function return with identity layouts, say) would copy.
  Type want = bufferTypeOf(init->get(), options);
  if (!want)
    return std::nullopt;
  DyingInputCandidate out{init, {}};
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value v = input->get();
    if (v.getType() != init->get().getType() ||
        op.getMatchingIndexingMap(input) != initMap ||
        !ownsBuffer(v, query.get()) || bufferTypeOf(v, options) != want)
      continue;
    out.inputs.push_back(input);
  }
  if (out.inputs.empty())
    return std::nullopt;
  return out;
}

} // namespace memplan
