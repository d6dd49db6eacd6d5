//===- AnalysisSteps.h - Steps One-Shot Analysis runs besides decisions ---===//
//
// What upstream's One-Shot (Module) Analysis records once the in-place
// decisions of a scope are made: equivalence of in-place results, the
// function boundary tables of FuncAnalysisState (and their test annotations),
// the ops' own verification; and the options upstream's `one-shot-bufferize`
// pass builds. Upstream keeps these helpers `static`, so memplan's engine
// (InplaceAnalysis, ModuleAnalysis) has them here. Compiled without RTTI
// against MLIR's C++ API.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_ANALYSISSTEPS_H
#define MEMPLAN_INPLACE_ANALYSISSTEPS_H

#include "memplan/Inplace/InterfaceEngine.h"

#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"

namespace memplan {

/// The options upstream's `one-shot-bufferize` pass builds from its own:
/// from `memplan-one-shot-bufferize`'s (each is upstream's option of that
/// name). `funcFilter` holds the function names the options'
/// no-analysis-func-filter refers to (upstream keeps an ArrayRef): it must
/// outlive them.
mlir::bufferization::OneShotBufferizationOptions
makeBufferizeOptions(const OneShotOptions &options,
                     std::vector<std::string> &funcFilter);

/// The options the analysis runs with: those of `options`, with the ops of
/// functions named in `no-analysis-func-filter` denied (as upstream's module
/// bufferization does before copying before every write in them).
mlir::bufferization::OneShotBufferizationOptions makeAnalysisOptions(
    const mlir::bufferization::OneShotBufferizationOptions &options);

/// OneShotAnalysis' equivalence step over a scope's bufferizable `ops` (in
/// post-order). `aliasesOf` gives a tensor result's aliasing operands (the
/// state's answer, possibly remembered).
void equivalenceAnalysis(
    llvm::ArrayRef<mlir::bufferization::BufferizableOpInterface> ops,
    mlir::bufferization::OneShotAnalysisState &state,
    llvm::function_ref<
        mlir::bufferization::AliasingOpOperandList(mlir::OpResult)>
        aliasesOf);

/// The function boundary tables (aliasing and equivalent results, read and
/// written arguments) of an analyzed `func`, recorded into `funcState` unless
/// it is null. With `annotate`, also the test annotations upstream writes
/// (`__equivalent_func_args__` on returns, `bufferization.access` on
/// arguments).
mlir::LogicalResult recordFunctionBoundary(
    mlir::func::FuncOp func, mlir::bufferization::OneShotAnalysisState &state,
    mlir::bufferization::func_ext::FuncAnalysisState *funcState, bool annotate);

/// verifyAnalysis of each of a scope's bufferizable `ops` (in post-order).
mlir::LogicalResult
verifyAnalysis(llvm::ArrayRef<mlir::bufferization::BufferizableOpInterface> ops,
               mlir::bufferization::OneShotAnalysisState &state);

/// Upstream's copy insertion and bufferization (module or op) on an analyzed
/// state: the rewrite tail of one-shot-bufferize.
mlir::LogicalResult
rewriteAnalyzed(mlir::Operation *root,
                mlir::bufferization::OneShotAnalysisState &state,
                const mlir::bufferization::OneShotBufferizationOptions &options,
                BufferizeStats &stats);

} // namespace memplan

#endif // MEMPLAN_INPLACE_ANALYSISSTEPS_H
