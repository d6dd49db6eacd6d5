//===- ApplyTransientEdit.cpp - A transient plan applied in one edit ------===//
//
// See include/memplan/Transients/TransientEdit.h. The storage arguments are
// added, the program runs in its order (createSteps, EditSteps.h), the
// marked ops are marked, the calls get their storage, and the allocations
// become views of it (replaceAllocsWithViews).
//
//===----------------------------------------------------------------------===//

#include "memplan/Reuse/EditSteps.h"

#include "memplan/IR/Graph.h"
#include "memplan/Reuse/AllocsToViews.h"
#include "memplan/Transients/TransientEdit.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "memplan-apply-transient-edit"

using namespace mlir;

namespace memplan {

namespace {

/// Appends a `memref<?xi8>` argument to `func`, its argument attributes
/// (when it has any) growing by an empty dictionary, or by one holding the
/// unit attribute `marker` when that is not empty.
void addStorageArgument(FunctionOpInterface func, StringRef marker) {
  MLIRContext *context = func->getContext();
  ArrayAttr old = func.getArgAttrsAttr();
  unsigned n = func.getNumArguments();
  auto type =
      MemRefType::get({ShapedType::kDynamic}, IntegerType::get(context, 8));
  (void)func.insertArguments({n}, {type}, {}, {func->getLoc()});
  if (old) {
    SmallVector<Attribute> attrs(old.begin(), old.end());
    attrs.push_back(DictionaryAttr::get(context));
    func.setArgAttrsAttr(ArrayAttr::get(context, attrs));
  }
  if (!marker.empty())
    func.setArgAttr(n, marker, UnitAttr::get(context));
}

} // namespace

void applyTransientEdit(const Graph &g, const TransientEdit &edit) {
  for (int32_t func : edit.newArguments)
    addStorageArgument(cast<FunctionOpInterface>(g.op(func)),
                       edit.storageMarker);

  MLIRContext *context = g.op(0)->getContext();
  OpBuilder b(context);
  StepProgram program{edit.steps, edit.cloneOperands, edit.alignment,
                      edit.message, edit.names};
  SmallVector<Value> values =
      createSteps(g, program, b, UnknownLoc::get(context));
  for (int64_t step : edit.marked)
    if (Operation *op = values[step].getDefiningOp())
      op->setAttr(edit.marker, UnitAttr::get(context));
  for (int64_t step : edit.unmarked)
    if (Operation *op = values[step].getDefiningOp())
      op->removeAttr(edit.marker);
  for (auto [op, name] : edit.symbols)
    g.op(op)->setAttr(edit.symbolAttribute,
                      FlatSymbolRefAttr::get(context, edit.names[name]));

  for (auto [call, argument, step] : edit.calls) {
    Operation *op = g.op(call);
    MutableOperandRange args =
        cast<CallOpInterface>(op).getArgOperandsMutable();
    if (static_cast<unsigned>(argument) < args.size())
      args[argument].set(values[step]);
    else
      args.append(values[step]);
    cast<ArgAndResultAttrsOpInterface>(op).removeArgAttrsAttr();
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << edit.newArguments.size()
                          << " storage arguments, " << edit.steps.size()
                          << " steps, " << edit.allocs.size()
                          << " allocations, " << edit.calls.size()
                          << " calls\n");

  AllocViews views{edit.allocs,     edit.deallocs,   {},
                   edit.bufferStep, edit.offsetStep, edit.erase};
  views.values.reserve(values.size());
  for (Value v : values)
    views.values.push_back(wrap(v));
  replaceAllocsWithViews(g, views);
}

} // namespace memplan
