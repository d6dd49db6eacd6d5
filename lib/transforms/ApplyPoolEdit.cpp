//===- ApplyPoolEdit.cpp - A pool plan applied in one edit
//-----------------===//
//
// See include/memplan/transforms/PoolEdit.h. The sizes the pool was planned
// with become its members' size operands, the ops computing them move above
// the pool, the index program runs in its order (the pool's alloc is one of
// its steps), the pool is freed after its last use, and its members become
// views of it (replaceAllocsWithViews).
//
//===----------------------------------------------------------------------===//

#include "memplan/analysis/Graph.h"
#include "memplan/transforms/PoolEdit.h"
#include "memplan/transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-apply-pool-edit"

using namespace mlir;

namespace memplan {

namespace {

/// Creates step `s` at `b`'s insertion point; `values` holds the earlier ones.
Value createStep(OpBuilder &b, Location loc, const Graph &g,
                 const PoolEdit &edit, const std::array<int64_t, 4> &s,
                 ArrayRef<Value> values) {
  auto [kind, x, y, z] = s;
  switch (static_cast<PoolStep>(kind)) {
  case PoolStep::Constant:
    return arith::ConstantIndexOp::create(b, loc, x);
  case PoolStep::Value:
    return g.value(static_cast<int32_t>(x));
  case PoolStep::AddI:
    return arith::AddIOp::create(b, loc, values[x], values[y]);
  case PoolStep::MulI:
    return arith::MulIOp::create(b, loc, values[x], values[y]);
  case PoolStep::DivUI:
    return arith::DivUIOp::create(b, loc, values[x], values[y]);
  case PoolStep::MaxUI:
    return arith::MaxUIOp::create(b, loc, values[x], values[y]);
  case PoolStep::CmpULT:
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, values[x],
                                 values[y]);
  case PoolStep::Select:
    return arith::SelectOp::create(b, loc, values[x], values[y], values[z]);
  case PoolStep::Pool: {
    bool dynamic = x < 0;
    auto type = MemRefType::get({dynamic ? ShapedType::kDynamic : x},
                                b.getIntegerType(8));
    SmallVector<Value> sizes;
    if (dynamic)
      sizes.push_back(values[y]);
    return memref::AllocOp::create(b, loc, type, sizes, ValueRange(),
                                   b.getI64IntegerAttr(edit.alignment));
  }
  }
  llvm_unreachable("a step kind of PoolSteps.def");
}

} // namespace

void applyPoolEdit(const Graph &g, const PoolEdit &edit) {
  for (auto [op, index, value] : edit.sizeOperands)
    g.op(op)->setOperand(index, g.value(value));
  Operation *anchor = g.op(edit.insertBefore);
  for (int32_t op : edit.hoist)
    g.op(op)->moveBefore(anchor);

  MLIRContext *context = anchor->getContext();
  context->getOrLoadDialect<arith::ArithDialect>();
  context->getOrLoadDialect<memref::MemRefDialect>();
  OpBuilder b(anchor);
  Location loc = anchor->getLoc();
  SmallVector<Value> values;
  values.reserve(edit.steps.size());
  Value pool;
  for (const auto &step : edit.steps) {
    values.push_back(createStep(b, loc, g, edit, step, values));
    if (static_cast<PoolStep>(step[0]) == PoolStep::Pool)
      pool = values.back();
  }
  b.setInsertionPointAfter(g.op(edit.deallocAfter));
  memref::DeallocOp::create(b, loc, pool);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << pool << ": "
                          << edit.allocs.size() << " members, "
                          << edit.steps.size() << " steps\n");

  AllocViews views{edit.allocs, edit.deallocs,   wrap(pool),
                   {},          edit.offsetStep, edit.erase};
  views.offsets.reserve(values.size());
  for (Value v : values)
    views.offsets.push_back(wrap(v));
  replaceAllocsWithViews(g, views);
}

} // namespace memplan
