//===- RegistryBindings.cpp - Python hooks of registered memplan passes ---===//
//
// `register_pass(argument, name, description, options, check_options, run)`
// and `register_pipeline(argument, description, options, check_options,
// expand)` put Python-defined passes into MLIR's pass registry
// (lib/Passes/ExternalPass.cpp); `options` are the specs of their options.
// The hooks get the option values MLIR parsed, typed: [(name, value)].
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"
#include "memplan/Passes/ExternalPass.h"
#include "memplan/Passes/HeldDiagnostics.h"
#include "memplan/Tools/Opt.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <string_view>
#include <type_traits>

namespace nb = nanobind;

namespace memplan {
namespace {

/// The Python callables of one pass; never freed (the registry keeps the
/// pass for the life of the process).
struct PyHooks {
  std::string argument;
  nb::object checkOptions, run, expand;
};

/// Threads in an MlirWithoutGil section.
std::atomic<int> threadsWithoutGil{0};

/// The exception's message (what() would add the Python traceback).
std::string describe(nb::python_error &err) {
  nb::gil_scoped_acquire gil;
  return nb::cast<std::string>(nb::str(err.value()));
}

std::string checkOptions(void *userData, const OptionValues &options) {
  nb::gil_scoped_acquire gil;
  try {
    return nb::cast<std::string>(
        static_cast<PyHooks *>(userData)->checkOptions(options));
  } catch (nb::python_error &err) {
    return describe(err);
  } catch (std::exception &err) {
    return std::string("memplan: internal error checking pass options: ") +
           err.what();
  }
}

/// `op` as an `mlir.ir.Operation`. A pass run by a C++ driver (memplan-opt
/// is upstream's MlirOptMain, whose contexts live on its stack) is on a
/// context that C++ owns and destroys. The bindings document that wrapping a
/// context takes ownership of it (`PyMlirContext::createFromCapsule`); their
/// 22.1.8 wrapper does not (it is never destroyed), but memplan does not rely
/// on that: the Python object made for a context here is kept for the life
/// of the process, so it can never destroy the context. The bindings keep
/// one wrapper per context address, and MlirOptMain's contexts take the same
/// address chunk after chunk: that wrapper then stands for each in turn (it
/// holds the address and the Python modules still alive, nothing else).
nb::object wrapOperation(MlirOperation op) {
  nb::module_ ir = nb::module_::import_("mlir.ir");
  nb::object liveContexts = ir.attr("Context").attr("_get_live_count");
  size_t before = nb::cast<size_t>(liveContexts());
  nb::object capsule =
      nb::steal(PyCapsule_New(op.ptr, "mlir.ir.Operation._CAPIPtr", nullptr));
  nb::object pyOp = ir.attr("Operation").attr("_CAPICreate")(capsule);
  if (nb::cast<size_t>(liveContexts()) > before)
    pyOp.attr("context").inc_ref(); // never released
  return pyOp;
}

// No exception may leave these hooks: MLIR, which calls them, is built
// without exceptions.

bool run(void *userData, MlirOperation op, const OptionValues &options,
         PassResultSink &sink) {
  // A thread Python does not know (a pass manager's worker: the GIL state
  // API leaves none behind) while nobody released the GIL for MLIR: the GIL
  // may be held by the thread that waits for this one (upstream's
  // PassManager.run holds it), and taking it would never return. The error
  // reaches the waiting thread through MLIR's parallel diagnostic handler.
  if (!PyGILState_GetThisThreadState() && !MlirWithoutGil::active()) {
    std::string message =
        static_cast<PyHooks *>(userData)->argument +
        ": MLIR runs this pass on a worker thread while the Python thread "
        "that runs the pass manager holds the GIL (PassManager.run); run the "
        "pipeline with memplan.run_pipeline, or disable the context's "
        "multithreading";
    emitDiagnostic(mlirOperationGetLocation(op), /*severity=error*/ 0, message);
    return false;
  }
  nb::gil_scoped_acquire gil;
  try {
    nb::object pyOp = wrapOperation(op);
    // Valid during this call only: the pass hands it to its context.
    MlirContext context = mlirOperationGetContext(op);
    nb::object runPipeline =
        nb::cpp_function([&sink, context](const std::string &pipeline) {
          std::string error;
          bool ok;
          {
            // The GIL is released: memplan passes of the nested pipeline may
            // run on the pass manager's threads (nested modules), and each
            // takes the GIL in `run`. Nothing else of the nested pipeline may
            // reach Python, and its diagnostics would: the bindings' handlers
            // (PassManager.run's error capture, attach_diagnostic_handler)
            // touch Python objects without taking the GIL. They are held
            // back and emitted once the GIL is held again (~DiagnosticHold),
            // so a failing nested pipeline is an MLIRError with them.
            DiagnosticHold hold(context);
            MlirWithoutGil release;
            ok = sink.runPipeline(pipeline, error);
          }
          if (!error.empty())
            throw nb::value_error(error.c_str());
          return ok;
        });
    auto [ok, stats, preserved] = nb::cast<std::tuple<
        bool, std::vector<std::tuple<std::string, std::string, uint32_t>>,
        bool>>(
        static_cast<PyHooks *>(userData)->run(pyOp, options, runPipeline));
    for (auto &[name, description, value] : stats)
      sink.add(name, description, value);
    if (ok && preserved)
      sink.preserveAllAnalyses();
    return ok;
  } catch (nb::python_error &err) {
    std::fprintf(stderr, "memplan: internal error in a pass: %s\n",
                 describe(err).c_str());
    return false;
  } catch (std::exception &err) {
    std::fprintf(stderr, "memplan: internal error in a pass: %s\n", err.what());
    return false;
  }
}

std::string expand(void *userData, const OptionValues &options,
                   std::string &error) {
  nb::gil_scoped_acquire gil;
  try {
    return nb::cast<std::string>(
        static_cast<PyHooks *>(userData)->expand(options));
  } catch (nb::python_error &err) {
    error = describe(err);
    return "";
  } catch (std::exception &err) {
    error = std::string("memplan: internal error expanding a pipeline: ") +
            err.what();
    return "";
  }
}

/// MLIR's registry is not thread-safe: registrations are serialized here.
std::mutex registryMutex;

/// (name, type, default, description, choices) tuples from Python.
using OptionTuple = std::tuple<std::string, std::string, std::string,
                               std::string, std::vector<std::string>>;

/// The options `tuples` declare; raises ValueError on a type that is not
/// one of memplan/Passes/OptionTypes.def's.
std::vector<ExternalOption> toOptions(const std::vector<OptionTuple> &tuples) {
  std::vector<ExternalOption> options;
  for (const auto &[name, type, defaultValue, description, choices] : tuples) {
    std::optional<OptionType> typed = optionTypeNamed(type);
    if (!typed)
      throw nb::value_error(
          ("option '" + name + "' has no option type '" + type + "'").c_str());
    options.push_back(
        ExternalOption{name, *typed, defaultValue, description, choices});
  }
  return options;
}

/// Hooks that call the given Python callables: checkOptions always, run and
/// expand where the callable is not None.
ExternalPassHooks pythonHooks(const std::string &argument,
                              nb::object checkOptionsFn, nb::object runFn,
                              nb::object expandFn) {
  ExternalPassHooks hooks;
  hooks.checkOptions = &checkOptions;
  if (!runFn.is_none())
    hooks.run = &run;
  if (!expandFn.is_none())
    hooks.expand = &expand;
  hooks.userData = new PyHooks{argument, checkOptionsFn, runFn, expandFn};
  return hooks;
}

/// Under the registry's lock: false when `argument` names a registered pass
/// or pipeline, else registers it with `add` and returns true.
template <typename Add> bool registerNew(const std::string &argument, Add add) {
  std::lock_guard<std::mutex> lock(registryMutex);
  if (isRegisteredPass(argument))
    return false;
  add();
  return true;
}

} // namespace

OptionValues optionValues(const nb::dict &options) {
  OptionValues values;
  for (auto [key, value] : options) {
    std::string name = nb::cast<std::string>(key);
    std::replace(name.begin(), name.end(), '_', '-');
    OptionValue typed;
    if (nb::isinstance<bool>(value))
      typed = nb::cast<bool>(value);
    else if (nb::isinstance<nb::int_>(value) &&
             nb::cast<nb::int_>(value) < nb::int_(0))
      typed = nb::cast<int64_t>(value);
    else if (nb::isinstance<nb::int_>(value))
      typed = nb::cast<uint64_t>(value);
    else
      typed = nb::cast<std::string>(value);
    values.emplace_back(std::move(name), std::move(typed));
  }
  return values;
}

nb::tuple optionRows(const std::vector<OptionRow> &rows) {
  nb::list list;
  for (const OptionRow &row : rows) {
    nb::object choices = nb::none();
    if (*row.choices) {
      nb::list names;
      for (std::string_view rest = row.choices; !rest.empty();) {
        size_t comma = std::min(rest.find(','), rest.size());
        names.append(nb::str(rest.data(), comma));
        rest.remove_prefix(std::min(comma + 1, rest.size()));
      }
      choices = nb::tuple(names);
    }
    list.append(nb::make_tuple(row.name, row.type, nb::cast(row.defaultValue),
                               row.help, choices));
  }
  return nb::tuple(list);
}

MlirWithoutGil::Count::Count() { ++threadsWithoutGil; }
MlirWithoutGil::Count::~Count() { --threadsWithoutGil; }
bool MlirWithoutGil::active() { return threadsWithoutGil.load() > 0; }

void registerRegistryBindings(nb::module_ &m) {
  // The option types (memplan/Passes/OptionTypes.def) as (name, the Python
  // type of a value, the width of an unsigned type or 0): what
  // python/memplan/passes/__init__.py types options with.
  nb::list types;
#define MEMPLAN_OPTION_TYPE_ROW(Enum, Type, Name)                              \
  types.append(                                                                \
      nb::make_tuple(Name, nb::cast(Type()).type(),                            \
                     std::is_unsigned_v<Type> && !std::is_same_v<Type, bool>   \
                         ? 8 * sizeof(Type)                                    \
                         : 0));
  MEMPLAN_OPTION_TYPES(MEMPLAN_OPTION_TYPE_ROW)
#undef MEMPLAN_OPTION_TYPE_ROW
  m.attr("OPTION_TYPES") = nb::tuple(types);
  m.def(
      "run_pass_manager",
      [](nb::handle passManager, nb::handle operation) {
        MlirPassManager pm{objectPointer(
            passManager, "mlir.passmanager.PassManager._CAPIPtr")};
        MlirOperation op{
            objectPointer(operation, "mlir.ir.Operation._CAPIPtr")};
        MlirLogicalResult result;
        {
          // Python's handlers see the diagnostics once the GIL is held
          // again; memplan passes on MLIR's worker threads take the GIL.
          DiagnosticHold hold(mlirOperationGetContext(op));
          MlirWithoutGil release;
          result = mlirPassManagerRunOnOp(pm, op);
        }
        return mlirLogicalResultIsSuccess(result);
      },
      nb::arg("pass_manager"), nb::arg("operation"),
      "Run an mlir.passmanager.PassManager on an mlir.ir.Operation with the "
      "GIL released (memplan passes on the pass manager's threads take it; "
      "diagnostics reach the context's handlers afterwards, in order); False "
      "when the pipeline fails. The caller keeps both alive.");
  m.def(
      "register_pass",
      [](const std::string &argument, const std::string &name,
         const std::string &description,
         const std::vector<OptionTuple> &options, nb::object checkOptionsFn,
         nb::object runFn, bool onFunctions,
         const std::vector<std::pair<std::string, std::string>> &statistics) {
        std::vector<ExternalOption> specs = toOptions(options);
        ExternalPassKind kind{onFunctions, {}};
        for (const auto &[statName, statDescription] : statistics)
          kind.statistics.push_back({statName, statDescription});
        return registerNew(argument, [&] {
          registerExternalPass(
              argument, name, description, std::move(specs), std::move(kind),
              pythonHooks(argument, checkOptionsFn, runFn, nb::none()));
        });
      },
      nb::arg("argument"), nb::arg("name"), nb::arg("description"),
      nb::arg("options"), nb::arg("check_options"), nb::arg("run"),
      nb::arg("on_functions") = false,
      nb::arg("statistics") =
          std::vector<std::pair<std::string, std::string>>{},
      "Register a Python-defined pass in MLIR's pass registry (False if the "
      "argument is taken): on builtin.module, or with on_functions, "
      "op-agnostic on a module or any FunctionOpInterface op, reporting only "
      "its declared statistics [(name, description)]. options: [(name, type (a "
      "name of OPTION_TYPES), default, description, choices)]; "
      "check_options(values) -> error or ''; run(op, values, run_pipeline) -> "
      "(ok, [(name, description, value < 2**32)], preserves_all_analyses), "
      "where run_pipeline(text) runs a nested pipeline on op (raises "
      "ValueError if it does not parse, returns False if it fails). The hooks "
      "see every option as MLIR parsed it: values = [(name, bool | int | "
      "str)].");
  m.def(
      "register_pipeline",
      [](const std::string &argument, const std::string &description,
         const std::vector<OptionTuple> &options, nb::object checkOptionsFn,
         nb::object expandFn) {
        std::vector<ExternalOption> specs = toOptions(options);
        return registerNew(argument, [&] {
          registerExternalPipeline(
              argument, description, std::move(specs),
              pythonHooks(argument, checkOptionsFn, nb::none(), expandFn));
        });
      },
      nb::arg("argument"), nb::arg("description"), nb::arg("options"),
      nb::arg("check_options"), nb::arg("expand"),
      "Register a pass pipeline alias in MLIR's registry; options and "
      "check_options as for register_pass; expand(text) -> textual pipeline "
      "elements (raise ValueError on bad options).");
  m.def(
      "is_registered_pass",
      [](const std::string &argument) {
        std::lock_guard<std::mutex> lock(registryMutex);
        return isRegisteredPass(argument);
      },
      nb::arg("argument"),
      "True if MLIR's registry has a pass or pipeline of this name.");
  m.def(
      "parse_pass_options",
      [](const std::string &argument, const std::string &text) {
        OptionValues values;
        std::string error;
        bool ok;
        {
          std::lock_guard<std::mutex> lock(registryMutex);
          ok = parseExternalOptions(argument, text, values, error);
        }
        if (!ok)
          throw nb::value_error(error.c_str());
        return values;
      },
      nb::arg("argument"), nb::arg("text"),
      "The options `text` (key=value ...) gives the registered memplan pass or "
      "pipeline `argument`, "
      "parsed by MLIR as in a pipeline: [(name, value)] for every option; "
      "ValueError if they do not "
      "parse or check.");
}

} // namespace memplan
