//===- ActionCounter.cpp - mlir-opt's --mlir-debug-counter ----------------===//

#include "ActionCounter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

namespace cl = llvm::cl;

namespace memplan {
namespace {

struct CounterFlags {
  cl::list<std::string> counters{
      "mlir-debug-counter",
      cl::desc("Comma separated list of debug counter skip and count arguments"),
      cl::CommaSeparated};
  cl::opt<bool> print{"mlir-print-debug-counter", cl::init(false), cl::Optional,
                      cl::desc("Print out debug counter information after all counters "
                               "have been accumulated")};
};

CounterFlags &counterFlags() {
  static CounterFlags *instance = new CounterFlags();
  return *instance;
}

/// One `<tag>-skip=N` or `<tag>-count=M`, split; `error` says what is wrong.
struct CounterArg {
  llvm::StringRef tag;
  bool isSkip = false;
  int64_t value = 0;
  std::string error;
};

CounterArg parseCounterArg(llvm::StringRef arg) {
  CounterArg result;
  auto [name, value] = arg.split('=');
  if (value.empty()) {
    result.error = ("error: expected DebugCounter argument to have an `=` separating the "
                    "counter name and value, but the provided argument was: `" +
                    arg + "`")
                       .str();
    return result;
  }
  if (value.getAsInteger(0, result.value)) {
    result.error =
        ("error: expected DebugCounter counter value to be numeric, but got `" + value + "`")
            .str();
    return result;
  }
  if (name.consume_back("-skip")) {
    result.isSkip = true;
  } else if (!name.consume_back("-count")) {
    // (sic: mlir-opt's message has no space before the name)
    result.error = ("error: expected DebugCounter counter name to end with either `-skip` or "
                    "`-count`, but got`" +
                    name + "`")
                       .str();
    return result;
  }
  result.tag = name;
  return result;
}

} // namespace

void registerActionCounterFlags() { (void)counterFlags(); }

bool actionCountersRequested() {
  CounterFlags &f = counterFlags();
  return f.counters.getNumOccurrences() || f.print.getNumOccurrences();
}

bool actionCountsPrinted() { return counterFlags().print; }

bool checkActionCounterFlags() {
  for (const std::string &arg : counterFlags().counters) {
    if (arg.empty())
      continue;
    CounterArg parsed = parseCounterArg(arg);
    if (!parsed.error.empty()) {
      llvm::errs() << parsed.error << "\n";
      return false;
    }
  }
  return true;
}

ActionCounters::ActionCounters() {
  for (const std::string &arg : counterFlags().counters) {
    if (arg.empty())
      continue;
    CounterArg parsed = parseCounterArg(arg);
    Counter &counter = counters[parsed.tag];
    (parsed.isSkip ? counter.skip : counter.limit) = parsed.value;
  }
}

bool ActionCounters::shouldRun(llvm::StringRef tag) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = counters.find(tag);
  if (it == counters.end())
    return true;
  Counter &counter = it->second;
  ++counter.count;
  // A negative skip runs everything; the first `skip` are skipped, then
  // `limit` run (all of them when the limit is negative).
  if (counter.skip < 0)
    return true;
  if (counter.count <= counter.skip)
    return false;
  return counter.limit < 0 || counter.count <= counter.skip + counter.limit;
}

void ActionCounters::print(llvm::raw_ostream &os) const {
  llvm::SmallVector<llvm::StringRef> tags;
  for (const auto &entry : counters)
    tags.push_back(entry.getKey());
  llvm::sort(tags);
  os << "DebugCounter counters:\n";
  for (llvm::StringRef tag : tags) {
    const Counter &counter = counters.find(tag)->second;
    os << llvm::left_justify(tag, 32) << ": {" << counter.count << "," << counter.skip << ","
       << counter.limit << "}\n";
  }
}

} // namespace memplan
