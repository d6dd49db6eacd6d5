//===- ExternalPass.cpp - Python-defined passes in MLIR's registry --------===//
//
// A module pass whose body is a Python hook. Its options are real MLIR pass
// options declared from the pass' one declaration (memplan/passes/__init__.py),
// so
// `--help`, `--list-passes` and printed pipelines show them as upstream
// passes show theirs. MLIR parses them (unknown options and malformed values
// fail with MLIR's messages, and a malformed value also says why) and the
// hooks get the typed values: nothing parses the text again. Statistics
// reported by the hook become real pass statistics. A module pass anchors on
// `builtin.module` like upstream module passes (written inside
// `func.func(...)`, the pass manager rejects it); a pass on functions is
// op-agnostic, scheduled on a module or on any FunctionOpInterface op, with
// its declared statistics made up front so that the pass manager can merge
// its clones' (one per thread) by position.
//
//===----------------------------------------------------------------------===//

#include "memplan/Passes/ExternalPass.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <functional>
#include <limits>
#include <memory>

using namespace mlir;

namespace memplan {
namespace {

/// The identity every external pass shares: MLIR only requires that one
/// argument always allocates passes of one TypeID.
struct ExternalPassTag {};

/// The value of a `str` option with choices: the index of the choice (an
/// enum, so that LLVM's parser lists the choices like an upstream enum option).
enum class Choice : int {};

struct Spec {
  std::string argument, name, description;
  std::vector<ExternalOption> options;
  ExternalPassKind kind;
  ExternalPassHooks hooks;
};

/// A declared option that keeps why a value did not parse: LLVM writes that
/// to stderr only (MLIR's own error is then empty), which the Python API
/// does not see.
template <typename Base> class ExplainedOption : public Base {
public:
  template <typename Parent, typename... Args>
  ExplainedOption(std::string *why, std::string complaint, Parent &parent,
                  llvm::StringRef name, Args &&...args)
      : Base(parent, name, std::forward<Args>(args)...), why(why),
        complaint(std::move(complaint)) {}

private:
  bool handleOccurrence(unsigned pos, llvm::StringRef argName,
                        llvm::StringRef arg) override {
    auto &parser = this->getParser();
    typename std::decay_t<decltype(parser)>::parser_data_type value{};
    if (parser.parse(*this, argName, arg, value)) {
      *why = complaint + " '" + arg.str() + "'";
      return true;
    }
    this->setValue(value);
    this->setPosition(pos);
    this->optHasValue = true;
    return false;
  }

  std::string *why;
  std::string complaint;
};

/// The options of one pass instance (or of one pipeline's option set),
/// declared on `Parent` from the specs, with their typed values.
class DeclaredOptions {
public:
  template <template <typename> class Opt, typename Parent>
  void declare(Parent &parent, const std::vector<ExternalOption> &specs) {
    for (const ExternalOption &spec : specs) {
      auto desc = llvm::cl::desc(spec.description);
      llvm::StringRef def = spec.defaultValue;
      std::string named = "option '" + spec.name + "' ";
      // A switch without a default: a new row of OptionTypes.def that is
      // not declared here is a compiler warning (-Wswitch).
      switch (spec.type) {
      case OptionType::Bool: {
        auto *o =
            make<Opt<bool>>(named + "expects true or false, got", parent,
                            spec.name, desc, llvm::cl::init(def == "true"));
        add(spec, [o] { return OptionValue(static_cast<bool>(*o)); });
        break;
      }
      case OptionType::Int:
        declareInteger<Opt, int64_t, int64_t>(parent, spec, desc,
                                              named + "expects int, got");
        break;
      case OptionType::Uint32:
        // Upstream's `unsigned` and `uint64_t` options: the same parser, so
        // the same values are accepted (hexadecimal included).
        declareInteger<Opt, unsigned, uint64_t>(
            parent, spec, desc,
            named + "expects an unsigned 32-bit integer, got");
        break;
      case OptionType::Uint64:
        declareInteger<Opt, uint64_t, uint64_t>(
            parent, spec, desc,
            named + "expects an unsigned 64-bit integer, got");
        break;
      case OptionType::Str:
        declareString<Opt>(parent, spec, desc, named);
        break;
      }
    }
  }

  /// Every declared option with its value.
  OptionValues values() const {
    OptionValues result;
    for (const auto &[name, value] : getters)
      result.emplace_back(*name, value());
    return result;
  }

  /// Forgets why the last value did not parse (before parsing again).
  void clearExplanation() { why.clear(); }

