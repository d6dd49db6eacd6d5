//===- TensorQueries.h - What tensor rewrites ask ---------------*- C++ -*-===//
//
// The questions the tensor-level rewrites (lib/Peak/) share, answered
// by BufferizableOpInterface and the side-effect interfaces, never by op
// names. Compiled without RTTI against MLIR's C++ API.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_PEAK_TENSORQUERIES_H
#define MEMPLAN_LIB_PEAK_TENSORQUERIES_H

#include "memplan/Inplace/InterfaceEngine.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memplan {

/// A side-effect free op without regions or tensor operands whose one tensor
/// result bufferizes to a new allocation (`tensor.empty`): undefined
/// contents in a new buffer, which cloning duplicates (CSE undone).
bool isFreshDestination(mlir::Operation *op);

/// What a quiet analysis lists besides its decisions, and whether it is
/// kept for the bufferization that follows (EngineOptions).
struct QuietAnalysis {
  bool aliasSets = true;
  bool keepForBufferization = false;
};

/// Bytes of a statically shaped ranked tensor type as a buffer would hold
/// them (staticTypeBytes: LLVM's default data layout), 0 for any other type
/// or an element type that is not modeled.
int64_t tensorBytes(mlir::Type type);

/// The value an analysis result names (EngineValue: an op's result or a
/// block argument of one of its regions), `ops` being the ops under the
/// analyzed root in pre-order, as the engine numbers them; null when it
/// names nothing there.
mlir::Value engineValue(llvm::ArrayRef<mlir::Operation *> ops,
                        const EngineValue &v);

/// memplan's in-place analysis of the module under `root`, the IR
/// untouched and the diagnostics dropped (they belong to the bufferization
/// that follows, which reports them where the user asked for it): One-Shot
/// (Module, with `functionBoundaries`) Analysis with unknown ops allowed.
/// `deferred` operands (pre-order op id, operand number) are decided after
/// all the others (EngineOptions::deferredOperands). The result lists the
/// alias sets only if `what` asks, never the equivalence sets or copies.
EngineResult
analyzeQuietly(mlir::Operation *root, bool functionBoundaries,
               std::vector<std::pair<int32_t, int32_t>> deferred = {},
               QuietAnalysis what = {});

/// An analysis state for interface queries outside an analysis (aliasing
/// operands and values, reads and writes) on the IR under `root`: One-Shot's,
/// with an empty function-boundary extension, so that calls answer
/// conservatively instead of finding no state. Building it walks `root`
/// once.
class QueryState {
public:
  explicit QueryState(mlir::Operation *root);
  mlir::bufferization::OneShotAnalysisState &get() { return *state; }

private:
  mlir::bufferization::OneShotBufferizationOptions options;
  std::unique_ptr<mlir::bufferization::OneShotAnalysisState> state;
};

/// What may let an elementwise op write its result into an input instead
/// of its fresh destination, whatever the order of the ops: the input has
/// the destination's type, indexing map and buffer type, and its buffer is
/// the program's own (an allocation, not a function argument, a constant or
/// the result of a region branch).
struct DyingInputCandidate {
  mlir::OpOperand *init;
  /// The inputs that may take the result, in operand order; one of them
  /// must still die at the op, which depends on the order.
  llvm::SmallVector<mlir::OpOperand *, 2> inputs;
};

/// The questions of dying-input reuse on the IR under a root, with
/// bufferization's options (function boundaries, identity layouts) and an
/// analysis state for interface queries. memplan-reuse-dying-inputs
/// rewrites the candidates; memplan-reorder-for-memory models them.
class DyingInputQueries {
public:
  DyingInputQueries(mlir::Operation *root, bool functionBoundaries);
  /// `op`'s candidate: an op whose loops are all parallel, with projected
  /// permutation maps, one init it does not read, a fresh destination, and
  /// a payload of scalar elementwise ops or ops that touch no buffer (a
  /// fused `cf.assert`), with at least one input that may take the result.
  std::optional<DyingInputCandidate> candidate(mlir::Operation *op);
  /// The analysis state it asks interfaces with (QueryState's).
  mlir::bufferization::AnalysisState &state() { return query.get(); }

private:
  std::vector<std::string> funcFilter;
  mlir::bufferization::OneShotBufferizationOptions options;
  QueryState query;
};

} // namespace memplan

#endif // MEMPLAN_LIB_PEAK_TENSORQUERIES_H
