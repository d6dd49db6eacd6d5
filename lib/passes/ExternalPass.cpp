//===- ExternalPass.cpp - Python-defined passes in MLIR's registry --------===//
//
// A module pass whose body is a Python hook. Its options are real MLIR pass
// options declared from the Python registry's specs, so `--help`,
// `--list-passes` and printed pipelines show them as upstream passes show
// theirs; MLIR parses them (unknown options and malformed values fail with
// MLIR's messages) and the Python hook checks the rest (ranges, alignments)
// when the pipeline is parsed. Statistics reported by the hook become real
// pass statistics, and the pass anchors on `builtin.module` like upstream
// module passes (written inside `func.func(...)`, the pass manager rejects it).
//
//===----------------------------------------------------------------------===//

#include "memplan/registry.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <functional>
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
  ExternalPassHooks hooks;
};

/// The options of one pass instance (or of one pipeline's option set),
/// declared on `Parent` from the specs, with their values as `name=value` text.
/// (Each option's pointer is taken before the option is moved into `owned`.)
class DeclaredOptions {
public:
  template <template <typename> class Opt, typename Parent>
  void declare(Parent &parent, const std::vector<ExternalOption> &specs) {
    for (const ExternalOption &spec : specs) {
      auto desc = llvm::cl::desc(spec.description);
      llvm::StringRef def = spec.defaultValue;
      if (spec.type == "bool") {
        auto opt = std::make_unique<Opt<bool>>(parent, spec.name, desc,
                                               llvm::cl::init(def == "true"));
        auto *o = opt.get();
        add(spec, [o] { return std::string(*o ? "true" : "false"); }, std::move(opt));
      } else if (spec.type == "int") {
        declareInteger<Opt, int64_t>(parent, spec, desc);
      } else if (spec.type == "uint32") {
        // Upstream's `unsigned` and `uint64_t` options: the same parser, so
        // the same values are accepted (hexadecimal included).
        declareInteger<Opt, unsigned>(parent, spec, desc);
      } else if (spec.type == "uint64") {
        declareInteger<Opt, uint64_t>(parent, spec, desc);
      } else if (!spec.choices.empty()) {
        int index = 0;
        for (size_t i = 0; i < spec.choices.size(); ++i)
          if (spec.choices[i] == spec.defaultValue)
            index = static_cast<int>(i);
        auto opt = std::make_unique<Opt<Choice>>(parent, spec.name, desc,
                                                 llvm::cl::init(static_cast<Choice>(index)));
        for (size_t i = 0; i < spec.choices.size(); ++i)
          opt->getParser().addLiteralOption(spec.choices[i], static_cast<Choice>(i), "");
        auto *o = opt.get();
        add(spec, [o, &spec] { return spec.choices[static_cast<int>(o->getValue())]; },
            std::move(opt));
      } else {
        auto opt = std::make_unique<Opt<std::string>>(parent, spec.name, desc,
                                                      llvm::cl::init(spec.defaultValue));
        auto *o = opt.get();
        add(spec, [o] { return quote(o->getValue()); }, std::move(opt));
      }
    }
  }

  /// `name=value ...`, every option spelled out, for the Python hooks.
  std::string text() const {
    std::string result;
    for (const auto &[name, value] : values) {
      if (!result.empty())
        result += ' ';
      result += *name + "=" + value();
    }
    return result;
  }

private:
  template <template <typename> class Opt, typename T, typename Parent>
  void declareInteger(Parent &parent, const ExternalOption &spec, llvm::cl::desc desc) {
    T value = 0;
    (void)llvm::StringRef(spec.defaultValue).getAsInteger(10, value);
    auto opt = std::make_unique<Opt<T>>(parent, spec.name, desc, llvm::cl::init(value));
    auto *o = opt.get();
    add(spec, [o] { return std::to_string(static_cast<T>(*o)); }, std::move(opt));
  }

  void add(const ExternalOption &spec, std::function<std::string()> value,
           std::unique_ptr<llvm::cl::Option> option) {
    values.emplace_back(&spec.name, std::move(value));
    owned.push_back(std::move(option));
  }

  static std::string quote(const std::string &value) {
    if (llvm::none_of(value, [](char c) { return llvm::isSpace(c); }))
      return value;
    return "\"" + value + "\"";
  }

  std::vector<std::pair<const std::string *, std::function<std::string()>>> values;
  std::vector<std::unique_ptr<llvm::cl::Option>> owned;
};

template <typename T>
using PassOption = Pass::Option<T>;
template <typename T>
using PipelineOption = detail::PassOptions::Option<T>;

/// The Python hook's verdict on the options, through `errorHandler`.
LogicalResult checkWithHook(const Spec &spec, const std::string &text,
                            function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::string error = spec.hooks.checkOptions(spec.hooks.userData, text);
  if (!error.empty())
    return errorHandler(error);
  return success();
}