  /// MLIR's error for options that did not parse, or, where MLIR's error is
  /// empty (a malformed value: LLVM wrote the reason to stderr only), why.
  std::string explain(const std::string &mlirError) const {
    if (!llvm::StringRef(mlirError).trim().empty() || why.empty())
      return mlirError;
    return why;
  }

private:
  /// A `str` option: an enum option over its choices, or any string.
  template <template <typename> class Opt, typename Parent>
  void declareString(Parent &parent, const ExternalOption &spec,
                     llvm::cl::desc desc, const std::string &named) {
    if (!spec.choices.empty()) {
      int index = 0;
      for (size_t i = 0; i < spec.choices.size(); ++i)
        if (spec.choices[i] == spec.defaultValue)
          index = static_cast<int>(i);
      auto *o = make<Opt<Choice>>(
          named + "must be one of " + llvm::join(spec.choices, ", ") + "; got",
          parent, spec.name, desc, llvm::cl::init(static_cast<Choice>(index)));
      for (size_t i = 0; i < spec.choices.size(); ++i)
        o->getParser().addLiteralOption(spec.choices[i], static_cast<Choice>(i),
                                        "");
      add(spec, [o, &spec] {
        return OptionValue(spec.choices[static_cast<int>(o->getValue())]);
      });
    } else {
      auto *o = make<Opt<std::string>>(named + "expects a string, got", parent,
                                       spec.name, desc,
                                       llvm::cl::init(spec.defaultValue));
      add(spec, [o] { return OptionValue(o->getValue()); });
    }
  }

  template <typename O, typename Parent, typename... Args>
  O *make(std::string complaint, Parent &parent, Args &&...args) {
    auto opt = std::make_unique<ExplainedOption<O>>(
        &why, std::move(complaint), parent, std::forward<Args>(args)...);
    O *raw = opt.get();
    owned.push_back(std::move(opt));
    return raw;
  }

  template <template <typename> class Opt, typename T, typename Stored,
            typename Parent>
  void declareInteger(Parent &parent, const ExternalOption &spec,
                      llvm::cl::desc desc, std::string complaint) {
    T value = 0;
    (void)llvm::StringRef(spec.defaultValue).getAsInteger(10, value);
    auto *o = make<Opt<T>>(std::move(complaint), parent, spec.name, desc,
                           llvm::cl::init(value));
    add(spec,
        [o] { return OptionValue(static_cast<Stored>(static_cast<T>(*o))); });
  }

  void add(const ExternalOption &spec, std::function<OptionValue()> value) {
    getters.emplace_back(&spec.name, std::move(value));
  }

  std::vector<std::pair<const std::string *, std::function<OptionValue()>>>
      getters;
  std::vector<std::unique_ptr<llvm::cl::Option>> owned;
  std::string why;
};

template <typename T> using PassOption = Pass::Option<T>;
template <typename T> using PipelineOption = detail::PassOptions::Option<T>;

/// The hook's verdict on parsed options, through `errorHandler`.
LogicalResult
checkWithHook(const Spec &spec, const OptionValues &values,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string error = spec.hooks.checkOptions(spec.hooks.userData, values);
  if (!error.empty())
    return errorHandler(error);
  return success();
}

class ExternalPass : public Pass, public PassResultSink {
public:
  explicit ExternalPass(std::shared_ptr<const Spec> spec)
      : Pass(TypeID::get<ExternalPassTag>(),
             spec->kind.onFunctions
                 ? std::nullopt
                 : std::optional<StringRef>(ModuleOp::getOperationName())),
        spec(std::move(spec)) {
    options.declare<PassOption>(*this, this->spec->options);
    declareStatistics();
  }
  ExternalPass(const ExternalPass &other) : Pass(other), spec(other.spec) {
    options.declare<PassOption>(*this, spec->options);
    copyOptionValuesFrom(&other);
    declareStatistics();
  }

  bool canScheduleOn(RegisteredOperationName opName) const override {
    if (!spec->kind.onFunctions)
      return true; // anchored on builtin.module: the pass manager checks it
    return opName.getStringRef() == ModuleOp::getOperationName() ||
           opName.hasInterface<FunctionOpInterface>();
  }

  StringRef getArgument() const override { return spec->argument; }
  StringRef getName() const override { return spec->name; }
  StringRef getDescription() const override { return spec->description; }

  LogicalResult initializeOptions(
      StringRef text,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    std::string mlirError;
    auto capture = [&](const Twine &message) {
      mlirError = message.str();
      return failure();
    };
    options.clearExplanation();
    if (failed(Pass::initializeOptions(text, capture)))
      return errorHandler(options.explain(mlirError));
    return checkWithHook(*spec, options.values(), errorHandler);
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // What memplan's rewrites create.
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    cf::ControlFlowDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
  }

  void runOnOperation() override {
    if (!spec->hooks.run(spec->hooks.userData, wrap(getOperation()),
                         options.values(), *this))
      signalPassFailure();
  }

  void preserveAllAnalyses() override { markAllAnalysesPreserved(); }

