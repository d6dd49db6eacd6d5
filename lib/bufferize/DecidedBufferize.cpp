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

#include "../analysis/AnalysisSteps.h"

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

using namespace mlir;
using namespace mlir::bufferization;
using mlir::bufferization::func_ext::FuncAnalysisState;
using mlir::bufferization::func_ext::FuncOpAnalysisState;

namespace memplan {
namespace {

bool isTensor(Type t) { return isa<TensorType>(t); }

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

} // namespace

bool bufferizeWithDecisions(const Graph &g, const uint8_t *inplace, const uint8_t *decided,
                            const std::vector<DecidedScope> &scopes, const BufferizeConfig &config,
                            BufferizeStats &stats) {
  Operation *root = unwrap(MlirOperation{g.opPtr[0]});
  OneShotBufferizationOptions options = makeBufferizeOptions(config);
  // Ops in functions the analysis skips are left out of the state, as
  // upstream's module bufferization does before copying before every write.
  OneShotBufferizationOptions analysisOptions = makeAnalysisOptions(options);

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
    if (failed(verifyAnalysis(op, state)))
      return false;
    if (func && scope.boundary) {
      if (failed(recordFunctionBoundary(func, state, funcState, /*annotate=*/false)))
        return false;
      funcState.analyzedFuncOps[func] = FuncOpAnalysisState::Analyzed;
    }
  }
  return succeeded(rewriteAnalyzed(root, state, options, stats));
}

} // namespace memplan
