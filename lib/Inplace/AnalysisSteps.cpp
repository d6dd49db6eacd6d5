//===- AnalysisSteps.cpp - Steps One-Shot Analysis runs besides decisions -===//

#include "memplan/Inplace/AnalysisSteps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace mlir::bufferization;
using mlir::bufferization::func_ext::FuncAnalysisState;

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

/// The elements of a comma-separated list option (empty ones dropped), as
/// upstream's ListOption parser gives them.
std::vector<std::string> splitList(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return std::vector<std::string>(parts.begin(), parts.end());
}

/// `bufferization.access` of argument `idx`, as upstream's test annotation.
void annotateArgAccess(func::FuncOp func, unsigned idx, bool read,
                       bool written) {
  StringRef access = read && written ? "read-write"
                     : read          ? "read"
                     : written       ? "write"
                                     : "none";
  func.setArgAttr(idx, BufferizationDialect::kBufferAccessAttrName,
                  StringAttr::get(func.getContext(), access));
}

/// `__equivalent_func_args__` on a return: operand `i` is equivalent to
/// argument `arg`, as upstream's test annotation.
void annotateEquivalentArg(OpOperand &returned, int64_t arg) {
  constexpr StringLiteral kName = "__equivalent_func_args__";
  Operation *op = returned.getOwner();
  SmallVector<int64_t> args;
  if (auto old = op->getAttrOfType<ArrayAttr>(kName))
    for (Attribute a : old)
      args.push_back(cast<IntegerAttr>(a).getValue().getSExtValue());
  else
    args.assign(op->getNumOperands(), -1);
  args[returned.getOperandNumber()] = arg;
  op->setAttr(kName, Builder(op->getContext()).getI64ArrayAttr(args));
}

} // namespace

OneShotBufferizationOptions
makeBufferizeOptions(const OneShotOptions &options,
                     std::vector<std::string> &funcFilter) {
  OneShotBufferizationOptions o;
  o.allowReturnAllocsFromLoops = options.allowReturnAllocsFromLoops;
  o.allowUnknownOps = options.allowUnknownOps;
  o.bufferizeFunctionBoundaries = options.bufferizeFunctionBoundaries;
  o.checkParallelRegions = options.checkParallelRegions;
  o.testAnalysisOnly = options.testAnalysisOnly;
  o.printConflicts = options.printConflicts;
  o.dumpAliasSets = options.dumpAliasSets;
  // Upstream copies its 64-bit option into this 32-bit field.
  o.bufferAlignment = options.bufferAlignment;
  funcFilter = splitList(options.noAnalysisFuncFilter);
  o.noAnalysisFuncFilter = funcFilter;
  o.setFunctionBoundaryTypeConversion(
      layoutOption(options.functionBoundaryTypeConversion));
  if (options.mustInferMemorySpace)
    o.defaultMemorySpaceFn = [](TensorType) -> std::optional<Attribute> {
      return std::nullopt;
    };
  if (options.useEncodingForMemorySpace)
    o.defaultMemorySpaceFn = [](TensorType t) -> std::optional<Attribute> {
      if (auto ranked = dyn_cast<RankedTensorType>(t))
        return ranked.getEncoding();
      return std::nullopt;
    };
  bool identity = layoutOption(options.unknownTypeConversion) ==
                  LayoutMapOption::IdentityLayoutMap;
  o.unknownTypeConverterFn =
      [identity](TensorType t, Attribute memorySpace,
                 const BufferizationOptions &) -> BaseMemRefType {
    if (identity)
      return getMemRefTypeWithStaticIdentityLayout(t, memorySpace);
    return getMemRefTypeWithFullyDynamicLayout(t, memorySpace);
  };
  std::vector<std::string> dialects = splitList(options.dialectFilter);
  if (!dialects.empty())
    o.opFilter.allowOperation([dialects](Operation *op) {
      return llvm::is_contained(dialects,
                                op->getName().getDialectNamespace().str());
    });
  return o;
}

OneShotBufferizationOptions
makeAnalysisOptions(const OneShotBufferizationOptions &options) {
  OneShotBufferizationOptions analysis = options;
  if (!options.noAnalysisFuncFilter.empty()) {
    std::vector<std::string> names(options.noAnalysisFuncFilter.begin(),
                                   options.noAnalysisFuncFilter.end());
    analysis.opFilter.denyOperation([names](Operation *op) {
      auto func = isa<func::FuncOp>(op) ? cast<func::FuncOp>(op)
                                        : op->getParentOfType<func::FuncOp>();
      return func && llvm::is_contained(names, func.getSymName().str());
    });
  }
  return analysis;
}

