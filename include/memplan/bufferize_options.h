//===- bufferize_options.h - One-Shot Bufferize options and stats -*- C++ -*-===//
//
// The options of upstream's `one-shot-bufferize` that shape the rewrite, and
// what a rewrite did, in plain C++ types: shared by the in-place engine
// (lib/analysis/, MLIR's C++ API without RTTI) and its bindings.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_BUFFERIZE_OPTIONS_H
#define MEMPLAN_BUFFERIZE_OPTIONS_H

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

/// What the bufferization did.
struct BufferizeStats {
  int64_t numBufferAlloc = 0;
  int64_t numTensorInPlace = 0;
  int64_t numTensorOutOfPlace = 0;
};

} // namespace memplan

#endif // MEMPLAN_BUFFERIZE_OPTIONS_H
