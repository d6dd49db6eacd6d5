//===- Deallocation.h - memplan-buffer-deallocation's rewrite ---*- C++ -*-===//
//
// The rewrite of memplan-buffer-deallocation on MLIR's C++ API
// (lib/Deallocation/InsertDeallocs.cpp), after the ownership analysis
// (memplan/Deallocation/Ownership.h). It takes a module as an MLIR C API
// handle and returns what it did as plain data, so the nanobind code (built
// with RTTI) never sees an MLIR C++ type.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_DEALLOCATION_H
#define MEMPLAN_DEALLOCATION_DEALLOCATION_H

#include "memplan/Passes/OptionValues.h"
#include "memplan/Passes/PassOptions.def"

#include "mlir-c/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// What `deallocateBuffers` did (memplan/Passes/Counters.def).
struct DeallocationStats {
#define MEMPLAN_DEALLOCATION_COUNTER(Field, Py, Statistic, Doc)                \
  int64_t Field = 0;
#include "memplan/Passes/Counters.def"
};

/// A function memplan leaves to upstream's ownership-based deallocation.
struct LeftFunction {
  MlirOperation func;
  MlirOperation at; ///< The op the reason is about.
  std::string reason;
  int64_t allocations = 0; ///< Its heap allocations.
};

/// A buffer memplan does not free: asynchronous work on it is never awaited.
struct UnawaitedBuffer {
  MlirLocation buffer;
  MlirLocation work;
};

struct DeallocationResult {
  DeallocationStats stats;
  std::vector<LeftFunction> left;
  std::vector<UnawaitedBuffer> unawaited;
};

/// memplan-buffer-deallocation's options (memplan/Passes/PassOptions.def;
/// `remarks` is the Python driver's).
MEMPLAN_OPTIONS_STRUCT(DeallocationOptions, "memplan-buffer-deallocation",
                       MEMPLAN_DEALLOCATION_OPTIONS);

/// memplan-buffer-deallocation's rewrite: frees every buffer of the
/// functions under `root` the ownership analysis (memplan/Deallocation/
/// Ownership.h) reasons about, as its plan says, and returns the functions
/// it leaves to upstream. With `options.dropDeadValues`, what no path reads
/// goes first (unused memref results of region ops, unused views, selects and
/// loads, what loops carry for nothing, regions no path runs, unused block
/// arguments, copies of a view onto itself), as upstream's canonicalization
/// and CSE after its deallocation do, so that no dead alias or dead write
/// holds a buffer. With `options.copyWhereLoopsRun`, before that, a copy
/// bufferization made of a loop's init is made only where the loop makes a
/// trip, where that is sound (lib/Deallocation/LoopCopies.h).
DeallocationResult deallocateBuffers(MlirOperation root,
                                     const DeallocationOptions &options);

/// What memplan-buffer-deallocation does to the IR under `root` before it
/// plans: copies where loops run and dead values dropped, as `options` say
/// (above), and each returned merge that always holds one value replaced by
/// that value (FunctionPlan::returnForwards). The ownership analysis of the
/// IR it leaves (memplan/Deallocation/DeallocationPlan.h: planDeallocation)
/// is then the pass's; what it did (loop copies) in the stats.
DeallocationStats prepareDeallocation(MlirOperation root,
                                      const DeallocationOptions &options);

/// Checks a function memplan leaves to upstream's ownership-based
/// deallocation for inputs that crash it (MLIR 22): a located error per
/// such input; true when there is none.
bool checkUpstreamDeallocation(MlirOperation func);

/// While it lives (or until `restore`), the functions under `root` other
/// than those in `keep` have no body (each a private declaration): a pass
/// run meanwhile on `root` sees only the kept functions' bodies.
class HiddenFunctionBodies {
public:
  HiddenFunctionBodies(MlirOperation root,
                       const std::vector<MlirOperation> &keep);
  ~HiddenFunctionBodies();
  HiddenFunctionBodies(const HiddenFunctionBodies &) = delete;
  HiddenFunctionBodies &operator=(const HiddenFunctionBodies &) = delete;
  /// Puts every hidden body back (once).
  void restore();

private:
  struct Impl;
  Impl *impl;
};

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_DEALLOCATION_H
