//===- OptMain.cpp - memplan-opt: mlir-opt's driver with memplan's passes -===//
//
// The bindings' library does not export `MlirOptMain`, but it exports what
// mlir-opt is built from: the command-line registrations of the asm printer,
// the context and the timing manager, the pass pipeline parser, the parser,
// the bytecode writer, the source-manager diagnostic handlers (plain and
// verifying) and the pass manager's instrumentation. This file puts them
// together the way mlir-opt does; LLVM's command-line library parses the
// arguments, so every flag is spelled, checked and reported as in mlir-opt.
// The pass-manager flags (IR printing, statistics, crash reproducers) are
// registered here under mlir-opt's names, since their registration is not
// exported; so are MlirOptMain's (round-trip check, reproducers, IRDL files,
// plugins through lib/opt/Plugins.cpp, diagnostic filtering, remarks), and
// action tracing, debug counters and the debugger hook through
// lib/opt/ActionTracing.cpp and lib/opt/DebuggerHook.cpp. Not offered:
// writing remarks into remark files (no LLVM remark serializer in the
// library: the file is created empty, and a remark that would go there is an
// error).
//
//===----------------------------------------------------------------------===//

#include "memplan/opt.h"

#include "ActionCounter.h"
#include "ActionTracing.h"
#include "Plugins.h"
#include "UnknownLocExpectations.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Dialect/IRDL/IR/IRDL.h"
#include "mlir/Dialect/IRDL/IRDLLoading.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/ParseUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>

using namespace mlir;
namespace cl = llvm::cl;

namespace memplan {
namespace {

using VerifyLevel = SourceMgrDiagnosticVerifierHandler::Level;

/// mlir-opt's `--mlir-diagnostic-verbosity-level` values.
enum class Verbosity { ErrorsOnly, ErrorsAndWarnings, ErrorsWarningsAndRemarks };
/// mlir-opt's `--remark-format` and `--remark-policy` values.
enum class RemarkFormat { Stdout, Yaml, Bitstream };
enum class RemarkPolicy { All, Final };

/// mlir-opt's own flags (MlirOptMain's) and the pass manager's, under the
/// names and with the defaults mlir-opt gives them.
struct OptFlags {
  cl::opt<std::string> input{cl::Positional, cl::desc("<input file>"), cl::init("-")};
  cl::opt<std::string> output{"o", cl::desc("Output filename"), cl::value_desc("filename"),
                              cl::init("-")};
  cl::opt<std::string> splitInputFile{
      "split-input-file", cl::ValueOptional,
      cl::desc("Split the input file into chunks using the given or default marker and "
               "process each chunk independently"),
      cl::init("")};
  cl::opt<std::string> outputSplitMarker{"output-split-marker",
                                         cl::desc("Split marker to use for merging the ouput"),
                                         cl::init(kDefaultSplitMarker)};
  cl::opt<VerifyLevel> verifyDiagnostics{
      "verify-diagnostics", cl::ValueOptional,
      cl::desc("Check that emitted diagnostics match expected-* lines on the corresponding line"),
      cl::values(clEnumValN(VerifyLevel::All, "all",
                            "Check all diagnostics (expected, unexpected, near-misses)"),
                 // Implicit value: when no value is specified.
                 clEnumValN(VerifyLevel::All, "", ""),
                 clEnumValN(VerifyLevel::OnlyExpected, "only-expected",
                            "Check only expected diagnostics"))};
  cl::opt<bool> verifyEach{"verify-each",
                           cl::desc("Run the verifier after each transformation pass"),
                           cl::init(true)};
  cl::opt<bool> allowUnregisteredDialect{"allow-unregistered-dialect",
                                         cl::desc("Allow operation with no registered dialects"),
                                         cl::init(false)};
  cl::opt<bool> showDialects{"show-dialects",
                             cl::desc("Print the list of registered dialects and exit"),
                             cl::init(false)};
  cl::opt<bool> listPasses{"list-passes",
                           cl::desc("Print the list of registered passes and exit"),
                           cl::init(false)};
  cl::opt<bool> emitBytecode{"emit-bytecode", cl::desc("Emit bytecode when generating output"),
                             cl::init(false)};
  cl::opt<int64_t> emitBytecodeVersion{"emit-bytecode-version",
                                       cl::desc("Use specified bytecode when generating output"),
                                       cl::init(-1)};
  cl::opt<bool> elideResourceData{"elide-resource-data-from-bytecode",
                                  cl::desc("Elide resources when generating bytecode"),
                                  cl::init(false)};
  cl::opt<bool> noImplicitModule{
      "no-implicit-module",
      cl::desc("Disable implicit addition of a top-level module op during parsing"),
      cl::init(false)};
  cl::opt<bool> dumpPassPipeline{"dump-pass-pipeline",
                                 cl::desc("Print the pipeline that will be run"),
                                 cl::init(false)};
  cl::opt<bool> disableVerifierOnParsing{
      "mlir-very-unsafe-disable-verifier-on-parsing",
      cl::desc("Disable the verifier on parsing (very unsafe)"), cl::init(false)};
  cl::opt<bool> verifyRoundtrip{"verify-roundtrip",
                                cl::desc("Round-trip the IR after parsing and ensure it succeeds"),
                                cl::init(false)};
  cl::opt<bool> runReproducer{"run-reproducer",
                              cl::desc("Run the pipeline stored in the reproducer"),
                              cl::init(false)};
  cl::opt<std::string> generateReproducer{
      "mlir-generate-reproducer",
      cl::desc("Generate an mlir reproducer at the provided filename (no crash required)"),
      cl::init(""), cl::value_desc("filename")};
  cl::opt<std::string> irdlFile{"irdl-file",
                                cl::desc("IRDL file to register before processing the input"),
                                cl::init(""), cl::value_desc("filename")};
  cl::opt<Verbosity> diagnosticVerbosity{
      "mlir-diagnostic-verbosity-level", cl::desc("Choose level of diagnostic information"),
      cl::init(Verbosity::ErrorsWarningsAndRemarks),
      cl::values(clEnumValN(Verbosity::ErrorsOnly, "errors", "Errors only"),
                 clEnumValN(Verbosity::ErrorsAndWarnings, "warnings", "Errors and warnings"),
                 clEnumValN(Verbosity::ErrorsWarningsAndRemarks, "remarks",
                            "Errors, warnings and remarks"))};
  cl::opt<bool> disableDiagnosticNotes{"mlir-disable-diagnostic-notes",
                                       cl::desc("Disable diagnostic notes."), cl::init(false)};
  // Loaded while the command line is parsed (see optMain).
  cl::list<std::string> passPlugins{"load-pass-plugin",
                                    cl::desc("Load passes from plugin library")};
  cl::list<std::string> dialectPlugins{"load-dialect-plugin",
                                       cl::desc("Load dialects from plugin library")};

