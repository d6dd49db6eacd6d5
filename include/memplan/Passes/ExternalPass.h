//===- ExternalPass.h - memplan passes in MLIR's pass registry --*- C++ -*-===//
//
// memplan's passes are defined in Python, each declared once there (its
// argument, summary, description and typed options:
// memplan/passes/__init__.py). These hooks register each one in MLIR's pass
// registry as a real MLIR pass on `builtin.module`, or, for a pass on
// functions, on a module or any FunctionOpInterface op (and each pipeline alias
// as a registered pass pipeline) whose options are real MLIR pass options built
// from that declaration, so a plain
// `PassManager.parse("builtin.module(memplan-...)")` finds them and MLIR parses
// their options (the only parse: the hooks get typed values). The
// implementation (lib/Passes/) is on MLIR's C++ API; the hooks only use plain
// C++ types and MLIR C API handles, so the Python side stays in the bindings.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_PASSES_EXTERNALPASS_H
#define MEMPLAN_PASSES_EXTERNALPASS_H

#include "memplan/Passes/OptionValues.h"

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
  /// Adds `value` to the statistic `name`. MLIR's pass statistics are
  /// 32-bit unsigned counters (mlir::Pass::Statistic::operator=(unsigned)):
  /// the sum saturates at 2^32 - 1.
  virtual void add(const std::string &name, const std::string &description,
                   uint32_t value) = 0;
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
/// life of the process (MLIR's registry never forgets a pass). Every hook
/// sees every declared option, typed, as MLIR parsed it.
struct ExternalPassHooks {
  void *userData = nullptr;
  /// What MLIR's parsers cannot check (an alignment that is not a power of
  /// two): empty when the values are fine, else the error.
  std::string (*checkOptions)(void *userData,
                              const OptionValues &options) = nullptr;
  /// Runs the pass on `op` with the given options; false when it failed
  /// (its diagnostics have been emitted).
  bool (*run)(void *userData, MlirOperation op, const OptionValues &options,
              PassResultSink &result) = nullptr;
  /// For a pipeline alias: the textual pipeline elements the options stand
  /// for (`error` set when they cannot be expanded).
  std::string (*expand)(void *userData, const OptionValues &options,
                        std::string &error) = nullptr;
};

/// One option of an external pass, declared as a real MLIR pass option (in
/// `--help`, `--list-passes` and printed pipelines), of the C++ type of its
/// `type` (memplan/Passes/OptionTypes.def); a string option with `choices`
/// takes only those values (an enum option).
struct ExternalOption {
  std::string name;
  OptionType type;
  std::string defaultValue, description;
  std::vector<std::string> choices;
};

/// One statistic a pass declares: its name and description.
struct ExternalStatistic {
  std::string name, description;
};

/// How a pass is scheduled and what it reports. A pass on functions is
/// op-agnostic in MLIR: it runs on the op it is nested under, a
/// `builtin.module` (all its functions) or a FunctionOpInterface op, so the
/// pass manager can run it per function (`func.func(memplan-...)`), on
/// several threads. Its clones' statistics are merged by position, so such a
/// pass reports only the statistics it declares (each clone has all of them,
/// in their declared order); reporting another one fails the pass. A module
/// pass may report any statistic.
struct ExternalPassKind {
  bool onFunctions = false;
  std::vector<ExternalStatistic> statistics;
};

/// Registers a pass under `argument`: on `builtin.module`, or where
/// `kind.onFunctions` says.
void registerExternalPass(const std::string &argument, const std::string &name,
                          const std::string &description,
                          std::vector<ExternalOption> options,
                          ExternalPassKind kind, ExternalPassHooks hooks);

/// Registers a pass pipeline alias under `argument` (hooks.checkOptions and
/// hooks.expand are used).
void registerExternalPipeline(const std::string &argument,
                              const std::string &description,
                              std::vector<ExternalOption> options,
                              ExternalPassHooks hooks);

/// True when `argument` names a registered pass or pipeline.
bool isRegisteredPass(const std::string &argument);

/// Parses `text` (`key=value ...`) as the options of the external pass or
/// pipeline `argument`, with MLIR's parsers and then its checkOptions hook:
/// every declared option's value (defaults for the rest), or false with
/// `error` set.
bool parseExternalOptions(const std::string &argument, const std::string &text,
                          OptionValues &values, std::string &error);

} // namespace memplan

#endif // MEMPLAN_PASSES_EXTERNALPASS_H
