//===- InplaceAnalysis.h - One-Shot Analysis on interfaces ------*- C++ -*-===//
//
// The decisions of upstream's One-Shot Analysis (MLIR 22), made with op
// semantics from the BufferizableOpInterface and written into upstream's
// OneShotAnalysisState. The read-after-write check keeps, per alias set, an
// index of its reads and in-place writes (ordered by block position), so a
// decision only checks the (read, write) pairs it creates; upstream re-walks
// every use of every alias instead. A union-find mirrors the state's alias
// sets (whose leaders are private) to key that index.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_INPLACE_INPLACEANALYSIS_H
#define MEMPLAN_LIB_INPLACE_INPLACEANALYSIS_H

#include "AliasIndex.h"
#include "memplan/IR/IRNumbering.h"

#include "memplan/Inplace/InterfaceEngine.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SubsetOpInterface.h"

#include "llvm/ADT/DenseSet.h"

#include <array>
#include <memory>
#include <unordered_map>

namespace memplan {

/// The interfaces' answers per operand and value id, computed on first use.
struct InterfaceFacts {
  std::vector<int8_t> reads, writes, valueRead, valueWrites, aliasesKnown,
      definitionsKnown;
  /// Per operand, its aliasing values that are numbered tensor values;
  /// `aliasesUnnumbered` marks operands with other aliasing values too.
  std::vector<llvm::SmallVector<int32_t, 2>> aliases;
  std::vector<int8_t> aliasesUnnumbered;
  /// Per value id, the definitions it is read through (upstream's
  /// findDefinitions), as value ids.
  std::vector<llvm::SmallVector<int32_t, 1>> definitions;
  std::vector<int32_t> touchedOperands, touchedValues;
  /// Per block id, the closest repetitive region around its ops and
  /// arguments (upstream's getEnclosingRepetitiveRegion). IR facts: never
  /// reset.
  std::vector<mlir::Region *> blockRepetitive;
  std::vector<int8_t> blockRepetitiveKnown;
  /// Per op id: whether it has tensor semantics (-1: not asked yet). An IR
  /// fact: never reset.
  std::vector<int8_t> tensorSemantics;

  /// Room for `operands` operand, `values` value, `ops` op and `blocks` block
  /// ids, nothing known.
  void allocate(size_t operands, size_t values, size_t ops, size_t blocks);
  /// Forget the answers that upstream recomputes per scope.
  void reset();
};

/// Facts about IR without calls that no in-place decision changes (without
/// calls, no callee analysis feeds the interfaces' answers). Analyses of the
/// same IR with the same options in several orders (min-copy-bytes' ranking)
/// share them.
struct SharedFacts {
  InterfaceFacts interface;
  /// Filled by the first analysis: per op id, its BufferizableOpInterface
  /// under the options' filter; whether any region is parallel; the values
  /// that are not writable.
  bool tablesKnown = false;
  std::vector<mlir::bufferization::BufferizableOpInterface> opInterface;
  bool hasParallelRegions = false;
  std::vector<int32_t> nonWritableValues;
  /// Scopes (op ids) whose pre-bufferization checks passed.
  llvm::DenseSet<int32_t> checkedScopes;
  /// Per tensor result (value id), its aliasing operands.
  std::unordered_map<int32_t, mlir::bufferization::AliasingOpOperandList>
      resultAliases;
};

class InplaceAnalysis {
public:
  /// `ir` numbers `root` (it may be shared by analyses of the same IR).
  /// `shared`, if given, must outlive the analysis and describe the same
  /// call-free IR and options: its facts are taken and added to.
  InplaceAnalysis(mlir::Operation *root, const IRNumbering &ir,
                  mlir::bufferization::OneShotAnalysisState &state,
                  const EngineOptions &options, SharedFacts *shared = nullptr);

  /// upstream's analyzeOp on `scope` (a function, or the root): assumptions,
  /// decisions in the heuristic's order, equivalence, undefined uses,
  /// verification. Failures are diagnosed at an op.
  mlir::LogicalResult analyzeScope(mlir::Operation *scope);