  // Optimization remarks, in mlir-opt's category.
  cl::OptionCategory remarkCategory{"Remark Options",
                                    "Filter remarks by regular expression (llvm::Regex syntax)."};
  cl::opt<RemarkFormat> remarkFormat{
      "remark-format", cl::desc("Specify the format for remark output."),
      cl::value_desc("format"), cl::init(RemarkFormat::Stdout),
      cl::values(clEnumValN(RemarkFormat::Stdout, "emitRemark",
                            "Print as emitRemark to command-line"),
                 clEnumValN(RemarkFormat::Yaml, "yaml", "Print yaml file"),
                 clEnumValN(RemarkFormat::Bitstream, "bitstream", "Print bitstream file")),
      cl::cat(remarkCategory)};
  cl::opt<RemarkPolicy> remarkPolicy{
      "remark-policy", cl::desc("Specify the policy for remark output."),
      cl::value_desc("format"), cl::init(RemarkPolicy::All),
      cl::values(clEnumValN(RemarkPolicy::All, "all", "Print all remarks"),
                 clEnumValN(RemarkPolicy::Final, "final", "Print final remarks")),
      cl::cat(remarkCategory)};
  cl::opt<std::string> remarksAll{"remarks-filter",
                                  cl::desc("Show all remarks: passed, missed, failed, analysis"),
                                  cl::init(""), cl::cat(remarkCategory)};
  cl::opt<std::string> remarksOutputFile{
      "remarks-output-file",
      cl::desc("Output file for yaml and bitstream remark formats. Default is "
               "mlir-remarks.yaml or mlir-remarks.bitstream"),
      cl::init(""), cl::cat(remarkCategory)};
  cl::opt<std::string> remarksPassed{"remarks-filter-passed", cl::desc("Show passed remarks"),
                                     cl::init(""), cl::cat(remarkCategory)};
  cl::opt<std::string> remarksFailed{"remarks-filter-failed", cl::desc("Show failed remarks"),
                                     cl::init(""), cl::cat(remarkCategory)};
  cl::opt<std::string> remarksMissed{"remarks-filter-missed", cl::desc("Show missed remarks"),
                                     cl::init(""), cl::cat(remarkCategory)};
  cl::opt<std::string> remarksAnalyse{"remarks-filter-analyse", cl::desc("Show analysis remarks"),
                                      cl::init(""), cl::cat(remarkCategory)};

