//===- ExternalPass.cpp - Python-defined passes in MLIR's registry --------===//
//
// A module pass whose options and body are Python hooks. Options are checked
// when the pipeline is parsed (a bad value fails `PassManager.parse` with the
// hook's message), statistics reported by the hook become real pass
// statistics, and the pass anchors on `builtin.module` like upstream module
// passes (written inside `func.func(...)`, the pass manager rejects it).
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

#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <memory>

using namespace mlir;

namespace memplan {
namespace {

/// The identity every external pass shares: MLIR only requires that one
/// argument always allocates passes of one TypeID.
struct ExternalPassTag {};

struct Spec {
  std::string argument, name, description;
  ExternalPassHooks hooks;
};

class ExternalPass : public Pass, public StatisticSink {
public:
  explicit ExternalPass(std::shared_ptr<const Spec> spec)
      : Pass(TypeID::get<ExternalPassTag>(), ModuleOp::getOperationName()), spec(std::move(spec)) {}
  ExternalPass(const ExternalPass &other) : Pass(other), spec(other.spec), options(other.options) {}

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  StringRef getArgument() const override { return spec->argument; }
  StringRef getName() const override { return spec->name; }
  StringRef getDescription() const override { return spec->description; }

  LogicalResult initializeOptions(StringRef text,
                                  function_ref<LogicalResult(const Twine &)> errorHandler) override {
    options = text.str();
    std::string error = spec->hooks.checkOptions(spec->hooks.userData, options);
    if (!error.empty())
      return errorHandler(error);
    return success();
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // What memplan's rewrites create.
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect, cf::ControlFlowDialect,
                    func::FuncDialect, memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    if (!spec->hooks.run(spec->hooks.userData, wrap(getOperation()), options, *this))
      signalPassFailure();
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
  std::string options;
  std::deque<std::string> names, descriptions;
  std::vector<std::pair<std::string, std::unique_ptr<Statistic>>> statistics;
};

} // namespace

void registerExternalPass(const std::string &argument, const std::string &name,
                          const std::string &description, ExternalPassHooks hooks) {
  auto spec = std::make_shared<const Spec>(Spec{argument, name, description, hooks});
  registerPass([spec]() -> std::unique_ptr<Pass> { return std::make_unique<ExternalPass>(spec); });
}

void registerExternalPipeline(const std::string &argument, const std::string &description,
                              ExternalPassHooks hooks) {
  registerPassPipeline(
      argument, description,
      [hooks](OpPassManager &pm, StringRef options,
              function_ref<LogicalResult(const Twine &)> errorHandler) -> LogicalResult {
        std::string error;
        std::string text = hooks.expand(hooks.userData, options.str(), error);
        if (!error.empty())
          return errorHandler(error);
        std::string message;
        llvm::raw_string_ostream os(message);
        if (failed(parsePassPipeline(text, pm, os)))
          return errorHandler(os.str());
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)>) {});
}

bool isRegisteredPass(const std::string &argument) {
  return PassInfo::lookup(argument) != nullptr || PassPipelineInfo::lookup(argument) != nullptr;
}

} // namespace memplan
