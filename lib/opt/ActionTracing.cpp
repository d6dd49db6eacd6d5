//===- ActionTracing.cpp - mlir-opt's action logging and profiling --------===//

#include "ActionTracing.h"

#include "ActionCounter.h"
#include "DebuggerHook.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace memplan {
namespace {

/// A `--log-mlir-actions-filter` location: `file`, `file:line` or
/// `file:line:col`; -1 matches any line or column.
struct LocationFilter {
  std::string file;
  int64_t line = -1;
  int64_t column = -1;
};

/// Reads a filter as mlir-opt does: what does not parse as a line or column
/// number stays part of the file name (a Windows path has colons).
std::optional<LocationFilter> parseLocationFilter(llvm::StringRef text) {
  if (text.empty())
    return std::nullopt;
  auto [head, last] = text.rsplit(':');
  auto [file, middle] = head.rsplit(':');
  LocationFilter filter;
  if (middle.empty()) {
    file = head;
    if (!last.empty() && last.getAsInteger(0, filter.line)) {
      file = text;
      filter.line = -1;
    }
  } else if (middle.getAsInteger(0, filter.line)) {
    filter.line = -1;
    file = head;
    if (last.getAsInteger(0, filter.line)) {
      file = text;
      filter.line = -1;
    }
  } else if (last.getAsInteger(0, filter.column)) {
    file = text;
    filter.line = -1;
    filter.column = -1;
  }
  filter.file = file.str();
  return filter;
}

struct TracingFlags {
  cl::opt<std::string> logTo{
      "log-actions-to", cl::desc("Log action execution to a file, or stderr if  '-' is passed")};
  cl::opt<std::string> profileTo{
      "profile-actions-to",
      cl::desc("Profile action execution to a file, or stderr if  '-' is passed")};
  cl::list<std::string> filterValues{
      "log-mlir-actions-filter",
      cl::desc("Comma separated list of locations to filter actions from logging"),
      cl::CommaSeparated};

  std::vector<LocationFilter> filters;
  bool filterRejected = false;

  TracingFlags() {
    filterValues.setCallback([this](const std::string &value) {
      std::optional<LocationFilter> filter = parseLocationFilter(value);
      if (!filter) {
        llvm::errs() << "error: initializing FileLineColLocBreakpoint with empty file name\n"
                     << "Invalid location filter: " << value << "\n";
        filterRejected = true;
        return;
      }
      filters.push_back(std::move(*filter));
    });
  }
};

TracingFlags &tracingFlags() {
  static TracingFlags *instance = new TracingFlags();
  return *instance;
}

/// Whether a location inside `loc` is one of `filters`.
bool locationMatches(Location loc, llvm::ArrayRef<LocationFilter> filters) {
  bool found = false;
  loc->walk([&](Location inner) {
    auto fileLoc = dyn_cast<FileLineColLoc>(inner);
    if (!fileLoc)
      return WalkResult::advance();
    int64_t line = fileLoc.getLine(), column = fileLoc.getColumn();
    found = llvm::any_of(filters, [&](const LocationFilter &filter) {
      return filter.file == fileLoc.getFilename().getValue() &&
             (filter.line == -1 || (filter.line == line &&
                                    (filter.column == -1 || filter.column == column)));
    });
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Whether an IR unit of `action` has a location among `filters`.
bool actionMatches(const tracing::Action &action, llvm::ArrayRef<LocationFilter> filters) {
  for (const IRUnit &unit : action.getContextIRUnits()) {
    if (auto *op = llvm::dyn_cast_if_present<Operation *>(unit)) {
      if (locationMatches(op->getLoc(), filters))
        return true;
    } else if (auto *block = llvm::dyn_cast_if_present<Block *>(unit)) {
      for (Operation &op : *block)
        if (locationMatches(op.getLoc(), filters))
          return true;
    } else if (auto *region = llvm::dyn_cast_if_present<Region *>(unit)) {
      if (locationMatches(region->getLoc(), filters))
        return true;
    }
  }
  return false;
}

/// The calling thread's id, as LLVM's get_threadid gives it on Linux.
uint64_t threadId() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

/// The calling thread's name, or its id when it has none.
std::string threadName() {
  char name[16] = {0};
  if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 && name[0])
    return name;
  return std::to_string(threadId());
}

/// `--log-actions-to`: a line when an action begins and one when it
/// completes, for the actions `--log-mlir-actions-filter` lets through.
class ActionLog {
public:
  ActionLog(llvm::raw_ostream &os, llvm::ArrayRef<LocationFilter> filters)
      : os(os), filters(filters) {}

  /// `breakpoint` is the debugger's breakpoint the action stopped on, if
  /// any; `willExecute` whether the debugger lets it run.
  void begin(const tracing::Action &action, llvm::StringRef breakpoint = "",
             bool willExecute = true) {
    if (!logged(action))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    // As mlir-opt's, the line closes with a backtick.
    os << "[thread " << threadName() << "] " << (willExecute ? "begins" : "skipping");
    if (breakpoint.empty())
      os << " (no breakpoint) Action ";
    else
      os << " (on breakpoint: " << breakpoint << ") Action ";
    action.print(os);
    os << " (";
    llvm::interleave(
        action.getContextIRUnits(), [&](const IRUnit &unit) { printIRUnit(os, unit); },
        [&] { os << ", "; });
    os << ")`\n";
  }

  void end(const tracing::Action &action) {
    if (!logged(action))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    os << "[thread " << threadName() << "] completed `" << action.getTag() << "`\n";
  }

private:
  bool logged(const tracing::Action &action) const {
    return filters.empty() || actionMatches(action, filters);
  }

  llvm::raw_ostream &os;
  llvm::ArrayRef<LocationFilter> filters;
  std::mutex mutex;
};

/// `--profile-actions-to`: a JSON array of Chrome trace events, a begin and
/// an end event per action, timed in microseconds from the start.
class ActionProfile {
public:
  explicit ActionProfile(llvm::raw_ostream &os)
      : os(os), start(std::chrono::steady_clock::now()) {
    os << "[";
  }
  ~ActionProfile() { os << "]"; }

  void begin(const tracing::Action &action) { event(action, /*begin=*/true); }
  void end(const tracing::Action &action) { event(action, /*begin=*/false); }

private:
  void event(const tracing::Action &action, bool begin) {
    std::string text;
    llvm::raw_string_ostream event(text);
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    event << "{\"name\": \"" << action.getTag() << "\", \"cat\": \"PERF\", \"ph\": \""
          << (begin ? "B" : "E") << "\", \"pid\": 0, \"tid\": " << threadId()
          << ", \"ts\": " << micros;
    if (begin) {
      event << ", \"args\": {\"desc\": \"";
      action.print(event);
      event << "\"}";
    }
    event << "}";
    std::lock_guard<std::mutex> lock(mutex);
    if (!first)
      os << ",\n";
    first = false;
    os << text;
  }

  llvm::raw_ostream &os;
  std::chrono::steady_clock::time_point start;
  bool first = true;
  std::mutex mutex;
};

/// Opens `--log-actions-to`/`--profile-actions-to`'s file (`-` is stdout);
/// on failure, reports it on `context` as mlir-opt does.
std::unique_ptr<llvm::ToolOutputFile> openTraceFile(MLIRContext &context, llvm::StringRef flag,
                                                    llvm::StringRef path) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&context), "Opening file for --")
        << flag << " failed: " << error << "\n";
    return nullptr;
  }
  file->keep();
  return file;
}

} // namespace