  // The pass manager's flags (mlir/lib/Pass/PassManagerOptions.cpp).
  cl::opt<std::string> crashReproducer{
      "mlir-pass-pipeline-crash-reproducer",
      cl::desc("Generate a .mlir reproducer file at the given output path if the pass manager "
               "crashes or fails")};
  cl::opt<bool> localReproducer{
      "mlir-pass-pipeline-local-reproducer",
      cl::desc("When generating a crash reproducer, attempt to generated a reproducer with the "
               "smallest pipeline."),
      cl::init(false)};
  cl::list<std::string> printIRBefore{"mlir-print-ir-before",
                                      cl::desc("Print IR before specified passes"),
                                      cl::value_desc("pass-arg"), cl::CommaSeparated};
  cl::list<std::string> printIRAfter{"mlir-print-ir-after",
                                     cl::desc("Print IR after specified passes"),
                                     cl::value_desc("pass-arg"), cl::CommaSeparated};
  cl::opt<bool> printIRBeforeAll{"mlir-print-ir-before-all",
                                 cl::desc("Print IR before each pass"), cl::init(false)};
  cl::opt<bool> printIRAfterAll{"mlir-print-ir-after-all", cl::desc("Print IR after each pass"),
                                cl::init(false)};
  cl::opt<bool> printIRAfterChange{
      "mlir-print-ir-after-change",
      cl::desc("When printing the IR after a pass, only print if the IR changed"),
      cl::init(false)};
  cl::opt<bool> printIRAfterFailure{
      "mlir-print-ir-after-failure",
      cl::desc("When printing the IR after a pass, only print if the pass failed"),
      cl::init(false)};
  cl::opt<bool> printIRModuleScope{
      "mlir-print-ir-module-scope",
      cl::desc("When printing IR for print-ir-[before|after]{-all} always print the top-level "
               "operation"),
      cl::init(false)};
  cl::opt<std::string> printIRTreeDir{
      "mlir-print-ir-tree-dir",
      cl::desc("When printing the IR before/after a pass, print file tree rooted at this "
               "directory. Use in conjunction with mlir-print-ir-* flags")};
  cl::opt<bool> passStatistics{"mlir-pass-statistics",
                               cl::desc("Display the statistics of each pass")};
  cl::opt<PassDisplayMode> passStatisticsDisplay{
      "mlir-pass-statistics-display", cl::desc("Display method for pass statistics"),
      cl::init(PassDisplayMode::Pipeline),
      cl::values(clEnumValN(PassDisplayMode::List, "list",
                            "display the results in a merged list sorted by pass name"),
                 clEnumValN(PassDisplayMode::Pipeline, "pipeline",
                            "display the results with a nested pipeline view"))};

  // The pass pipeline: `--pass-pipeline=...` and one flag per registered pass.
  PassPipelineCLParser pipeline{"", "Compiler passes to run", "p"};

