//===- InterfaceEngine.h - In-place engine over the interfaces --*- C++ -*-===//
//
// memplan's One-Shot Analysis on MLIR's C++ API: op semantics come from the
// BufferizableOpInterface (and the region, subset and dominance machinery
// upstream uses), the decisions go into upstream's OneShotAnalysisState, and
// the conflict check only looks at the (read, write) pairs a decision creates.
// Then either the test annotations of `test-analysis-only` or upstream's copy
// insertion and bufferization on that same state. This header only uses plain
// C++ and MLIR C API handles (the implementation, lib/Inplace/, is compiled
// without RTTI; the bindings with it).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_INPLACE_INTERFACEENGINE_H
#define MEMPLAN_INPLACE_INTERFACEENGINE_H

#include "memplan/Inplace/OneShotOptions.h"

#include "mlir-c/IR.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memplan {

/// What one engine run does.
struct EngineOptions {
  /// The values of `memplan-one-shot-bufferize`'s options, which are
  /// upstream's `one-shot-bufferize` options (declared once, in
  /// memplan/Inplace/OneShotOptions.def), with upstream's defaults.
  /// makeBufferizeOptions makes upstream's OneShotBufferizationOptions of
  /// them, which the engine then asks.
  OneShotOptions bufferize;
  /// The order to analyze in: "bottom-up", "top-down",
  /// "bottom-up-from-terminators" or "fuzzer" (the option's own value,
  /// except that min-copy-bytes ranks orders: rankOrders).
  std::string heuristic = "bottom-up";
  unsigned fuzzerSeed = 0;
  /// What this run annotates: set by runInterfaceEngine from `bufferize`
  /// (nothing with analysisOnly, nor for the orders it only ranks).
  bool testAnalysisOnly = false;
  bool printConflicts = false;
  bool dumpAliasSets = false;
  /// Analyze only: no annotations, no rewrite, the IR stays untouched
  /// (explanations, ranking analysis orders). Ops that are not bufferizable
  /// are errors unless allow-unknown-ops (upstream's rewrite rejects them).
  bool analysisOnly = false;
  /// Record which tensor uses have undefined contents (upstream's
  /// gatherUndefinedTensorUses), which copy insertion reads. On IR without
  /// calls, where the record does not depend on decisions, ranked orders
  /// share one record instead.
  bool undefinedUses = true;
  /// analysis-heuristic=min-copy-bytes: the (heuristic, fuzzer seed) orders
  /// to rank. Each is analyzed (the IR untouched) and costed by the copies
  /// its decisions need; the cheapest one's analysis then annotates or
  /// bufferizes (`heuristic` is ignored).
  std::vector<std::pair<std::string, unsigned>> rankOrders;
  /// Upstream numbers the `C_<i>` / `W_<i>` annotations of print-conflicts
  /// with process-wide counters: their values before the run.
  uint64_t conflictCounter = 0;
  uint64_t nonWritableCounter = 0;
  /// Operands (op id in pre-order from the root, operand number) decided
  /// after every other operand of their scope, in the heuristic's order
  /// among themselves: each is in place only where that conflicts with
  /// nothing decided before it, so an in-place decision of one of them never
  /// costs an operand that is not deferred its own. memplan's rewrites ask
  /// this of the operands they change.
  std::vector<std::pair<int32_t, int32_t>> deferredOperands;
  /// Testing: after each scope's decisions, compare every interface fact the
  /// engine keeps (read values, definitions, repetitive regions) with
  /// upstream's uncached answer; a difference is an error at the op.
  bool checkFacts = false;
  /// Analysis only: which sets the result lists (result.aliasSets,
  /// result.equivalenceSets, result.copies); a caller that reads only the
  /// decisions skips the walks over every alias set.
  bool collectAliasSets = true, collectEquivalenceSets = true,
       collectCopies = true;
  /// Analysis only (bottom-up, nothing deferred): keep this run, when it
  /// succeeds, for the next bufferization of the same module. It is taken
  /// instead of a new analysis only once publishKeptAnalysis has
  /// fingerprinted the IR, and only while the IR still has that fingerprint
  /// and the bufferization's analysis options decide alike (takeKeptRun in
  /// ModuleAnalysis.cpp). Each such run first drops the run kept before.
  bool keepForBufferization = false;
};

/// A value: result `index` of op `op`, or argument `index` of block `block`
/// of region `region` of op `op`. Ops are numbered in pre-order from the root
/// (0), as before the run.
struct EngineValue {
  int32_t op = -1;
  bool blockArgument = false;
  int32_t region = 0, block = 0, index = 0;
};