  bool runPipeline(const std::string &pipeline, std::string &error) override {
    std::string message;
    llvm::raw_string_ostream errors(message);
    FailureOr<OpPassManager> pm = parsePassPipeline(pipeline, errors);
    if (failed(pm)) {
      error = errors.str();
      return false;
    }
    return succeeded(Pass::runPipeline(*pm, getOperation()));
  }

  void add(const std::string &statName, const std::string &description,
           uint32_t value) override {
    // 32-bit counters (Pass::Statistic::operator=(unsigned)): saturate.
    auto saturated = [](uint64_t sum) {
      return static_cast<unsigned>(
          std::min<uint64_t>(sum, std::numeric_limits<uint32_t>::max()));
    };
    for (auto &[key, stat] : statistics)
      if (key == statName) {
        *stat = saturated(stat->getValue() + value);
        return;
      }
    if (spec->kind.onFunctions) {
      // The clones' statistics are merged by position: no clone may have
      // one the others lack.
      getOperation()->emitError()
          << spec->argument << ": internal error: statistic '" << statName
          << "' is not declared";
      signalPassFailure();
      return;
    }
    // Statistic keeps the name and description pointers: store them here.
    names.push_back(statName);
    descriptions.push_back(description);
    auto stat = std::make_unique<Statistic>(this, names.back().c_str(),
                                            descriptions.back().c_str());
    *stat = value;
    statistics.emplace_back(statName, std::move(stat));
  }

protected:
  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<ExternalPass>(*this);
  }

private:
  /// The declared statistics, at 0, in their declared order.
  void declareStatistics() {
    for (const ExternalStatistic &s : spec->kind.statistics) {
      names.push_back(s.name);
      descriptions.push_back(s.description);
      statistics.emplace_back(
          s.name, std::make_unique<Statistic>(this, names.back().c_str(),
                                              descriptions.back().c_str()));
    }
  }

  std::shared_ptr<const Spec> spec;
  DeclaredOptions options;
  std::deque<std::string> names, descriptions;
  std::vector<std::pair<std::string, std::unique_ptr<Statistic>>> statistics;
};

/// A pipeline alias' option set (`--help`, and parsing its `{...}`).
struct PipelineOptions : detail::PassOptions {
  explicit PipelineOptions(const Spec &spec) {
    options.declare<PipelineOption>(*this, spec.options);
  }
  DeclaredOptions options;
};

/// Every external pass' and pipeline's spec, by argument.
llvm::StringMap<std::shared_ptr<const Spec>> &specs() {
  static llvm::StringMap<std::shared_ptr<const Spec>> all;
  return all;
}

} // namespace

void registerExternalPass(const std::string &argument, const std::string &name,
                          const std::string &description,
                          std::vector<ExternalOption> options,
                          ExternalPassKind kind, ExternalPassHooks hooks) {
  auto spec = std::make_shared<const Spec>(Spec{
      argument, name, description, std::move(options), std::move(kind), hooks});
  specs()[argument] = spec;
  registerPass([spec]() -> std::unique_ptr<Pass> {
    return std::make_unique<ExternalPass>(spec);
  });
}

void registerExternalPipeline(const std::string &argument,
                              const std::string &description,
                              std::vector<ExternalOption> options,
                              ExternalPassHooks hooks) {
  auto spec = std::make_shared<const Spec>(
      Spec{argument, "", description, std::move(options), {}, hooks});
  specs()[argument] = spec;
  registerPassPipeline(
      argument, description,
      [spec](OpPassManager &pm, StringRef text,
             function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        OptionValues values;
        std::string error;
        if (!parseExternalOptions(spec->argument, text.str(), values, error))
          return errorHandler(error);
        std::string pipeline =
            spec->hooks.expand(spec->hooks.userData, values, error);
        if (!error.empty())
          return errorHandler(error);
        std::string message;
        llvm::raw_string_ostream errors(message);
        if (failed(parsePassPipeline(pipeline, pm, errors)))
          return errorHandler(errors.str());
        return success();
      },
      [spec](function_ref<void(const detail::PassOptions &)> printOptions) {
        PipelineOptions options(*spec);
        printOptions(options);
      });
}

bool parseExternalOptions(const std::string &argument, const std::string &text,
                          OptionValues &values, std::string &error) {
  auto it = specs().find(argument);
  if (it == specs().end()) {
    error = "'" + argument + "' is not a memplan pass";
    return false;
  }
  const Spec &spec = *it->second;
  PipelineOptions options(spec);
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(options.parseFromString(text, errors))) {
    error = options.options.explain(errors.str());
    return false;
  }
  values = options.options.values();
  error = spec.hooks.checkOptions(spec.hooks.userData, values);
  return error.empty();
}

bool isRegisteredPass(const std::string &argument) {
  return PassInfo::lookup(argument) != nullptr ||
         PassPipelineInfo::lookup(argument) != nullptr;
}

} // namespace memplan