  /// The dialects of `--load-dialect-plugin`s, added to every chunk's context.
  DialectRegistry pluginDialects;
  /// Whether a `--load-*-plugin` failed to load.
  bool pluginFailed = false;
  /// Whether each chunk's IR is freed once printed (not when the process
  /// exits right after, as a command-line tool does).
  bool freeIR = true;
};

/// Registers the flags once, after memplan's passes are in the registry (the
/// pipeline parser lists the passes registered when it is built).
OptFlags &flags() {
  static OptFlags *instance = [] {
    registerAsmPrinterCLOptions();
    registerMLIRContextCLOptions();
    registerDefaultTimingManagerCLOptions();
    registerActionTracingFlags();
    return new OptFlags();
  }();
  return *instance;
}

/// A context from the factory, released when the chunk is done.
class ChunkContext {
public:
  explicit ChunkContext(const ContextFactory &factory) : factory(factory) {
    context = unwrap(factory.create(factory.userData, &owner));
  }
  ~ChunkContext() { factory.release(factory.userData, owner); }
  MLIRContext *get() const { return context; }

private:
  const ContextFactory &factory;
  void *owner = nullptr;
  MLIRContext *context = nullptr;
};

/// The IR printing and statistics that mlir-opt's pass-manager flags ask for.
LogicalResult applyPassManagerFlags(const OptFlags &f, PassManager &pm) {
  if (f.crashReproducer.getNumOccurrences()) {
    // Checked here as mlir-opt does; the pass manager would abort.
    if (f.localReproducer && pm.getContext()->isMultithreadingEnabled())
      return emitError(UnknownLoc::get(pm.getContext()))
             << "Local crash reproduction may not be used without disabling mutli-threading "
                "first.";
    pm.enableCrashReproducerGeneration(f.crashReproducer, f.localReproducer);
  }
  if (f.passStatistics)
    pm.enableStatistics(f.passStatisticsDisplay);
  bool printBefore = f.printIRBeforeAll || !f.printIRBefore.empty();
  bool printAfter = f.printIRAfterAll || !f.printIRAfter.empty() || f.printIRAfterChange ||
                    f.printIRAfterFailure;
  if (!printBefore && !printAfter)
    return success();
  if (f.printIRModuleScope && pm.getContext()->isMultithreadingEnabled()) {
    emitError(UnknownLoc::get(pm.getContext()))
        << "IR print for module scope can't be setup on a pass-manager without disabling "
           "multi-threading first.\n";
    return failure();
  }
  auto matcher = [](bool all, std::vector<std::string> names) {
    return [all, names](Pass *pass, Operation *) {
      return all || llvm::is_contained(names, pass->getArgument().str());
    };
  };
  std::vector<std::string> before(f.printIRBefore.begin(), f.printIRBefore.end());
  std::vector<std::string> after(f.printIRAfter.begin(), f.printIRAfter.end());
  // Like mlir-opt: -after-change / -after-failure alone print after every pass.
  bool afterAll = f.printIRAfterAll ||
                  (f.printIRAfter.empty() && (f.printIRAfterChange || f.printIRAfterFailure));
  auto shouldBefore = matcher(f.printIRBeforeAll, before);
  auto shouldAfter = matcher(afterAll, after);
  if (!f.printIRTreeDir.empty()) {
    pm.enableIRPrintingToFileTree(shouldBefore, shouldAfter, f.printIRModuleScope,
                                  f.printIRAfterChange, f.printIRAfterFailure, f.printIRTreeDir);
    return success();
  }
  pm.enableIRPrinting(shouldBefore, shouldAfter, f.printIRModuleScope, f.printIRAfterChange,
                      f.printIRAfterFailure, llvm::errs());
  return success();
}

/// Drops the diagnostics `--mlir-diagnostic-verbosity-level` and
/// `--mlir-disable-diagnostic-notes` leave out (mlir-opt's DiagnosticFilter).
class DiagnosticFilter : public ScopedDiagnosticHandler {
public:
  DiagnosticFilter(MLIRContext *context, Verbosity verbosity, bool showNotes)
      : ScopedDiagnosticHandler(context) {
    setHandler([verbosity, showNotes](Diagnostic &diag) {
      switch (diag.getSeverity()) {
      case DiagnosticSeverity::Error:
        return failure();
      case DiagnosticSeverity::Warning:
        return success(verbosity == Verbosity::ErrorsOnly);
      case DiagnosticSeverity::Remark:
        return success(verbosity != Verbosity::ErrorsWarningsAndRemarks);
      case DiagnosticSeverity::Note:
        return success(!showNotes);
      }
      return failure();
    });
  }
};

/// Registers the dialects that `--irdl-file` defines in `context`.
LogicalResult loadIRDLFile(llvm::StringRef path, MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<irdl::IRDLDialect>();
  context.appendDialectRegistry(registry);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &errorMessage);
  if (!file)
    return emitError(UnknownLoc::get(&context)) << errorMessage;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  return irdl::loadDialects(module.get());
}

/// `--verify-roundtrip` in one format: prints `op` (generic form with
/// locations, or bytecode), parses it back in a fresh context and compares
/// both printed in the generic form. A difference is an error on `op`.
LogicalResult verifyRoundTrip(const OptFlags &f, Operation *op, bool useBytecode) {
  // A fresh context, so resource names are not renamed on the way back.
  MLIRContext roundtripContext;
  roundtripContext.appendDialectRegistry(op->getContext()->getDialectRegistry());
  if (op->getContext()->allowsUnregisteredDialects())
    roundtripContext.allowUnregisteredDialects();
  if (!f.irdlFile.empty() && failed(loadIRDLFile(f.irdlFile, roundtripContext)))
    return failure();
  const char *format = useBytecode ? "bytecode" : "textual";
  auto generic = [] { return OpPrintingFlags().printGenericOpForm().enableDebugInfo(); };
  OwningOpRef<Operation *> roundtripped;
  {
    std::string buffer;
    llvm::raw_string_ostream os(buffer);
    if (useBytecode) {
      if (failed(writeBytecodeToFile(op, os)))
        return op->emitOpError() << "failed to write bytecode, cannot verify round-trip.\n";
    } else {
      op->print(os, generic());
    }
    FallbackAsmResourceMap fallbackResourceMap;
    ParserConfig config(&roundtripContext, !f.disableVerifierOnParsing, &fallbackResourceMap);
    roundtripped = parseSourceString<Operation *>(buffer, config);
    if (!roundtripped)
      return op->emitOpError() << "failed to parse " << format
                               << " content back, cannot verify round-trip.\n";
  }
  std::string reference, result;
  {
    llvm::raw_string_ostream referenceOs(reference), resultOs(result);
    op->print(referenceOs, generic());
    roundtripped.get()->print(resultOs, generic());
  }
  if (reference != result)
    return op->emitOpError() << format
                             << " roundTrip testing roundtripped module differs from "
                                "reference:\n<<<<<<Reference\n"
                             << reference << "\n=====\n"
                             << result << "\n>>>>>roundtripped\n";
  return success();
}

/// `--remark-format=yaml|bitstream`: the file mlir-opt writes. The bindings'
/// library has no LLVM remark serializer, so the file stays empty: a pass
/// that reports an optimization remark (none of upstream's or memplan's
/// passes does) gets an error instead, and the run fails (`*lost`).
class RemarkFileStreamer : public remark::detail::MLIRRemarkStreamerBase {
public:
  RemarkFileStreamer(std::unique_ptr<llvm::raw_fd_ostream> file, llvm::StringRef format,
                     std::shared_ptr<bool> lost)
      : file(std::move(file)), format(format), lost(std::move(lost)) {}