  const std::vector<EngineDecision> &decisions() const { return decided; }
  const std::vector<EngineConflict> &conflicts() const { return conflictList; }
  uint64_t conflictCounter() const { return cCounter; }
  uint64_t nonWritableCounter() const { return wCounter; }
  EngineValue describe(mlir::Value v) const;
  /// Per operand (id) forced out of place by a write to a buffer that is not
  /// writable: those values (upstream's W_ annotations).
  const std::unordered_map<int32_t, std::vector<EngineValue>> &
  nonWritableHits() const {
    return nonWritable;
  }

private:
  using OpOperand = mlir::OpOperand;

  // Per-scope facts from the interfaces, cached.
  bool reads(int32_t o);
  bool writes(int32_t o);
  const llvm::SmallVector<int32_t, 2> &aliasingValues(int32_t o);
  /// upstream's bufferizesToAliasOnly: neither read nor written, aliased.
  bool aliasOnly(int32_t o);
  /// upstream's isValueRead, with every answer on the way kept.
  bool isValueRead(int32_t v);
  /// upstream's bufferizesToMemoryWrite of a value.
  bool valueWrites(int32_t v);
  /// upstream's findDefinitions; a value whose only aliasing operand is
  /// followed shares that operand's answer.
  llvm::ArrayRef<int32_t> definitions(int32_t o);
  void resetScopeCaches();
  /// EngineOptions::checkFacts over the ops and values of `scope`, in
  /// numbering order or (`reverse`) the other way.
  mlir::LogicalResult checkFacts(int32_t scope, bool reverse);

  // Alias sets (mirror of the state's).
  int32_t find(int32_t v);
  void unionAlias(int32_t a, int32_t b);
  bool hasInplaceWrites(llvm::ArrayRef<int32_t> values);
  void valueAndAliases(int32_t o, llvm::SmallVectorImpl<int32_t> &out);

  // Conflicts.
  bool wouldCreateWriteToNonWritable(int32_t o, bool consistencyOnly);
  bool wouldCreateRaw(int32_t o, bool consistencyOnly);
  bool fullRaw(int32_t o, llvm::ArrayRef<int32_t> values, bool writesOperand,
               bool record);
  bool incrementalRaw(int32_t o, llvm::ArrayRef<int32_t> values,
                      bool writesOperand);
  void aliasingReads(llvm::SmallVectorImpl<int32_t> &out, int32_t v);
  void aliasingInplaceWrites(llvm::SmallVectorImpl<int32_t> &out, int32_t v);
  void valueReads(int32_t v, llvm::SmallVectorImpl<int32_t> &out);
  /// The definition through which write `w` conflicts with read `r`, or -1.
  int32_t pairConflict(int32_t r, int32_t w, llvm::ArrayRef<int32_t> defs);
  bool canUseOpDominance(int32_t r, int32_t w, llvm::ArrayRef<int32_t> defs);
  /// Whether the buffer written through operand `w` may be the buffer of
  /// block argument `def`, as far as the decisions made so far tell.
  bool mayWriteBufferOf(int32_t w, mlir::BlockArgument def);
  /// The values whose buffers `start`'s buffer may be, walking the aliasing
  /// operands back from it, into `seen`; stops early and returns true at a
  /// value `hit` holds or whose buffer's origin is unknown, or at an
  /// aliasing operand not decided yet that `followUndecided` (if given)
  /// refuses.
  bool walkBufferOrigins(
      mlir::Value start, llvm::DenseSet<mlir::Value> &seen,
      llvm::function_ref<bool(mlir::Value)> hit,
      llvm::function_ref<bool(mlir::OpOperand &)> followUndecided = nullptr);
  /// Whether the regions of operand `w`'s op may write the buffer `w`
  /// forwards into them: false only for an op with recursive memory effects
  /// (it touches memory through its regions' ops alone) that forwards `w` to
  /// region arguments no op of its regions may write, whatever it decides
  /// (a loop whose body never writes its iteration argument nor a value
  /// that may alias it). BufferizableOpInterface reports every iteration
  /// argument as written.
  bool regionsMayWrite(int32_t w);
  /// Whether the data read `r` reads may be used: false only where the
  /// reading op has no effect but its results and those are unused, or
  /// only feed ops like it and region terminators that forward them to
  /// unused results of the op around them (an scf.if's result nobody
  /// reads). Asked by memplan's cross-block rule only.
  bool readReachesUse(int32_t r);
  /// Whether making write `w` in place would clobber, across blocks, a
  /// block argument whose buffer the written value may still come to share
  /// through aliasing operands not decided yet (memplan's cross-block rule,
  /// asked before those operands join the sets; see analyzeOperand).
  bool clobbersAcrossBlocksLater(int32_t w);
  /// Whether region `region` of op `op` is repetitive under the options.
  bool isRepetitive(int32_t op, mlir::Region *region) const;
  mlir::Region *repetitiveRegionOfBlock(int32_t block);
  mlir::Region *repetitiveRegionOfOp(int32_t op);
  mlir::Region *repetitiveRegionOfValue(int32_t v);
  bool hasTensorSemantics(int32_t op);
  /// Upstream's rule for a read and a write on matching subsets (an
  /// insertion and the extraction of the same subset), asked once per pair;
  /// each (insertion op, value) subset equivalence is asked once per scope.
  bool nonConflictingSubsets(int32_t r, int32_t w);
  bool matchesInsertDestination(mlir::OpOperand *start,
                                mlir::SubsetInsertionOpInterface insertion);
  bool happensBefore(mlir::Operation *a, mlir::Operation *b) const;
  void reportConflict(int32_t o, int32_t r, int32_t w, int32_t def);

