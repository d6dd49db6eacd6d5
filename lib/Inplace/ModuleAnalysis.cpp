//===- ModuleAnalysis.cpp - The interface engine over a module ------------===//
//
// One-Shot Module Analysis with memplan's interface engine: functions
// callee-first (functions that call each other circularly last, their
// boundaries not analyzed), each analyzed by InplaceAnalysis on one
// OneShotAnalysisState, the FuncAnalysisState tables recorded after each;
// then the test annotations, or upstream's copy insertion and bufferization
// on that same state.
//
//===----------------------------------------------------------------------===//

#include "InplaceAnalysis.h"
#include "TestAnnotations.h"
#include "memplan/IR/CrashGuards.h"
#include "memplan/Inplace/AnalysisSteps.h"
#include "memplan/Inplace/CopyPlan.h"

#include "memplan/Inplace/InterfaceEngine.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

#include <memory>
#include <mutex>
#include <optional>

#define DEBUG_TYPE "memplan-kept-analysis"

using namespace mlir;
using namespace mlir::bufferization;
using mlir::bufferization::func_ext::FuncAnalysisState;
using mlir::bufferization::func_ext::FuncOpAnalysisState;

namespace memplan {
namespace {

bool hasTensorSignature(func::FuncOp func) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  FunctionType type = func.getFunctionType();
  return llvm::any_of(type.getInputs(), isTensor) ||
         llvm::any_of(type.getResults(), isTensor);
}

/// Top-level functions callee-first (upstream's getFuncOpsOrderedByCalls):
/// `ordered`, then those that call each other circularly in `remaining`.
LogicalResult orderFunctions(Operation *root,
                             SmallVectorImpl<func::FuncOp> &ordered,
                             SmallVectorImpl<func::FuncOp> &remaining) {
  SmallVector<func::FuncOp> funcs;
  for (Region &region : root->getRegions())
    for (Block &block : region)
      for (auto func : block.getOps<func::FuncOp>())
        funcs.push_back(func);
  llvm::MapVector<Operation *, SmallVector<func::FuncOp>> calledBy;
  llvm::MapVector<Operation *, int64_t> count;
  for (func::FuncOp f : funcs) {
    calledBy[f];
    count[f] = 0;
  }
  for (func::FuncOp f : funcs) {
    llvm::DenseSet<Operation *> seen;
    WalkResult walk = f.walk([&](func::CallOp call) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee) {
        call.emitOpError("memplan: callee not found");
        return WalkResult::interrupt();
      }
      if (!hasTensorSignature(callee))
        return WalkResult::advance();
      SmallVector<func::FuncOp> &callers = calledBy[callee];
      if (!seen.contains(f) && !llvm::is_contained(callers, f)) {
        callers.push_back(f);
        count[f]++;
      }
      seen.insert(callee);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  SmallVector<func::FuncOp> work;
  for (func::FuncOp f : llvm::reverse(funcs))
    if (count[f] == 0)
      work.push_back(f);
  llvm::DenseSet<Operation *> done;
  while (!work.empty()) {
    func::FuncOp f = work.pop_back_val();
    ordered.push_back(f);
    done.insert(f);
    for (func::FuncOp caller : calledBy[f])
      if (!done.contains(caller) && --count[caller] == 0)
        work.push_back(caller);
  }
  for (func::FuncOp f : funcs)
    if (!done.contains(f))
      remaining.push_back(f);
  return success();
}

OneShotBufferizationOptions::AnalysisHeuristic
heuristicOf(const std::string &name) {
  using H = OneShotBufferizationOptions::AnalysisHeuristic;
  if (name == "top-down")
    return H::TopDown;
  if (name == "bottom-up-from-terminators")
    return H::BottomUpFromTerminators;
  if (name == "fuzzer")
    return H::Fuzzer;
  return H::BottomUp;
}

/// Upstream's rewrite (MLIR 22) bufferizes functions named in
/// no-analysis-func-filter with a plain AnalysisState that its func.call model
/// casts to OneShotAnalysisState: a crash as soon as such a function calls
/// with tensor operands. Fail cleanly instead.
LogicalResult checkFilteredCalls(Operation *root,
                                 const OneShotBufferizationOptions &options) {
  if (options.noAnalysisFuncFilter.empty())
    return success();
  WalkResult walk = root->walk([&](func::CallOp call) {
    auto func = call->getParentOfType<func::FuncOp>();
    if (!func || !llvm::is_contained(options.noAnalysisFuncFilter,
                                     func.getSymName().str()))
      return WalkResult::advance();
    if (llvm::none_of(call->getOperandTypes(),
                      [](Type t) { return isa<TensorType>(t); }))
      return WalkResult::advance();
    call.emitOpError(
        "memplan-one-shot-bufferize: a func.call with tensor operands in a "
        "function named "
        "in no-analysis-func-filter crashes upstream's rewrite (MLIR 22); only "
        "test-analysis-only supports it");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// Analysis only: an allowed op with tensor semantics that is not
/// bufferizable fails upstream's rewrite unless allow-unknown-ops.
LogicalResult checkUnknownOps(Operation *root,
                              const OneShotBufferizationOptions &options) {
  if (options.allowUnknownOps)
    return success();
  WalkResult walk = root->walk([&](Operation *op) {
    if (op == root || !hasTensorSemantics(op) || !options.isOpAllowed(op) ||
        options.dynCastBufferizableOp(op))
      return WalkResult::advance();
    op->emitError("op '" + op->getName().getStringRef().str() +
                  "' is not bufferizable (upstream's rewrite fails on it; "
                  "allow-unknown-ops treats it as an "
                  "unknown op)");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The sets of more than one member that `applyOnSet` (upstream's
/// applyOnAliases or applyOnEquivalenceClass) finds in `state`, each in
/// upstream's member order, each listed once.
void collectSets(const IRNumbering &ir, const InplaceAnalysis &engine,
                 const OneShotAnalysisState &state,
                 void (OneShotAnalysisState::*applyOnSet)(
                     Value, function_ref<void(Value)>) const,
                 std::vector<std::vector<EngineValue>> &out) {
  llvm::DenseSet<Value> listed;
  for (Value v : ir.tensors.values) {
    if (listed.contains(v))
      continue;
    std::vector<EngineValue> members;
    (state.*applyOnSet)(v, [&](Value m) {
      listed.insert(m);
      members.push_back(engine.describe(m));
    });
    if (members.size() > 1)
      out.push_back(std::move(members));
  }
}

/// One analysis of the module in one order: upstream's state with its
/// FuncAnalysisState, the engine's decisions, the scopes analyzed and the
/// functions whose boundary was recorded. The IR is not touched unless
/// `options` asks for print-conflicts annotations.
struct ModuleRun {
  ModuleRun(Operation *root, const IRNumbering &ir,
            const OneShotBufferizationOptions &analysisOptions,
            const EngineOptions &engineOptions, SharedFacts *shared = nullptr)
      : options(engineOptions), analysisOptions(analysisOptions),
        state(root, this->analysisOptions),
        funcState(state.addExtension<FuncAnalysisState>()),
        engine(root, ir, state, options, shared) {}
  EngineOptions options;
  /// The state keeps a reference to its options.
  OneShotBufferizationOptions analysisOptions;
  OneShotAnalysisState state;
  FuncAnalysisState &funcState;
  InplaceAnalysis engine;
  SmallVector<Operation *> scopes;
  SmallVector<func::FuncOp> boundaries;
  bool ok = true;
};

/// Upstream's module analysis order: functions callee-first, then those
/// that call each other circularly (boundaries not recorded); or the root.
void analyzeModule(ModuleRun &run, Operation *root,
                   const OneShotBufferizationOptions &analysisOptions) {
  auto analyze = [&](Operation *scope) {
    run.scopes.push_back(scope);
    return succeeded(checkCallBoundaries(scope, run.funcState)) &&
           succeeded(checkRecursiveDefinitions(scope, run.state)) &&
           succeeded(run.engine.analyzeScope(scope));
  };
  if (!analysisOptions.bufferizeFunctionBoundaries) {
    run.ok = analyze(root);
    return;
  }
  // The rewrite bufferizes the ops outside functions too.
  bool rewrites = !run.options.testAnalysisOnly && !run.options.analysisOnly;
  if (rewrites && failed(checkRecursiveDefinitions(
                      root, run.state, /*outsideFunctions=*/true))) {
    run.ok = false;
    return;
  }
  SmallVector<func::FuncOp> ordered, remaining;
  run.ok = succeeded(orderFunctions(root, ordered, remaining));
  for (func::FuncOp func : ordered) {
    if (!run.ok)
      return;
    if (!analysisOptions.isOpAllowed(func))
      continue;
    run.funcState.startFunctionAnalysis(func);
    run.ok = analyze(func) && succeeded(recordFunctionBoundary(
                                  func, run.state, &run.funcState, false));
    if (run.ok)
      run.boundaries.push_back(func);
    run.funcState.analyzedFuncOps[func] = FuncOpAnalysisState::Analyzed;
  }
  for (func::FuncOp func : remaining) {
    if (!run.ok)
      return;
    if (analysisOptions.isOpAllowed(func))
      run.ok = analyze(func);
  }
}

/// The test annotations of an analyzed module (upstream writes them as it
/// analyzes; no analysis reads them).
void annotate(ModuleRun &run, const EngineOptions &options) {
  for (Operation *scope : run.scopes) {
    if (options.testAnalysisOnly)
      annotateInPlaceOperands(scope, run.state);
    if (options.dumpAliasSets)
      annotateAliasSets(scope, run.state);
  }
  if (options.testAnalysisOnly)
    for (func::FuncOp func : run.boundaries)
      (void)recordFunctionBoundary(func, run.state, /*funcState=*/nullptr,
                                   /*annotate=*/true);
}

/// What the IR under a root looks like to the analysis: MLIR's operation
/// fingerprint (each op, its parent, attributes, properties, blocks,
/// location, operands, successors and result types) and the types of the
/// block arguments, which that fingerprint leaves out.
struct IRPrint {
  OperationFingerPrint ops;
  llvm::hash_code argTypes;
  explicit IRPrint(Operation *root) : ops(root), argTypes(argTypesOf(root)) {}
  bool operator==(const IRPrint &o) const {
    return ops == o.ops && argTypes == o.argTypes;
  }
  static llvm::hash_code argTypesOf(Operation *root) {
    llvm::hash_code h = llvm::hash_value(0);
    root->walk([&](Block *block) {
      for (BlockArgument arg : block->getArguments())
        h = llvm::hash_combine(h, arg.getType().getAsOpaquePointer());
    });
    return h;
  }
};

/// The analysis run kept for the next bufferization of one module
/// (EngineOptions::keepForBufferization), with the numbering it refers to
/// (declared first: destroyed after the run).
struct KeptRun {
  Operation *root = nullptr;
  MLIRContext *context = nullptr;
  std::unique_ptr<IRNumbering> ir;
  std::unique_ptr<ModuleRun> run;
  /// Set by publishKeptAnalysis: the IR the run may be taken for.
  std::optional<IRPrint> print;
};

/// One kept run per process (the memory pipeline bufferizes one module at a
/// time), never destroyed at exit: its state may outlive its context.
std::mutex keptMutex;
KeptRun *const kept = new KeptRun();

void clearKept() {
  kept->run.reset();
  kept->ir.reset();
  kept->print.reset();
  kept->root = nullptr;
  kept->context = nullptr;
}

/// Whether `a` (the kept run's analysis options) and `b` (a bufferization's)
/// make the same decisions: every option the analysis reads is the same, and
/// neither filters ops or annotates. allow-unknown-ops and the type
/// conversions only matter to the rewrite, which reads `b`.
bool decideAlike(const OneShotBufferizationOptions &a, const OneShotOptions &av,
                 const OneShotBufferizationOptions &b,
                 const OneShotOptions &bv) {
  auto plain = [](const OneShotBufferizationOptions &o,
                  const OneShotOptions &values) {
    // dialect-filter: the one filter makeBufferizeOptions sets besides the
    // function filter.
    return !o.testAnalysisOnly && !o.printConflicts && !o.dumpAliasSets &&
           o.noAnalysisFuncFilter.empty() && values.dialectFilter.empty() &&
           !values.mustInferMemorySpace && !values.useEncodingForMemorySpace &&
           !values.copyBeforeWrite;
  };
  return plain(a, av) && plain(b, bv) &&
         a.bufferizeFunctionBoundaries == b.bufferizeFunctionBoundaries &&
         a.allowReturnAllocsFromLoops == b.allowReturnAllocsFromLoops &&
         a.checkParallelRegions == b.checkParallelRegions;
}

/// The run kept for `root`, taken (and no longer kept), when it was
/// published for IR that `root` still has and decides as `engineOptions`
/// with `analysisOptions` would; then it bufferizes with those options.
std::optional<
    std::pair<std::unique_ptr<IRNumbering>, std::unique_ptr<ModuleRun>>>
takeKeptRun(Operation *root, const OneShotBufferizationOptions &analysisOptions,
            const EngineOptions &engineOptions) {
  std::lock_guard<std::mutex> lock(keptMutex);
  if (kept->root != root || kept->context != root->getContext() || !kept->print)
    return std::nullopt;
  // The rewrite's check of the ops outside functions
  // (checkRecursiveDefinitions), which the kept analysis did not make,
  // passes when there are none.
  bool onlyFunctions = llvm::all_of(root->getRegions(), [](Region &region) {
    return region.getBlocks().size() <= 1 &&
           llvm::all_of(region.getOps(), [](Operation &op) {
             return isa<FunctionOpInterface>(op);
           });
  });
  ModuleRun &run = *kept->run;
  bool alike = engineOptions.heuristic == "bottom-up" &&
               run.options.heuristic == "bottom-up" &&
               engineOptions.rankOrders.empty() &&
               engineOptions.deferredOperands.empty() &&
               !engineOptions.checkFacts && !run.options.checkFacts &&
               decideAlike(run.analysisOptions, run.options.bufferize,
                           analysisOptions, engineOptions.bufferize);
  if (!onlyFunctions || !alike || !(*kept->print == IRPrint(root))) {
    LLVM_DEBUG(llvm::dbgs() << "kept analysis dropped: "
                            << (!onlyFunctions ? "ops outside functions"
                                : !alike       ? "options decide otherwise"
                                               : "the IR changed")
                            << "\n");
    clearKept();
    return std::nullopt;
  }
  LLVM_DEBUG(llvm::dbgs() << "kept analysis taken\n");
  auto taken = std::make_pair(std::move(kept->ir), std::move(kept->run));
  clearKept();
  // The state reads its options through a reference to this member.
  taken.second->analysisOptions = analysisOptions;
  taken.second->options = engineOptions;
  return taken;
}

/// The copies upstream's copy insertion would make for `run`'s out-of-place
/// decisions.
/// The copies `run`'s decisions need; `undefinedUses` as for planCopy.
std::vector<EngineCopy>
plannedCopies(ModuleRun &run, const IRNumbering &ir,
              const llvm::DenseSet<OpOperand *> *undefinedUses = nullptr) {
  std::vector<EngineCopy> copies;
  auto describe = [&](Value v) { return run.engine.describe(v); };
  for (const EngineDecision &d : run.engine.decisions()) {
    if (d.inPlace)
      continue;
    OpOperand &operand = ir.ops[d.op]->getOpOperand(d.operand);
    EngineCopy copy;
    if (!planCopy(operand, run.state, describe, copy, undefinedUses))
      continue;
    copy.op = d.op;
    auto hits = run.engine.nonWritableHits().find(ir.tensorOperand(&operand));
    if (hits != run.engine.nonWritableHits().end())
      copy.nonWritable = hits->second;
    copies.push_back(std::move(copy));
  }
  return copies;
}

EngineOrderCost copyCost(const std::vector<EngineCopy> &copies) {
  EngineOrderCost cost;
  cost.ok = true;
  for (const EngineCopy &c : copies) {
    if (c.allocOnly)
      continue;
    cost.copies++;
    cost.bytes += c.bytes < 0 ? kDynamicCopyBytes : c.bytes;
  }
  return cost;
}

} // namespace

EngineResult runInterfaceEngine(MlirOperation rootHandle,
                                const EngineOptions &requested) {
  EngineResult result;
  EngineOptions engineOptions = requested;
  Operation *root = unwrap(rootHandle);
  MLIRContext *ctx = root->getContext();
  ctx->loadDialect<BufferizationDialect, memref::MemRefDialect,
                   func::FuncDialect, arith::ArithDialect,
                   tensor::TensorDialect>();

  std::vector<std::string> funcFilter;
  OneShotBufferizationOptions options =
      makeBufferizeOptions(engineOptions.bufferize, funcFilter);
  if (!options.noAnalysisFuncFilter.empty() &&
      !options.bufferizeFunctionBoundaries) {
    root->emitError("Invalid option: 'no-analysis-func-filter' requires "
                    "'bufferize-function-boundaries'");
    return result;
  }
  if (engineOptions.analysisOnly) {
    // Nothing may touch the IR.
    options.testAnalysisOnly = options.printConflicts = options.dumpAliasSets =
        false;
  }
  engineOptions.testAnalysisOnly = options.testAnalysisOnly;
  engineOptions.printConflicts = options.printConflicts;
  engineOptions.dumpAliasSets = options.dumpAliasSets;
  OneShotBufferizationOptions analysisOptions = makeAnalysisOptions(options);
  bool rewrite = !engineOptions.testAnalysisOnly && !engineOptions.analysisOnly;
  if (engineOptions.analysisOnly &&
      failed(checkUnknownOps(root, analysisOptions)))
    return result;
  if (rewrite && (failed(checkFilteredCalls(root, options)) ||
                  (options.bufferizeFunctionBoundaries &&
                   failed(checkNonBranchSuccessors(root)))))
    return result;

  bool keep = engineOptions.keepForBufferization &&
              engineOptions.analysisOnly && engineOptions.rankOrders.empty() &&
              engineOptions.deferredOperands.empty() &&
              engineOptions.heuristic == "bottom-up";
  if (engineOptions.keepForBufferization)
    dropKeptAnalysis(rootHandle);
  std::unique_ptr<IRNumbering> numbering;
  // Facts the ranked orders share (call-free IR only); declared before the
  // kept run, which may still read them.
  std::unique_ptr<SharedFacts> facts;
  std::unique_ptr<ModuleRun> run;
  // The analysis of this very IR that the rewrite before kept, if any.
  if (rewrite && engineOptions.rankOrders.empty()) {
    if (auto taken = takeKeptRun(root, analysisOptions, engineOptions)) {
      numbering = std::move(taken->first);
      run = std::move(taken->second);
      if (!engineOptions.testAnalysisOnly && engineOptions.undefinedUses)
        for (Operation *scope : run->scopes)
          run->state.gatherUndefinedTensorUses(scope);
    }
  }
  if (!numbering)
    numbering = std::make_unique<IRNumbering>(root);
  IRNumbering &ir = *numbering;
  if (!engineOptions.rankOrders.empty()) {
    // Each order analyzed without a trace (its diagnostics dropped, the IR
    // untouched); the cheapest kept.
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    // (Analysis-only runs checked it above.)
    bool unknownOps = !engineOptions.analysisOnly &&
                      failed(checkUnknownOps(root, analysisOptions));
    // The interfaces' answers (aliasing, definitions, which tensor uses have
    // undefined contents) depend on decisions only through the callee
    // analyses of calls. Without calls, the orders share them (the scopes
    // are the same for each).
    bool callFree =
        !root->walk([](CallOpInterface) { return WalkResult::interrupt(); })
             .wasInterrupted();
    if (callFree)
      facts = std::make_unique<SharedFacts>();
    // The uses with undefined contents, recorded by the first order that
    // leaves an operand out of place (only those ask).
    std::optional<llvm::DenseSet<OpOperand *>> undefinedUses;
    for (auto [index, order] : llvm::enumerate(engineOptions.rankOrders)) {
      EngineOptions orderOptions = engineOptions;
      orderOptions.heuristic = order.first;
      orderOptions.fuzzerSeed = order.second;
      orderOptions.testAnalysisOnly = orderOptions.printConflicts =
          orderOptions.dumpAliasSets = false;
      orderOptions.analysisOnly = true;
      orderOptions.undefinedUses = !callFree;
      if (unknownOps) {
        result.orderCosts.emplace_back();
        continue;
      }
      OneShotBufferizationOptions orderAnalysisOptions = analysisOptions;
      orderAnalysisOptions.analysisHeuristic = heuristicOf(order.first);
      orderAnalysisOptions.analysisFuzzerSeed = order.second;
      auto candidate = std::make_unique<ModuleRun>(
          root, ir, orderAnalysisOptions, orderOptions, facts.get());
      analyzeModule(*candidate, root, orderAnalysisOptions);
      // Only out-of-place operands ask whether their contents are undefined.
      bool copies =
          llvm::any_of(candidate->engine.decisions(),
                       [](const EngineDecision &d) { return !d.inPlace; });
      if (candidate->ok && callFree && copies && !undefinedUses) {
        for (Operation *scope : candidate->scopes)
          candidate->state.gatherUndefinedTensorUses(scope);
        candidate->options.undefinedUses = true;
        undefinedUses.emplace();
        for (OpOperand *use : ir.tensors.operands)
          if (candidate->state.hasUndefinedContents(use))
            undefinedUses->insert(use);
      }
      EngineOrderCost cost =
          candidate->ok
              ? copyCost(plannedCopies(
                    *candidate, ir, undefinedUses ? &*undefinedUses : nullptr))
              : EngineOrderCost();
      result.orderCosts.push_back(cost);
      if (!cost.ok)
        continue;
      const EngineOrderCost *best =
          result.chosenOrder < 0 ? nullptr
                                 : &result.orderCosts[result.chosenOrder];
      if (!best || std::make_pair(cost.bytes, cost.copies) <
                       std::make_pair(best->bytes, best->copies)) {
        result.chosenOrder = static_cast<int32_t>(index);
        run = std::move(candidate);
      }
    }
    if (result.chosenOrder >= 0) {
      engineOptions.heuristic =
          engineOptions.rankOrders[result.chosenOrder].first;
      engineOptions.fuzzerSeed =
          engineOptions.rankOrders[result.chosenOrder].second;
    } else {
      engineOptions.heuristic = "bottom-up";
      engineOptions.fuzzerSeed = 0;
    }
    // print-conflicts annotates as decisions are made: analyze again.
    if (engineOptions.printConflicts)
      run.reset();
    // The kept analysis still needs its undefined uses for copy insertion.
    else if (run && !run->options.undefinedUses &&
             !engineOptions.testAnalysisOnly)
      for (Operation *scope : run->scopes)
        run->state.gatherUndefinedTensorUses(scope);
  }
  options.analysisHeuristic = analysisOptions.analysisHeuristic =
      heuristicOf(engineOptions.heuristic);
  options.analysisFuzzerSeed = analysisOptions.analysisFuzzerSeed =
      engineOptions.fuzzerSeed;
  if (!run) {
    run = std::make_unique<ModuleRun>(root, ir, analysisOptions, engineOptions);
    analyzeModule(*run, root, analysisOptions);
  }
  annotate(*run, engineOptions);
  OneShotAnalysisState &state = run->state;
  InplaceAnalysis &engine = run->engine;
  for (Operation *scope : run->scopes)
    result.scopes.push_back(ir.op(scope));

  if (options.bufferizeFunctionBoundaries) {
    for (auto &[funcOp, analyzed] : run->funcState.analyzedFuncOps) {
      func::FuncOp func = funcOp;
      EngineFunction f;
      f.op = ir.op(func);
      f.name = func.getSymName().str();
      f.boundaryAnalyzed = analyzed == FuncOpAnalysisState::Analyzed;
      FunctionType type = func.getFunctionType();
      for (unsigned i = 0; i < type.getNumInputs(); ++i) {
        if (!isa<TensorType>(type.getInput(i))) {
          f.access.push_back("");
          continue;
        }
        bool read = run->funcState.readBbArgs[func].contains(i),
             written = run->funcState.writtenBbArgs[func].contains(i);
        f.access.push_back(read && written ? "read-write"
                           : read          ? "read"
                           : written       ? "write"
                                           : "none");
      }
      for (auto &[arg, rets] : run->funcState.aliasingReturnVals[func])
        for (int64_t r : rets)
          f.aliasing.push_back({arg, r});
      for (auto &[ret, arg] : run->funcState.equivalentFuncArgs[func])
        f.equivalent.push_back({arg, ret});
      llvm::sort(f.aliasing);
      llvm::sort(f.equivalent);
      result.functions.push_back(std::move(f));
    }
    llvm::sort(result.functions,
               [](const EngineFunction &a, const EngineFunction &b) {
                 return a.op < b.op;
               });
  }
  if (engineOptions.analysisOnly) {
    if (engineOptions.collectAliasSets)
      collectSets(ir, engine, state, &OneShotAnalysisState::applyOnAliases,
                  result.aliasSets);
    if (engineOptions.collectEquivalenceSets)
      collectSets(ir, engine, state,
                  &OneShotAnalysisState::applyOnEquivalenceClass,
                  result.equivalenceSets);
    if (engineOptions.collectCopies)
      result.copies = plannedCopies(*run, ir);
  }
  result.decisions = engine.decisions();
  result.conflicts = engine.conflicts();
  result.conflictCounter = engine.conflictCounter();
  result.nonWritableCounter = engine.nonWritableCounter();
  result.stats.numTensorInPlace = state.getStatNumTensorInPlace();
  result.stats.numTensorOutOfPlace = state.getStatNumTensorOutOfPlace();
  if (!run->ok)
    return result;
  if (keep) {
    std::lock_guard<std::mutex> lock(keptMutex);
    clearKept();
    kept->root = root;
    kept->context = ctx;
    kept->ir = std::move(numbering);
    kept->run = std::move(run);
    result.ok = true;
    return result;
  }
  // The IR is verified by the pass manager after the pass, as after
  // upstream's.
  result.ok = !rewrite ||
              succeeded(rewriteAnalyzed(root, state, options, result.stats));
  return result;
}

void publishKeptAnalysis(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  std::lock_guard<std::mutex> lock(keptMutex);
  if (kept->root == root && kept->context == root->getContext() && kept->run)
    kept->print.emplace(root);
}

void dropKeptAnalysis(MlirOperation rootHandle) {
  Operation *root = unwrap(rootHandle);
  std::lock_guard<std::mutex> lock(keptMutex);
  if (kept->root == root)
    clearKept();
}

} // namespace memplan