  void streamOptimizationRemark(const remark::detail::Remark &remark) override {
    emitError(remark.getLocation())
        << "memplan-opt cannot write " << format << " remarks (the MLIR library it runs on "
        << "has no remark serializer): remark '" << remark.getRemarkName() << "' is lost";
    *lost = true;
  }

private:
  std::unique_ptr<llvm::raw_fd_ostream> file;
  llvm::StringRef format;
  std::shared_ptr<bool> lost;
};

/// `--remark-*`: the context's remark engine, as mlir-opt sets it up.
LogicalResult enableRemarks(const OptFlags &f, MLIRContext &context,
                            const std::shared_ptr<bool> &lost) {
  remark::RemarkCategories categories{f.remarksAll, f.remarksPassed, f.remarksMissed,
                                      f.remarksAnalyse, f.remarksFailed};
  std::unique_ptr<remark::detail::RemarkEmittingPolicyBase> policy;
  if (f.remarkPolicy == RemarkPolicy::All)
    policy = std::make_unique<remark::RemarkEmittingPolicyAll>();
  else
    policy = std::make_unique<remark::RemarkEmittingPolicyFinal>();
  if (f.remarkFormat == RemarkFormat::Stdout)
    return remark::enableOptimizationRemarks(context, nullptr, std::move(policy), categories,
                                             /*printAsEmitRemarks=*/true);
  bool yaml = f.remarkFormat == RemarkFormat::Yaml;
  std::string path = f.remarksOutputFile.empty()
                         ? (yaml ? "mlir-remarks.yaml" : "mlir-remarks.bitstream")
                         : f.remarksOutputFile.getValue();
  std::error_code error;
  auto file = std::make_unique<llvm::raw_fd_ostream>(path, error);
  if (error)
    // mlir-opt fails without a word here.
    return emitError(UnknownLoc::get(&context))
           << "cannot open remarks file '" << path << "': " << error.message();
  auto streamer =
      std::make_unique<RemarkFileStreamer>(std::move(file), yaml ? "yaml" : "bitstream", lost);
  return remark::enableOptimizationRemarks(context, std::move(streamer), std::move(policy),
                                           categories);
}

/// Parse, run the pipeline and print one chunk: mlir-opt's performActions.
LogicalResult performActions(const OptFlags &f, llvm::raw_ostream &os,
                             const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                             MLIRContext *context) {
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();

  // Parsing single-threaded saves the context's synchronization.
  bool wasThreadingEnabled = context->isMultithreadingEnabled();
  context->disableMultithreading();
  PassReproducerOptions reproducerOptions;
  FallbackAsmResourceMap fallbackResourceMap;
  ParserConfig parseConfig(context, /*verifyAfterParse=*/!f.disableVerifierOnParsing,
                           &fallbackResourceMap);
  if (f.runReproducer)
    reproducerOptions.attachResourceParser(parseConfig);
  TimingScope parserTiming = timing.nest("Parser");
  OwningOpRef<Operation *> op =
      parseSourceFileForTool(sourceMgr, parseConfig, !f.noImplicitModule);
  parserTiming.stop();
  if (!op)
    return failure();
  if (f.verifyRoundtrip) {
    // Both formats are checked, even when the first fails.
    bool textual = succeeded(verifyRoundTrip(f, op.get(), /*useBytecode=*/false));
    bool bytecode = succeeded(verifyRoundTrip(f, op.get(), /*useBytecode=*/true));
    if (!textual || !bytecode)
      return failure();
  }
  context->enableMultithreading(wasThreadingEnabled);
  auto remarkLost = std::make_shared<bool>(false);
  if (failed(enableRemarks(f, *context, remarkLost)))
    return failure();

  PassManager pm(context, op.get()->getName().getStringRef(), OpPassManager::Nesting::Implicit);
  pm.enableVerifier(f.verifyEach);
  if (failed(applyPassManagerFlags(f, pm)))
    return failure();
  pm.enableTiming(timing);
  if (f.runReproducer && failed(reproducerOptions.apply(pm)))
    return failure();
  auto errorHandler = [&](const llvm::Twine &msg) {
    emitError(UnknownLoc::get(pm.getContext())) << msg;
    return failure();
  };
  if (failed(f.pipeline.addToPipeline(pm, errorHandler)))
    return failure();
  if (f.dumpPassPipeline) {
    pm.dump();
    llvm::errs() << "\n";
  }
  if (failed(pm.run(*op)) || *remarkLost)
    return failure();
  if (!f.generateReproducer.empty())
    (void)makeReproducer(pm.getOpAnchorName(), pm.getPasses(), op.get(), f.generateReproducer);

  TimingScope outputTiming = timing.nest("Output");
  if (f.emitBytecode) {
    BytecodeWriterConfig writerConfig(fallbackResourceMap);
    if (f.emitBytecodeVersion.getNumOccurrences())
      writerConfig.setDesiredBytecodeVersion(f.emitBytecodeVersion);
    if (f.elideResourceData)
      writerConfig.setElideResourceDataFlag();
    return writeBytecodeToFile(op.get(), os, writerConfig);
  }
  if (f.emitBytecodeVersion.getNumOccurrences())
    return emitError(UnknownLoc::get(pm.getContext()))
           << "bytecode version while not emitting bytecode";
  // mlir-opt verifies the IR again before printing it (and prints the
  // generic form if that fails). When the parser verified it and every pass
  // since was verified after (or changed nothing), it is known valid: the
  // printed text is the same without verifying a third time.
  OpPrintingFlags printingFlags;
  if (!f.disableVerifierOnParsing && f.verifyEach)
    printingFlags.assumeVerified();
  AsmState asmState(op.get(), printingFlags, /*locationMap=*/nullptr, &fallbackResourceMap);
  op.get()->print(os, asmState);
  os << '\n';
  if (!f.freeIR)
    (void)op.release();
  // Under --remark-policy=final the remarks come out now.
  if (remark::detail::RemarkEngine *engine = context->getRemarkEngine())
    engine->getRemarkEmittingPolicy()->finalize();
  return failure(*remarkLost);
}

/// Sends a chunk's diagnostics to the verifiers of the whole file for as
/// long as the chunk runs. The context may outlive the chunk (a Python
/// reference), so the handler that `registerInContext` adds is taken out
/// again: handler ids are handed out in order, the verifier's is the one
/// before a probe registered right after it.
class ChunkVerification {
public:
  ChunkVerification(SourceMgrDiagnosticVerifierHandler &verifier,
                    UnknownLocExpectations &unknownLoc, MLIRContext *context)
      : engine(context->getDiagEngine()) {
    verifier.registerInContext(context);
    DiagnosticEngine::HandlerID probe =
        engine.registerHandler([](Diagnostic &) { return failure(); });
    engine.eraseHandler(probe);
    verifierHandler = probe - 1;
    unknownLocHandler =
        engine.registerHandler([&unknownLoc](Diagnostic &diag) { return unknownLoc.match(diag); });
  }
  ~ChunkVerification() {
    engine.eraseHandler(unknownLocHandler);
    engine.eraseHandler(verifierHandler);
  }

private:
  DiagnosticEngine &engine;
  DiagnosticEngine::HandlerID verifierHandler;
  DiagnosticEngine::HandlerID unknownLocHandler;
};

/// The verifiers of a file's expected-* lines: MLIR's, and memplan's of the
/// `@unknown` ones (UnknownLocExpectations.h).
struct Verifiers {
  SourceMgrDiagnosticVerifierHandler &lines;
  UnknownLocExpectations &unknownLoc;
};

/// One chunk in its own context: mlir-opt's processBuffer. With
/// `--verify-diagnostics` (`verifier` set) its diagnostics go to the
/// verifier of the whole file, and the chunk succeeds whatever they are;
/// otherwise they are printed and filtered.
LogicalResult processBuffer(const OptFlags &f, llvm::raw_ostream &os,
                            std::unique_ptr<llvm::MemoryBuffer> buffer,
                            const ContextFactory &factory, const Verifiers *verifier) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  ChunkContext chunkContext(factory);
  MLIRContext *context = chunkContext.get();
  std::optional<ChunkVerification> verification;
  if (verifier)
    verification.emplace(verifier->lines, verifier->unknownLoc, context);
  context->appendDialectRegistry(f.pluginDialects);
  if (!f.irdlFile.empty() && failed(loadIRDLFile(f.irdlFile, *context)))
    return failure();
  context->allowUnregisteredDialects(f.allowUnregisteredDialect);
  if (verifier)
    context->printOpOnDiagnostic(false);
  ActionTracing tracing(*context);
  if (verifier) {
    // Whether the actions succeed does not matter, only the diagnostics.
    (void)performActions(f, os, sourceMgr, context);
    return success();
  }
  SourceMgrDiagnosticHandler handler(*sourceMgr, context);
  DiagnosticFilter filter(context, f.diagnosticVerbosity, !f.disableDiagnosticNotes);
  return performActions(f, os, sourceMgr, context);
}

