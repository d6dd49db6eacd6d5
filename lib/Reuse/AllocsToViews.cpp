//===- AllocsToViews.cpp - Allocations become views of one byte buffer ----===//
//
// See include/memplan/Reuse/AllocsToViews.h. The per-allocation part of the
// pool rewrite (memplan-buffer-reuse) and of transient emplacement, on MLIR's
// C++ API so that 100k allocations cost milliseconds: called by
// applyPoolEdit (ApplyPoolEdit.cpp) and applyTransientEdit
// (ApplyTransientEdit.cpp) with the values of their steps.
//
//===----------------------------------------------------------------------===//

#include "memplan/Reuse/AllocsToViews.h"
#include "memplan/IR/Graph.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-allocs-to-views"

using namespace mlir;

namespace memplan {

void replaceAllocsWithViews(const Graph &g, const AllocViews &views) {
  if (views.allocs.empty() && views.erase.empty())
    return;
  OpBuilder builder(g.op(0)->getContext());
  builder.getContext()->getOrLoadDialect<memref::MemRefDialect>();
  SmallVector<Value> sizes;
  for (size_t i = 0; i < views.allocs.size(); ++i) {
    Operation *alloc = g.op(views.allocs[i]);
    Value result = alloc->getResult(0);
    auto type = cast<MemRefType>(result.getType());
    // An allocation's leading operands are its dynamic sizes.
    sizes.assign(alloc->operand_begin(),
                 alloc->operand_begin() + type.getNumDynamicDims());
    builder.setInsertionPoint(alloc);
    auto view = memref::ViewOp::create(
        builder, alloc->getLoc(), type,
        unwrap(views.values[views.bufferIndex[i]]),
        unwrap(views.values[views.offsetIndex[i]]), sizes);
    result.replaceAllUsesWith(view.getResult());
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << alloc->getName() << " at "
                            << alloc->getLoc() << " -> " << view << "\n");
  }
  // Deallocs first: a dealloc never outlives its alloc.
  llvm::SetVector<int32_t> dead;
  for (int32_t dealloc : views.deallocs)
    if (dealloc >= 0)
      dead.insert(dealloc);
  dead.insert(views.erase.begin(), views.erase.end());
  dead.insert(views.allocs.begin(), views.allocs.end());
  for (int32_t op : dead)
    g.op(op)->erase();
}

} // namespace memplan