void equivalenceAnalysis(
    ArrayRef<BufferizableOpInterface> ops, OneShotAnalysisState &state,
    function_ref<AliasingOpOperandList(OpResult)> aliasesOf) {
  for (BufferizableOpInterface bufferizable : ops) {
    Operation *op = bufferizable.getOperation();
    for (OpResult result : op->getOpResults()) {
      if (!isTensor(result.getType()))
        continue;
      AliasingOpOperandList aliases = aliasesOf(result);
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
        if (!equivalent || !inPlace ||
            !state.areEquivalentBufferizedValues(operand, first))
          allEquivalent = false;
      }
      if (allEquivalent && !bufferizable.bufferizesToAllocation(result))
        state.unionEquivalenceClasses(result, first);
    }
  }
}

LogicalResult recordFunctionBoundary(func::FuncOp func,
                                     OneShotAnalysisState &state,
                                     FuncAnalysisState *funcState,
                                     bool annotate) {
  FunctionType type = func.getFunctionType();
  if (func.getBody().empty()) {
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      if (!isTensor(input))
        continue;
      for (auto [j, result] : llvm::enumerate(type.getResults()))
        if (isTensor(result) && funcState)
          funcState->aliasingReturnVals[func][i].push_back(j);
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
      if (funcState)
        for (int64_t k : aliasing)
          funcState->aliasingReturnVals[func][arg.getArgNumber()].push_back(k);
    }
    auto equivalentArg = [&](OpOperand &operand) -> std::optional<int64_t> {
      if (!isTensor(operand.get().getType()))
        return std::nullopt;
      for (BlockArgument arg : func.getArguments())
        if (isa<RankedTensorType>(arg.getType()) &&
            state.areEquivalentBufferizedValues(operand.get(), arg)) {
          if (annotate)
            annotateEquivalentArg(operand, arg.getArgNumber());
          return arg.getArgNumber();
        }
      return std::nullopt;
    };
    for (unsigned i = 0, e = returns.front()->getNumOperands(); i < e; ++i) {
      std::optional<int64_t> arg =
          equivalentArg(returns.front()->getOpOperand(i));
      if (!arg)
        continue;
      bool same = true;
      for (func::ReturnOp ret : ArrayRef(returns).drop_front())
        if (equivalentArg(ret->getOpOperand(i)) != arg) {
          same = false;
          break;
        }
      if (same && funcState)
        funcState->equivalentFuncArgs[func][i] = *arg;
    }
  }
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    if (!isTensor(type.getInput(i)))
      continue;
    bool read, written;
    if (auto access = func.getArgAttrOfType<StringAttr>(
            i, BufferizationDialect::kBufferAccessAttrName)) {
      read = access.getValue() == "read" || access.getValue() == "read-write";
      written =
          access.getValue() == "write" || access.getValue() == "read-write";
    } else if (func.getBody().empty()) {
      read = written = true;
    } else {
      read = state.isValueRead(func.getArgument(i));
      written = state.isValueWritten(func.getArgument(i));
    }
    if (annotate)
      annotateArgAccess(func, i, read, written);
    if (read && funcState)
      funcState->readBbArgs[func].insert(i);
    if (written && funcState)
      funcState->writtenBbArgs[func].insert(i);
  }
  return success();
}

LogicalResult verifyAnalysis(ArrayRef<BufferizableOpInterface> ops,
                             OneShotAnalysisState &state) {
  bool failed = false;
  for (BufferizableOpInterface op : ops)
    failed |= mlir::failed(op.verifyAnalysis(state));
  return failure(failed);
}

LogicalResult rewriteAnalyzed(Operation *root, OneShotAnalysisState &state,
                              const OneShotBufferizationOptions &options,
                              BufferizeStats &stats) {
  stats.numTensorInPlace = state.getStatNumTensorInPlace();
  stats.numTensorOutOfPlace = state.getStatNumTensorOutOfPlace();
  BufferizationState bufferizationState;
  BufferizationStatistics statistics;
  if (failed(insertTensorCopies(root, state, bufferizationState)))
    return failure();
  LogicalResult rewritten =
      options.bufferizeFunctionBoundaries
          ? bufferizeModuleOp(root, options, bufferizationState, &statistics)
          : bufferizeOp(root, options, bufferizationState, &statistics);
  stats.numBufferAlloc = statistics.numBufferAlloc;
  return rewritten;
}

} // namespace memplan
