//===- DecidedBufferize.cpp - One-Shot Bufferize from given decisions -----===//
//
// Fills upstream's OneShotAnalysisState (and its FuncAnalysisState extension)
// from memplan's per-operand decisions, records what upstream's analysis
// records besides the decisions (equivalence of in-place results, function
// boundary tables, undefined tensor uses), then runs upstream's copy insertion
// and bufferization on that state. No upstream analysis runs: the decisions
// are trusted, so they must be the ones upstream's analysis would accept (the
// differential tests against mlir-opt keep them so).
//
//===----------------------------------------------------------------------===//

#include "memplan/decided_bufferize.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace mlir::bufferization;
using mlir::bufferization::func_ext::FuncAnalysisState;
using mlir::bufferization::func_ext::FuncOpAnalysisState;

namespace memplan {
namespace {

bool isTensor(Type t) { return isa<TensorType>(t); }

LayoutMapOption layoutOption(const std::string &name) {
  if (name == "identity-layout-map")
    return LayoutMapOption::IdentityLayoutMap;
  if (name == "fully-dynamic-layout-map")
    return LayoutMapOption::FullyDynamicLayoutMap;
  return LayoutMapOption::InferLayoutMap;
}

/// The options upstream's `one-shot-bufferize` pass builds from its own.
OneShotBufferizationOptions makeOptions(const BufferizeConfig &c) {
  OneShotBufferizationOptions o;
  o.allowReturnAllocsFromLoops = c.allowReturnAllocsFromLoops;
  o.allowUnknownOps = c.allowUnknownOps;
  o.bufferizeFunctionBoundaries = c.functionBoundaries;
  o.checkParallelRegions = c.checkParallelRegions;
  o.bufferAlignment = c.bufferAlignment;
  o.setFunctionBoundaryTypeConversion(layoutOption(c.functionBoundaryTypeConversion));
  if (c.mustInferMemorySpace)
    o.defaultMemorySpaceFn = [](TensorType) -> std::optional<Attribute> { return std::nullopt; };
  if (c.useEncodingForMemorySpace)
    o.defaultMemorySpaceFn = [](TensorType t) -> std::optional<Attribute> {
      if (auto ranked = dyn_cast<RankedTensorType>(t))
        return ranked.getEncoding();
      return std::nullopt;
    };
  bool identity = layoutOption(c.unknownTypeConversion) == LayoutMapOption::IdentityLayoutMap;
  o.unknownTypeConverterFn = [identity](TensorType t, Attribute memorySpace,
                                        const BufferizationOptions &) -> BaseMemRefType {
    if (identity)
      return getMemRefTypeWithStaticIdentityLayout(t, memorySpace);
    return getMemRefTypeWithFullyDynamicLayout(t, memorySpace);
  };
  if (!c.dialectFilter.empty()) {
    std::vector<std::string> dialects = c.dialectFilter;
    o.opFilter.allowOperation([dialects](Operation *op) {
      return llvm::is_contained(dialects, op->getDialect()->getNamespace().str());
    });
  }
  return o;
}

/// OneShotAnalysis' equivalence step: a result is equivalent to its definite,
/// equivalent, in-place operand, or to all of its operands when they are
/// equivalent to each other and the result is no new allocation.
void equivalenceAnalysis(Operation *scope, OneShotAnalysisState &state) {
  SmallVector<Operation *> ops;
  scope->walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isTensor))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto bufferizable = state.getOptions().dynCastBufferizableOp(op);
    if (!bufferizable)
      continue;
    for (OpResult result : op->getOpResults()) {
      if (!isTensor(result.getType()))
        continue;
      AliasingOpOperandList aliases = state.getAliasingOpOperands(result);
      if (aliases.getNumAliases() == 0)
        continue;
      Value first = aliases.begin()->opOperand->get();
      bool allEquivalent = true;
      for (AliasingOpOperand alias : aliases) {
        bool equivalent = alias.relation == BufferRelation::Equivalent;
        bool inPlace = state.isInPlace(*alias.opOperand);
        Value operand = alias.opOperand->get();
        if (equivalent && inPlace && alias.isDefinite) {
          state.unionEquivalenceClasses(result, operand);
          allEquivalent = false;
          break;
        }
        if (!equivalent || !inPlace || !state.areEquivalentBufferizedValues(operand, first))
          allEquivalent = false;
      }
      if (allEquivalent && !bufferizable.bufferizesToAllocation(result))
        state.unionEquivalenceClasses(result, first);
    }
  }
}

