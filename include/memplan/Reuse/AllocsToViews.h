//===- AllocsToViews.h - Allocations become views of a buffer ---*- C++ -*-===//
//
// The one edit behind both plans that place allocations in a byte buffer:
// the pool edit (memplan/Reuse/PoolEdit.h) and the transient edit
// (memplan/Transients/TransientEdit.h).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_REUSE_ALLOCSTOVIEWS_H
#define MEMPLAN_REUSE_ALLOCSTOVIEWS_H

#include "mlir-c/IR.h"

#include <cstdint>
#include <vector>

namespace memplan {

struct Graph;

/// Allocations to turn into views of byte buffers: op ids of a Graph
/// whose IR is unchanged since it was built, and values of that IR.
struct AllocViews {
  std::vector<int32_t> allocs;   ///< The allocation ops.
  std::vector<int32_t> deallocs; ///< The dealloc of each, or -1.
  /// The buffers (1-d i8 memrefs) and the byte offsets.
  std::vector<MlirValue> values;
  /// Per alloc: the index of its buffer and of its byte offset in `values`.
  std::vector<int32_t> bufferIndex, offsetIndex;
  /// Other ops to erase with them (further deallocs).
  std::vector<int32_t> erase;
};

/// Creates `memref.view %buffer[%offset][%dynamic sizes]` right before each
/// allocation, replaces the allocation's uses with it, then erases the
/// allocations, their deallocs and the ops in `erase`, each once.
void replaceAllocsWithViews(const Graph &g, const AllocViews &views);

} // namespace memplan

#endif // MEMPLAN_REUSE_ALLOCSTOVIEWS_H
