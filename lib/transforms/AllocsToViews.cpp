//===- AllocsToViews.cpp - Allocations become views of one byte buffer ----===//
//
// See include/memplan/transforms/Transforms.h. The per-allocation part of the
// pool rewrite (memplan-buffer-reuse) and of transient emplacement, on MLIR's
// C++ API so that 100k allocations cost milliseconds: the plan, the byte buffer
// and the offsets are the Python driver's.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-allocs-to-views"

using namespace mlir;

namespace memplan {

void replaceAllocsWithViews(const Graph &g, const AllocViews &views) {
  if (views.allocs.empty())
    return;
  Value buffer = unwrap(views.buffer);
  OpBuilder builder(buffer.getContext());
  builder.getContext()->getOrLoadDialect<memref::MemRefDialect>();
  SmallVector<Value> sizes;
  for (size_t i = 0; i < views.allocs.size(); ++i) {
    Operation *alloc = g.op(views.allocs[i]);
    Value result = alloc->getResult(0);
    sizes.assign(alloc->operand_begin(),
                 alloc->operand_begin() + views.numDynamic[i]);
    builder.setInsertionPoint(alloc);
    auto view = memref::ViewOp::create(
        builder, alloc->getLoc(), cast<MemRefType>(result.getType()), buffer,
        unwrap(views.offsets[views.offsetIndex[i]]), sizes);
    result.replaceAllUsesWith(view.getResult());
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << alloc->getName() << " at "
                            << alloc->getLoc() << " -> " << view << "\n");
  }
  // The Python driver holds handles to the ops in `keep`: it erases those.
  llvm::DenseSet<int32_t> keep(views.keep.begin(), views.keep.end());
  for (size_t i = 0; i < views.allocs.size(); ++i) {
    int32_t dealloc = views.deallocs[i], alloc = views.allocs[i];
    if (dealloc >= 0 && !keep.contains(dealloc))
      g.op(dealloc)->erase();
    if (!keep.contains(alloc))
      g.op(alloc)->erase();
  }
}

} // namespace memplan