/// The function boundary tables calls into `func` need: which arguments are
/// read and written, which results alias which arguments, and which are
/// equivalent to one.
LogicalResult recordBoundary(func::FuncOp func, OneShotAnalysisState &state,
                             FuncAnalysisState &funcState) {
  FunctionType type = func.getFunctionType();
  if (func.getBody().empty()) {
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      if (!isTensor(input))
        continue;
      for (auto [j, result] : llvm::enumerate(type.getResults()))
        if (isTensor(result))
          funcState.aliasingReturnVals[func][i].push_back(j);
    }
  } else {
    SmallVector<func::ReturnOp> returns = getReturnOps(func);
    if (returns.empty())
      return func.emitError("cannot bufferize func.func without func.return");
    for (BlockArgument arg : func.getArguments()) {
      if (!isa<RankedTensorType>(arg.getType()))
        continue;
      llvm::SetVector<int64_t> aliasing;
      for (func::ReturnOp ret : returns)
        for (OpOperand &operand : ret->getOpOperands())
          if (isa<RankedTensorType>(operand.get().getType()) &&
              state.areAliasingBufferizedValues(operand.get(), arg))
            aliasing.insert(operand.getOperandNumber());
      for (int64_t k : aliasing)
        funcState.aliasingReturnVals[func][arg.getArgNumber()].push_back(k);
    }
    auto equivalentArg = [&](OpOperand &operand) -> std::optional<int64_t> {
      if (!isTensor(operand.get().getType()))
        return std::nullopt;
      for (BlockArgument arg : func.getArguments())
        if (isa<RankedTensorType>(arg.getType()) &&
            state.areEquivalentBufferizedValues(operand.get(), arg))
          return arg.getArgNumber();
      return std::nullopt;
    };
    for (unsigned i = 0, e = returns.front()->getNumOperands(); i < e; ++i) {
      std::optional<int64_t> arg = equivalentArg(returns.front()->getOpOperand(i));
      if (!arg)
        continue;
      bool same = llvm::all_of(ArrayRef(returns).drop_front(), [&](func::ReturnOp ret) {
        return equivalentArg(ret->getOpOperand(i)) == arg;
      });
      if (same)
        funcState.equivalentFuncArgs[func][i] = *arg;
    }
  }
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    if (!isTensor(type.getInput(i)))
      continue;
    bool read, written;
    if (auto access = func.getArgAttrOfType<StringAttr>(i, BufferizationDialect::kBufferAccessAttrName)) {
      read = access.getValue() == "read" || access.getValue() == "read-write";
      written = access.getValue() == "write" || access.getValue() == "read-write";
    } else if (func.getBody().empty()) {
      read = written = true;
    } else {
      read = state.isValueRead(func.getArgument(i));
      written = state.isValueWritten(func.getArgument(i));
    }
    if (read)
      funcState.readBbArgs[func].insert(i);
    if (written)
      funcState.writtenBbArgs[func].insert(i);
  }
  return success();
}

/// Marks every decided tensor operand of `scope` in place or out of place.
LogicalResult applyDecisions(const Graph &g, int32_t scope, const uint8_t *inplace, const uint8_t *decided,
                    OneShotAnalysisState &state) {
  for (int32_t op = scope; op <= g.opEnd[scope]; ++op) {
    int32_t begin = g.operandBegin[op], end = g.operandBegin[op + 1];
    if (begin == end)
      continue;
    Operation *operation = unwrap(MlirOperation{g.opPtr[op]});
    for (int32_t o = begin; o < end; ++o) {
      if (!inplace[o] && !decided[o])
        continue;
      OpOperand &operand = operation->getOpOperand(o - begin);
      if (!isTensor(operand.get().getType()))
        continue;
      if (inplace[o]) {
        state.bufferizeInPlace(operand);
      } else if (state.isInPlace(operand)) {
        // The op must bufferize this operand in place: upstream's analysis
        // never decides it otherwise. Trusting the decision would miscompile.
        operation->emitOpError() << "operand #" << (o - begin)
                                 << " must bufferize in place, but memplan's analysis decided "
                                    "a copy; not bufferized (please report this input)";
        return failure();
      } else {
        state.bufferizeOutOfPlace(operand);
      }
    }
  }
  return success();
}

LogicalResult verifyScope(Operation *scope, OneShotAnalysisState &state) {
  bool failed = false;
  scope->walk([&](Operation *op) {
    if (auto bufferizable = state.getOptions().dynCastBufferizableOp(op))
      failed |= mlir::failed(bufferizable.verifyAnalysis(state));
  });
  return failure(failed);
}

} // namespace

bool bufferizeWithDecisions(const Graph &g, const uint8_t *inplace, const uint8_t *decided,
                            const std::vector<DecidedScope> &scopes, const BufferizeConfig &config,
                            BufferizeStats &stats) {
  Operation *root = unwrap(MlirOperation{g.opPtr[0]});
  OneShotBufferizationOptions options = makeOptions(config);
  options.noAnalysisFuncFilter = config.noAnalysisFuncFilter;

  // Ops in functions the analysis skips are left out of the state, as
  // upstream's module bufferization does before copying before every write.
  OneShotBufferizationOptions analysisOptions = options;
  if (!config.noAnalysisFuncFilter.empty()) {
    std::vector<std::string> names = config.noAnalysisFuncFilter;
    analysisOptions.opFilter.denyOperation([names](Operation *op) {
      auto func = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op) : op->getParentOfType<func::FuncOp>();
      return func && llvm::is_contained(names, func.getSymName().str());
    });
  }

  OneShotAnalysisState state(root, analysisOptions);
  FuncAnalysisState &funcState = state.addExtension<FuncAnalysisState>();
  for (const DecidedScope &scope : scopes) {
    Operation *op = unwrap(MlirOperation{g.opPtr[scope.op]});
    auto func = dyn_cast<func::FuncOp>(op);
    if (func && scope.boundary)
      funcState.startFunctionAnalysis(func);
    if (failed(applyDecisions(g, scope.op, inplace, decided, state)))
      return false;
    equivalenceAnalysis(op, state);
    state.gatherUndefinedTensorUses(op);
    if (failed(verifyScope(op, state)))
      return false;
    if (func && scope.boundary) {
      if (failed(recordBoundary(func, state, funcState)))
        return false;
      funcState.analyzedFuncOps[func] = FuncOpAnalysisState::Analyzed;
    }
  }
  stats.numTensorInPlace = state.getStatNumTensorInPlace();
  stats.numTensorOutOfPlace = state.getStatNumTensorOutOfPlace();

  BufferizationState bufferizationState;
  BufferizationStatistics statistics;
  if (failed(insertTensorCopies(root, state, bufferizationState)))
    return false;
  LogicalResult rewritten = config.functionBoundaries
                                ? bufferizeModuleOp(root, options, bufferizationState, &statistics)
                                : bufferizeOp(root, options, bufferizationState, &statistics);
  stats.numBufferAlloc = statistics.numBufferAlloc;
  return succeeded(rewritten);
}

} // namespace memplan