/// Splits `input` on `marker` lines (a near miss is warned about) and
/// processes each chunk; the outputs are joined with `outputMarker`. Each
/// chunk keeps the file's name and line numbers in its diagnostics.
LogicalResult splitAndProcess(const OptFlags &f, std::unique_ptr<llvm::MemoryBuffer> input,
                              llvm::raw_ostream &os, llvm::StringRef marker,
                              llvm::StringRef outputMarker, const ContextFactory &factory,
                              const Verifiers *verifier) {
  if (marker.empty())
    return processBuffer(f, os, std::move(input), factory, verifier);
  const size_t checkLen = 2;
  llvm::SmallVector<llvm::StringRef, 8> raw;
  input->getBuffer().split(raw, marker.drop_back(checkLen));
  llvm::SourceMgr fileSourceMgr;
  llvm::MemoryBuffer *original = input.get();
  fileSourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());

  // A piece counts as split off only when the whole marker ends it.
  llvm::SmallVector<llvm::StringRef, 8> chunks;
  llvm::StringRef prev;
  for (llvm::StringRef piece : raw) {
    if (prev.data() == nullptr) {
      prev = piece;
      continue;
    }
    bool full = piece.starts_with(marker.take_back(checkLen)) && piece.size() > checkLen &&
                piece[checkLen] != '0';
    if (full) {
      chunks.push_back(prev);
      prev = piece.drop_front(checkLen);
    } else {
      fileSourceMgr.PrintMessage(llvm::errs(), llvm::SMLoc::getFromPointer(piece.data()),
                                 llvm::SourceMgr::DK_Warning, "near miss with file split marker");
      prev = llvm::StringRef(prev.data(), prev.size() + marker.size() - checkLen + piece.size());
    }
  }
  chunks.push_back(prev);

  bool failed = false;
  llvm::interleave(
      chunks, os,
      [&](llvm::StringRef chunk) {
        // Pad the chunk with blank lines for the lines above it and spaces
        // for the marker before it, so that locations and expected-* lines
        // count lines and columns of the whole file.
        auto [line, column] =
            fileSourceMgr.getLineAndColumn(llvm::SMLoc::getFromPointer(chunk.data()));
        std::string text(line - 1, '\n');
        text.append(column - 1, ' ');
        text += chunk.str();
        auto buffer =
            llvm::MemoryBuffer::getMemBufferCopy(text, original->getBufferIdentifier());
        if (mlir::failed(processBuffer(f, os, std::move(buffer), factory, verifier)))
          failed = true;
      },
      outputMarker.empty() ? std::string() : (outputMarker + "\n").str());
  return mlir::failure(failed);
}