  // Decisions.
  void bufferizeInPlace(int32_t o);
  void analyzeOperand(int32_t o);
  /// Upstream's checks before deciding, over the scope's bufferizable ops
  /// (op ids, in post-order).
  mlir::LogicalResult
  checkPreBufferizationAssumptions(llvm::ArrayRef<int32_t> ops);
  std::vector<mlir::Operation *> analysisOrder(mlir::Operation *scope);

  /// Op `op`'s BufferizableOpInterface under the options' filter (asked once
  /// per op), or null.
  mlir::bufferization::BufferizableOpInterface bufferizable(int32_t op) const {
    return opInterface[op];
  }

  // The incremental index (AliasIndex.h) over the scope's values.
  void buildIndex(int32_t scope);
  const AliasIndex::Window &window(int32_t r);

  mlir::Operation *root;
  mlir::bufferization::OneShotAnalysisState &state;
  const EngineOptions &options;
  const IRNumbering &ir;
  std::unique_ptr<mlir::DominanceInfo> domInfo;
  std::vector<mlir::bufferization::BufferizableOpInterface> opInterface;
  bool hasParallelRegions = false;
  bool error = false;
  SharedFacts *shared;

  // Union-find over value ids, with the per-set counts the checks need.
  std::vector<int32_t> parent, nInplaceWrites, nNonWritable;
  std::vector<uint8_t> inPlace;
  /// Per tensor operand: decided out of place (a decision never revisited).
  std::vector<uint8_t> outOfPlace;
  /// Per tensor operand: decided last (EngineOptions::deferredOperands).
  std::vector<uint8_t> deferred;

  // The interfaces' answers: per scope, or shared across analyses.
  InterfaceFacts ownFacts;
  InterfaceFacts &facts;
  llvm::DenseMap<std::pair<int32_t, int32_t>, bool> subsetPairCache;
  llvm::DenseMap<std::pair<mlir::Operation *, mlir::Value>, bool>
      equivalentSubsetCache;
  /// regionsMayWrite's answers, per tensor operand (they do not depend on
  /// decisions).
  llvm::DenseMap<int32_t, bool> regionWriteCache;
  /// readReachesUse's answers, per tensor operand (IR facts only).
  llvm::DenseMap<int32_t, bool> readUseCache;

  bool indexOn = false;
  AliasIndex index;
  std::unordered_map<int32_t, AliasIndex::Window> windowCache;

  std::vector<EngineDecision> decided;
  std::vector<EngineConflict> conflictList;
  std::unordered_map<int32_t, std::vector<EngineValue>> nonWritable;
  uint64_t cCounter, wCounter;
};

} // namespace memplan

#endif // MEMPLAN_LIB_INPLACE_INPLACEANALYSIS_H
