//===- ActionCounter.h - mlir-opt's --mlir-debug-counter ----------*- C++ -*-===//
//
// `--mlir-debug-counter=<tag>-skip=N,<tag>-count=M` lets the actions of a tag
// run only from the (N+1)-th on, M times; `--mlir-print-debug-counter` prints
// the counts when a chunk is done. MLIR's tracing::DebugCounter is not
// exported by the bindings' library: this is memplan's own, with mlir-opt's
// flags and output.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIB_OPT_ACTIONCOUNTER_H
#define MEMPLAN_LIB_OPT_ACTIONCOUNTER_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <mutex>

namespace memplan {

/// Registers the two flags (once; before the command line is parsed).
void registerActionCounterFlags();

/// Whether either flag was given: mlir-opt then counts actions.
bool actionCountersRequested();

/// Whether `--mlir-print-debug-counter` asks for the counts.
bool actionCountsPrinted();

/// Checks the `--mlir-debug-counter` values; on the first bad one, prints
/// mlir-opt's words for it and returns false (mlir-opt then aborts).
bool checkActionCounterFlags();

/// The counters of one chunk, set from the flags.
class ActionCounters {
public:
  ActionCounters();

  /// Counts an action of `tag`; returns whether it may run.
  bool shouldRun(llvm::StringRef tag);

  /// Prints the counters, sorted by tag, as mlir-opt does.
  void print(llvm::raw_ostream &os) const;

private:
  struct Counter {
    int64_t count = 0;
    int64_t skip = 0;
    int64_t limit = -1;
  };
  llvm::StringMap<Counter> counters;
  std::mutex mutex;
};

} // namespace memplan

#endif // MEMPLAN_LIB_OPT_ACTIONCOUNTER_H