void registerActionTracingFlags() {
  (void)tracingFlags();
  registerActionCounterFlags();
  registerDebuggerHookFlag();
}

void resetActionTracingFlags() {
  tracingFlags().filters.clear();
  tracingFlags().filterRejected = false;
}

bool actionFilterRejected() { return tracingFlags().filterRejected; }

struct ActionTracing::Impl {
  // Declared in mlir-opt's order: the profile closes its array, then its
  // file, then the log's file is closed.
  std::unique_ptr<llvm::ToolOutputFile> logFile;
  std::unique_ptr<ActionLog> log;
  std::unique_ptr<llvm::ToolOutputFile> profileFile;
  std::unique_ptr<ActionProfile> profile;
  std::unique_ptr<ActionCounters> counters;
  std::unique_ptr<DebuggerHook> debugger;

  void handle(llvm::function_ref<void()> transform, const tracing::Action &action) {
    if (counters) {
      if (counters->shouldRun(action.getTag()))
        transform();
      return;
    }
    if (debugger) {
      // mlir-opt's observers, in its order: the log, the profile.
      debugger->execute(
          transform, action,
          [&](llvm::StringRef breakpoint, bool willExecute) {
            if (log)
              log->begin(action, breakpoint, willExecute);
            if (profile)
              profile->begin(action);
          },
          [&] {
            if (log)
              log->end(action);
            if (profile)
              profile->end(action);
          });
      return;
    }
    if (log)
      log->begin(action);
    if (profile)
      profile->begin(action);
    transform();
    if (log)
      log->end(action);
    if (profile)
      profile->end(action);
  }
};

ActionTracing::ActionTracing(MLIRContext &context) : impl(new Impl()), context(context) {
  TracingFlags &f = tracingFlags();
  auto install = [&] {
    context.registerActionHandler(
        [state = impl.get()](llvm::function_ref<void()> transform,
                             const tracing::Action &action) { state->handle(transform, action); });
  };
  if (f.logTo.empty() && f.profileTo.empty() && !debuggerHookEnabled()) {
    if (!actionCountersRequested())
      return;
    impl->counters = std::make_unique<ActionCounters>();
    install();
    // mlir-opt prints the counters twice: as installed (a copy of its
    // counter goes away then) and when the chunk is done.
    if (actionCountsPrinted())
      impl->counters->print(llvm::errs());
    return;
  }
  llvm::errs() << "ExecutionContext registered on the context";
  if (actionCountersRequested())
    emitError(UnknownLoc::get(&context),
              "Debug counters are incompatible with --log-actions-to and "
              "--mlir-enable-debugger-hook options and are disabled");
  if (!f.logTo.empty()) {
    impl->logFile = openTraceFile(context, "log-actions-to", f.logTo);
    if (!impl->logFile)
      return;
    impl->log = std::make_unique<ActionLog>(impl->logFile->os(), f.filters);
  }
  if (!f.profileTo.empty()) {
    impl->profileFile = openTraceFile(context, "profile-actions-to", f.profileTo);
    if (!impl->profileFile)
      return;
    impl->profile = std::make_unique<ActionProfile>(impl->profileFile->os());
  }
  if (debuggerHookEnabled()) {
    llvm::errs() << " (with Debugger hook)";
    impl->debugger = std::make_unique<DebuggerHook>();
  }
  llvm::errs() << "\n";
  install();
}

ActionTracing::~ActionTracing() {
  context.registerActionHandler(nullptr);
  // What the debugger had printed on stdout is there before the process
  // ends: memplan-opt's exit runs no static destructor.
  if (impl->debugger)
    llvm::outs().flush();
  if (impl->counters && actionCountsPrinted())
    impl->counters->print(llvm::errs());
}

} // namespace memplan
