//===- InsertDeallocs.cpp - Free buffers right after their last use -------===//
//
// See include/memplan/transforms/Transforms.h. The placement (which buffers,
// after which op) is memplan-buffer-deallocation's, from the lifetime analysis;
// this only builds the ops, on MLIR's C++ API.
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace memplan {

void insertDeallocs(const Graph &g, const int32_t *allocs, const int32_t *after,
                    size_t n, bool manual) {
  if (n == 0)
    return;
  MLIRContext *ctx = g.op(allocs[0])->getContext();
  ctx->getOrLoadDialect<memref::MemRefDialect>();
  ctx->getOrLoadDialect<bufferization::BufferizationDialect>();
  OpBuilder builder(ctx);
  StringAttr manualName = StringAttr::get(
      ctx, bufferization::BufferizationDialect::kManualDeallocation);
  for (size_t i = 0; i < n; ++i) {
    Operation *alloc = g.op(allocs[i]);
    Operation *last = g.op(after[i]);
    builder.setInsertionPointAfter(last);
    auto dealloc = memref::DeallocOp::create(builder, alloc->getLoc(),
                                             alloc->getResult(0));
    if (manual) {
      alloc->setAttr(manualName, UnitAttr::get(ctx));
      dealloc->setAttr(manualName, UnitAttr::get(ctx));
    }
  }
}

} // namespace memplan
