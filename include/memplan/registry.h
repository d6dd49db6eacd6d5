//===- registry.h - memplan passes in MLIR's pass registry -------*- C++ -*-===//
//
// memplan's passes are defined in Python. These hooks register each one in
// MLIR's pass registry as a real MLIR pass on `builtin.module` (and each
// pipeline alias as a registered pass pipeline), so a plain
// `PassManager.parse("builtin.module(memplan-...)")` finds them. The
// implementation (lib/passes/) is on MLIR's C++ API; the hooks only use plain
// C++ types and MLIR C API handles, so the Python side stays in the bindings.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_REGISTRY_H
#define MEMPLAN_REGISTRY_H

#include "mlir-c/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// Where a running pass reports what the pass manager needs from it: its
/// statistics, and whether it left every analysis valid.
class PassResultSink {
public:
  virtual ~PassResultSink() = default;
  virtual void add(const std::string &name, const std::string &description, uint64_t value) = 0;
  /// The pass changed no op, operand, region or block (at most discardable
  /// attributes): every analysis stays valid, and the pass manager need not
  /// verify the IR again.
  virtual void preserveAllAnalyses() = 0;
  /// Runs the textual pipeline `pipeline` (`builtin.module(...)`) on the
  /// pass' op as a nested pipeline of the running pass manager (MLIR's
  /// Pass::runPipeline): its passes' statistics, timing and instrumentation
  /// go where the outer pipeline's go. False when it does not parse (`error`
  /// says why) or fails (its diagnostics have been emitted).
  virtual bool runPipeline(const std::string &pipeline, std::string &error) = 0;
};

/// The Python side of one registered pass. `userData` is kept alive for the
/// life of the process (MLIR's registry never forgets a pass).
struct ExternalPassHooks {
  void *userData = nullptr;
  /// Checks the `{key=value}` options: empty when they parse, else the error.
  std::string (*checkOptions)(void *userData, const std::string &options) = nullptr;
  /// Runs the pass on `op` with the given options; false when it failed
  /// (its diagnostics have been emitted).
  bool (*run)(void *userData, MlirOperation op, const std::string &options,
              PassResultSink &result) = nullptr;
  /// For a pipeline alias: the textual pipeline elements the options stand
  /// for (`error` set when the options do not parse).
  std::string (*expand)(void *userData, const std::string &options, std::string &error) = nullptr;
};

/// One option of an external pass, declared as a real MLIR pass option (in
/// `--help`, `--list-passes` and printed pipelines). `type` is "bool", "int"
/// or "str"; a "str" option with `choices` takes only those values.
struct ExternalOption {
  std::string name, type, defaultValue, description;
  std::vector<std::string> choices;
};

/// Registers a pass on `builtin.module` under `argument`. The hooks see the
/// options as `name=value` text, every option spelled out.
void registerExternalPass(const std::string &argument, const std::string &name,
                          const std::string &description, std::vector<ExternalOption> options,
                          ExternalPassHooks hooks);

/// Registers a pass pipeline alias under `argument` (hooks.checkOptions and
/// hooks.expand are used).
void registerExternalPipeline(const std::string &argument, const std::string &description,
                              std::vector<ExternalOption> options, ExternalPassHooks hooks);

/// True when `argument` names a registered pass or pipeline.
bool isRegisteredPass(const std::string &argument);

} // namespace memplan

#endif // MEMPLAN_REGISTRY_H
