//===- decided_bufferize.h - Bufferization from given decisions -*- C++ -*-===//
//
// One-Shot Bufferize driven by memplan's in-place decisions: upstream's copy
// insertion and bufferization run on an analysis state filled from the
// decisions, so no upstream analysis runs. This header only uses plain C++
// and MLIR C API handles: the implementation (lib/bufferize/) is compiled
// against MLIR's C++ API without RTTI, the bindings with it.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DECIDED_BUFFERIZE_H
#define MEMPLAN_DECIDED_BUFFERIZE_H

#include "memplan/graph.h"

#include "mlir-c/IR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// The options of upstream's `one-shot-bufferize` that shape the rewrite.
struct BufferizeConfig {
  bool functionBoundaries = false;
  bool allowReturnAllocsFromLoops = false;
  bool allowUnknownOps = false;
  bool checkParallelRegions = true;
  bool mustInferMemorySpace = false;
  bool useEncodingForMemorySpace = false;
  /// "infer-layout-map", "identity-layout-map" or "fully-dynamic-layout-map".
  std::string functionBoundaryTypeConversion = "infer-layout-map";
  std::string unknownTypeConversion = "fully-dynamic-layout-map";
  uint32_t bufferAlignment = 64;
  std::vector<std::string> dialectFilter;
  std::vector<std::string> noAnalysisFuncFilter;
};

/// One analyzed scope, in analysis order: a function (or the root without
/// function boundaries) and whether its boundary was analyzed (false for
/// functions that call each other circularly).
struct DecidedScope {
  int32_t op;
  bool boundary;
};

/// What the bufferization did.
struct BufferizeStats {
  int64_t numBufferAlloc = 0;
  int64_t numTensorInPlace = 0;
  int64_t numTensorOutOfPlace = 0;
};

/// Bufferizes the module the graph was extracted from with the given
/// per-operand decisions (`inplace`/`decided`, indexed by the graph's operand
/// ids) over the given scopes. Diagnostics go to the context's handlers; false
/// means the rewrite failed (the IR may then be partially rewritten, as with
/// upstream's pass).
bool bufferizeWithDecisions(const Graph &g, const uint8_t *inplace, const uint8_t *decided,
                            const std::vector<DecidedScope> &scopes, const BufferizeConfig &config,
                            BufferizeStats &stats);

} // namespace memplan

#endif // MEMPLAN_DECIDED_BUFFERIZE_H