/// Reports options MLIR could not parse. MLIR's message names an unknown
/// option, but LLVM writes a malformed value's message to stderr only, which
/// the Python API does not see: then the hook's reading of `text` says why.
LogicalResult reportParseError(const Spec &spec, StringRef text, const std::string &mlirError,
                               function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (!StringRef(mlirError).trim().empty())
    return errorHandler(mlirError);
  std::string error = spec.hooks.checkOptions(spec.hooks.userData, text.str());
  return errorHandler(error.empty() ? mlirError : error);
}

class ExternalPass : public Pass, public PassResultSink {
public:
  explicit ExternalPass(std::shared_ptr<const Spec> spec)
      : Pass(TypeID::get<ExternalPassTag>(), ModuleOp::getOperationName()), spec(std::move(spec)) {
    options.declare<PassOption>(*this, this->spec->options);
  }
  ExternalPass(const ExternalPass &other) : Pass(other), spec(other.spec) {
    options.declare<PassOption>(*this, spec->options);
    copyOptionValuesFrom(&other);
  }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  StringRef getArgument() const override { return spec->argument; }
  StringRef getName() const override { return spec->name; }
  StringRef getDescription() const override { return spec->description; }

  LogicalResult initializeOptions(StringRef text,
                                  function_ref<LogicalResult(const Twine &)> errorHandler) override {
    std::string mlirError;
    auto capture = [&](const Twine &message) {
      mlirError = message.str();
      return failure();
    };
    if (failed(Pass::initializeOptions(text, capture)))
      return reportParseError(*spec, text, mlirError, errorHandler);
    return checkWithHook(*spec, options.text(), errorHandler);
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // What memplan's rewrites create.
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect, cf::ControlFlowDialect,
                    func::FuncDialect, memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    if (!spec->hooks.run(spec->hooks.userData, wrap(getOperation()), options.text(), *this))
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

  void add(const std::string &statName, const std::string &description, uint64_t value) override {
    for (auto &[key, stat] : statistics)
      if (key == statName) {
        *stat += value;
        return;
      }
    // Statistic keeps the name and description pointers: store them here.
    names.push_back(statName);
    descriptions.push_back(description);
    auto stat = std::make_unique<Statistic>(this, names.back().c_str(), descriptions.back().c_str());
    *stat = value;
    statistics.emplace_back(statName, std::move(stat));
  }

protected:
  std::unique_ptr<Pass> clonePass() const override { return std::make_unique<ExternalPass>(*this); }

private:
  std::shared_ptr<const Spec> spec;
  DeclaredOptions options;
  std::deque<std::string> names, descriptions;
  std::vector<std::pair<std::string, std::unique_ptr<Statistic>>> statistics;
};

/// A pipeline alias' option set (`--help`, and parsing its `{...}`).
struct PipelineOptions : detail::PassOptions {
  explicit PipelineOptions(const Spec &spec) { options.declare<PipelineOption>(*this, spec.options); }
  DeclaredOptions options;
};

} // namespace

void registerExternalPass(const std::string &argument, const std::string &name,
                          const std::string &description, std::vector<ExternalOption> options,
                          ExternalPassHooks hooks) {
  auto spec = std::make_shared<const Spec>(
      Spec{argument, name, description, std::move(options), hooks});
  registerPass([spec]() -> std::unique_ptr<Pass> { return std::make_unique<ExternalPass>(spec); });
}

void registerExternalPipeline(const std::string &argument, const std::string &description,
                              std::vector<ExternalOption> options, ExternalPassHooks hooks) {
  auto spec = std::make_shared<const Spec>(Spec{argument, "", description, std::move(options), hooks});
  registerPassPipeline(
      argument, description,
      [spec](OpPassManager &pm, StringRef text,
             function_ref<LogicalResult(const Twine &)> errorHandler) -> LogicalResult {
        PipelineOptions options(*spec);
        std::string message;
        llvm::raw_string_ostream errors(message);
        if (failed(options.parseFromString(text, errors)))
          return reportParseError(*spec, text, errors.str(), errorHandler);
        std::string error;
        std::string pipeline = spec->hooks.expand(spec->hooks.userData, options.options.text(), error);
        if (!error.empty())
          return errorHandler(error);
        message.clear();
        if (failed(parsePassPipeline(pipeline, pm, errors)))
          return errorHandler(errors.str());
        return success();
      },
      [spec](function_ref<void(const detail::PassOptions &)> printOptions) {
        PipelineOptions options(*spec);
        printOptions(options);
      });
}

bool isRegisteredPass(const std::string &argument) {
  return PassInfo::lookup(argument) != nullptr || PassPipelineInfo::lookup(argument) != nullptr;
}

} // namespace memplan