/// Processes `input` as mlir-opt does: one verifier reads the expected-*
/// lines of the whole file first. With `--verify-diagnostics` it checks them
/// against the diagnostics of every chunk and its verdict is the result's;
/// without, nothing reaches it and, as in mlir-opt, it still reports each
/// expectation as not produced when it goes, without changing the result.
LogicalResult processFile(const OptFlags &f, std::unique_ptr<llvm::MemoryBuffer> input,
                          llvm::raw_ostream &os, llvm::StringRef marker,
                          const ContextFactory &factory) {
  bool verify = f.verifyDiagnostics.getNumOccurrences() > 0;
  llvm::MemoryBufferRef whole = input->getMemBufferRef();
  UnknownLocExpectations unknownLoc;
  std::optional<std::string> hidden = unknownLoc.extract(whole.getBuffer());
  LogicalResult result = success();
  {
    llvm::SourceMgr expectations;
    expectations.AddNewSourceBuffer(
        hidden ? llvm::MemoryBuffer::getMemBufferCopy(*hidden, whole.getBufferIdentifier())
               : llvm::MemoryBuffer::getMemBuffer(whole, /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    // The verifier needs a context to sit in; no diagnostic is emitted there.
    MLIRContext verifierContext(MLIRContext::Threading::DISABLED);
    SourceMgrDiagnosticVerifierHandler verifier(
        expectations, &verifierContext,
        verify ? f.verifyDiagnostics.getValue() : VerifyLevel::None);
    Verifiers verifiers{verifier, unknownLoc};
    result = splitAndProcess(
        f, llvm::MemoryBuffer::getMemBuffer(whole, /*RequiresNullTerminator=*/false), os, marker,
        f.outputSplitMarker, factory, verify ? &verifiers : nullptr);
    if (verify && failed(verifier.verify()))
      result = failure();
  }
  // After the verifier's own report, which it completes as it goes.
  if (!unknownLoc.report(llvm::errs()) && verify)
    result = failure();
  return result;
}

} // namespace

int optMain(const std::vector<std::string> &args, const ContextFactory &factory, bool freeIR) {
  OptFlags &f = flags();
  f.freeIR = freeIR;
  // The flags keep their values between calls in one process: start afresh.
  cl::ResetAllOptionOccurrences();
  resetActionTracingFlags();
  f.pluginDialects = DialectRegistry();
  f.pluginFailed = false;
  // Plugins load as their flag is parsed, so that the passes of a pass plugin
  // are there for `--pass-pipeline`. mlir-opt says "Request ignored" and then
  // aborts on the unchecked error; memplan-opt reports why and exits with 1.
  f.passPlugins.setCallback([&f](const std::string &path) {
    std::string error = loadPassPlugin(path);
    if (error.empty())
      return;
    llvm::errs() << "Failed to load passes from '" << path << "': " << error << "\n";
    f.pluginFailed = true;
  });
  f.dialectPlugins.setCallback([&f](const std::string &path) {
    std::string error = loadDialectPlugin(path, f.pluginDialects);
    if (error.empty())
      return;
    llvm::errs() << "Failed to load dialect plugin from '" << path << "': " << error << "\n";
    f.pluginFailed = true;
  });
  std::vector<const char *> argv;
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());

  std::string helpHeader = "memplan-opt: mlir-opt with memplan's passes\nAvailable Dialects: ";
  {
    ChunkContext probe(factory);
    llvm::raw_string_ostream os(helpHeader);
    llvm::interleaveComma(probe.get()->getDialectRegistry().getDialectNames(), os,
                          [&](llvm::StringRef name) { os << name; });
  }
  if (!cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), helpHeader,
                                   &llvm::errs()))
    return 1;
  if (f.pluginFailed || actionFilterRejected())
    return 1;
  // mlir-opt aborts on a bad counter when the first chunk starts.
  if (!checkActionCounterFlags())
    return 1;

  if (f.showDialects) {
    ChunkContext probe(factory);
    probe.get()->appendDialectRegistry(f.pluginDialects);
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(probe.get()->getDialectRegistry().getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    llvm::outs().flush();
    return 0;
  }
  if (f.listPasses) {
    printRegisteredPasses();
    llvm::outs().flush();
    return 0;
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(f.input, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(f.output, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  llvm::StringRef marker;
  std::string defaultMarker = kDefaultSplitMarker;
  if (f.splitInputFile.getNumOccurrences())
    marker = f.splitInputFile.empty() ? llvm::StringRef(defaultMarker)
                                      : llvm::StringRef(f.splitInputFile);
  LogicalResult result = processFile(f, std::move(file), output->os(), marker, factory);
  output->os().flush();
  if (output->os().has_error()) {
    llvm::errs() << args[0] << ": error writing '" << f.output
                 << "': " << output->os().error().message() << "\n";
    output->os().clear_error();
    return 1;
  }
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}

MlirOperation parseModuleForTool(MlirContext context, const std::string &text,
                                 const std::string &name, std::string &diagnostics) {
  MLIRContext *ctx = unwrap(context);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(*sourceMgr, ctx, os);
  ParserConfig config(ctx);
  OwningOpRef<Operation *> op = parseSourceFileForTool(sourceMgr, config, true);
  os.flush();
  return wrap(op.release());
}

void emitDiagnostic(MlirLocation location, int severity, const std::string &message,
                    const std::vector<std::pair<MlirLocation, std::string>> &notes) {
  Location loc = unwrap(location);
  InFlightDiagnostic diag = severity == 0   ? emitError(loc)
                            : severity == 1 ? emitWarning(loc)
                                            : emitRemark(loc);
  diag << message;
  for (const auto &[noteLoc, note] : notes)
    diag.attachNote(unwrap(noteLoc)) << note;
}

} // namespace memplan