struct EngineDecision {
  int32_t op;
  int32_t operand;
  bool inPlace;
};

/// A read-after-write conflict that forced `operand` of `op` out of place.
/// `readOp == -1`: a write in a parallel region into a buffer defined
/// outside of it (no read/write pair).
struct EngineConflict {
  int32_t op, operand;
  int32_t readOp = -1, readOperand = -1;
  int32_t writeOp = -1, writeOperand = -1;
  EngineValue definition;
};

/// What the analysis found at a function boundary (FuncAnalysisState).
struct EngineFunction {
  int32_t op;
  std::string name;
  bool boundaryAnalyzed;
  /// Per argument: "read", "write", "read-write", "none", or "" (not a tensor).
  std::vector<std::string> access;
  /// (argument, result) pairs that may alias / are equivalent.
  std::vector<std::pair<int64_t, int64_t>> aliasing, equivalent;
};

/// An out-of-place tensor operand and the copy that resolves it, as
/// upstream's copy insertion (resolveTensorOpOperandConflicts,
/// canOmitTensorCopy) decides on the analyzed state.
struct EngineCopy {
  int32_t op, operand;
  /// The values without a writable buffer that forced it out of place (empty
  /// for a read-after-write conflict).
  std::vector<EngineValue> nonWritable;
  /// The value the copy materializes: the operand, or the op's only aliasing
  /// result for an op that does not write (e.g. tensor.extract_slice).
  EngineValue value;
  /// Only an allocation is needed (the contents are undefined, overwritten or
  /// never read).
  bool allocOnly = false;
  /// Bytes of `value`'s type (LLVM's default data layout), -1 if dynamic or
  /// not modeled.
  int64_t bytes = -1;
};

/// What one analysis order costs: the copies its decisions need that copy
/// contents (allocation-only ones are free), their bytes, a copy of dynamic
/// size counting kDynamicCopyBytes.
struct EngineOrderCost {
  bool ok = false; ///< False: the analysis failed in this order.
  int64_t bytes = 0, copies = 0;
};
constexpr int64_t kDynamicCopyBytes = int64_t(1) << 40;

/// What the bufferization did.
struct BufferizeStats {
  int64_t numBufferAlloc = 0;
  int64_t numTensorInPlace = 0;
  int64_t numTensorOutOfPlace = 0;
};

struct EngineResult {
  bool ok = false;
  /// With rankOrders: the cost of each order, and the index of the one kept
  /// (the first of the cheapest: fewest bytes, then fewest copies), -1 when
  /// every order failed (bottom-up then runs).
  std::vector<EngineOrderCost> orderCosts;
  int32_t chosenOrder = -1;
  /// Analyzed scopes (functions, or the root) in analysis order.
  std::vector<int32_t> scopes;
  std::vector<EngineDecision> decisions; ///< In analysis order.
  std::vector<EngineConflict> conflicts;
  /// Analysis only: non-trivial alias sets, upstream's member order.
  std::vector<std::vector<EngineValue>> aliasSets;
  /// Analysis only: non-trivial equivalence sets, upstream's member order.
  std::vector<std::vector<EngineValue>> equivalenceSets;
  /// Analysis only: per out-of-place decision (ops upstream's copy insertion
  /// visits), in analysis order.
  std::vector<EngineCopy> copies;
  std::vector<EngineFunction> functions;
  BufferizeStats stats;
  uint64_t conflictCounter = 0, nonWritableCounter = 0; ///< After the run.
};

/// Runs the analysis on `root` (a module) and then annotates
/// (`testAnalysisOnly`), bufferizes, or stops (`analysisOnly`). Diagnostics go
/// to the context's handlers; `ok` false means the analysis or the rewrite
/// failed (the IR may then be partially rewritten, as with upstream's pass).
EngineResult runInterfaceEngine(MlirOperation root,
                                const EngineOptions &options);

/// The IR under `root` is the one the run kept last for it
/// (EngineOptions::keepForBufferization) analyzed, but for ops erased since
/// that no analysis decision involves (ops without tensor operands whose
/// results have no use): record its fingerprint, which lets the next
/// bufferization of `root` take that run while the fingerprint holds.
/// Nothing happens when no run is kept for `root`.
void publishKeptAnalysis(MlirOperation root);

/// Forget the run kept for `root`, if any.
void dropKeptAnalysis(MlirOperation root);

} // namespace memplan

#endif // MEMPLAN_INPLACE_INTERFACEENGINE_H
