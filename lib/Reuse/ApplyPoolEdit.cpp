//===- ApplyPoolEdit.cpp - A pool plan applied in one edit ----------------===//
//
// See include/memplan/Reuse/PoolEdit.h. The sizes the pool was planned
// with become its members' size operands, the ops computing them move above
// the pool, the index program runs in its order (createSteps, EditSteps.h;
// the pool's alloc is one of its steps), the pool is freed after its last use,
// and its members become views of it (replaceAllocsWithViews).
//
//===----------------------------------------------------------------------===//

#include "memplan/Reuse/EditSteps.h"

#include "memplan/IR/Graph.h"
#include "memplan/Reuse/AllocsToViews.h"
#include "memplan/Reuse/PoolEdit.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-apply-pool-edit"

using namespace mlir;

namespace memplan {

void applyPoolEdit(const Graph &g, const PoolEdit &edit) {
  for (auto [op, index, value] : edit.sizeOperands)
    g.op(op)->setOperand(index, g.value(value));
  Operation *anchor = g.op(edit.insertBefore);
  for (int32_t op : edit.hoist)
    g.op(op)->moveBefore(anchor);

  OpBuilder b(anchor);
  Location loc = anchor->getLoc();
  SmallVector<Value> values =
      createSteps(g, StepProgram{edit.steps, {}, edit.alignment, {}}, b, loc);
  int32_t poolStep = 0;
  for (auto [k, step] : llvm::enumerate(edit.steps))
    if (static_cast<EditStep>(step[0]) == EditStep::Pool)
      poolStep = static_cast<int32_t>(k);
  Value pool = values[poolStep];
  b.setInsertionPointAfter(g.op(edit.deallocAfter));
  memref::DeallocOp::create(b, loc, pool);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << pool << ": "
                          << edit.allocs.size() << " members, "
                          << edit.steps.size() << " steps\n");

  AllocViews views{edit.allocs,
                   edit.deallocs,
                   {},
                   std::vector<int32_t>(edit.allocs.size(), poolStep),
                   edit.offsetStep,
                   edit.erase};
  views.values.reserve(values.size());
  for (Value v : values)
    views.values.push_back(wrap(v));
  replaceAllocsWithViews(g, views);
}

} // namespace memplan
