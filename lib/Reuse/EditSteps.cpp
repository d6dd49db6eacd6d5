//===- EditSteps.cpp - Create the steps of an edit's program --------------===//
//
// See EditSteps.h and memplan/Reuse/EditSteps.def.
//
//===----------------------------------------------------------------------===//

#include "memplan/Reuse/EditSteps.h"

#include "memplan/IR/Graph.h"
#include "memplan/Reuse/EditStep.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace memplan {

namespace {

/// A `memref<?xi8>` or, with `bytes` >= 0, `memref<bytesxi8>`.
MemRefType byteBuffer(OpBuilder &b, int64_t bytes = ShapedType::kDynamic) {
  return MemRefType::get({bytes}, b.getIntegerType(8));
}

/// Creates step `s`; `values` holds the earlier ones. A positioning step
/// moves `b` and `loc` and has no value; a Function step also sets `made`.
Value createStep(OpBuilder &b, Location &loc, func::FuncOp &made,
                 const Graph &g, const StepProgram &p,
                 const std::array<int64_t, 4> &s, ArrayRef<Value> values) {
  auto [kind, x, y, z] = s;
  switch (static_cast<EditStep>(kind)) {
  case EditStep::Constant:
    return arith::ConstantIndexOp::create(b, loc, x);
  case EditStep::Value:
    return g.value(static_cast<int32_t>(x));
  case EditStep::AddI:
    return arith::AddIOp::create(b, loc, values[x], values[y]);
  case EditStep::MulI:
    return arith::MulIOp::create(b, loc, values[x], values[y]);
  case EditStep::DivUI:
    return arith::DivUIOp::create(b, loc, values[x], values[y]);
  case EditStep::MaxUI:
    return arith::MaxUIOp::create(b, loc, values[x], values[y]);
  case EditStep::CmpULT:
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, values[x],
                                 values[y]);
  case EditStep::CmpULE:
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, values[x],
                                 values[y]);
  case EditStep::Select:
    return arith::SelectOp::create(b, loc, values[x], values[y], values[z]);
  case EditStep::Pool: {
    bool dynamic = x < 0;
    SmallVector<Value> sizes;
    if (dynamic)
      sizes.push_back(values[y]);
    return memref::AllocOp::create(
        b, loc, byteBuffer(b, dynamic ? ShapedType::kDynamic : x), sizes,
        ValueRange(), b.getI64IntegerAttr(p.alignment));
  }
  case EditStep::Argument:
    return cast<FunctionOpInterface>(g.op(static_cast<int32_t>(x)))
        .getArgument(static_cast<unsigned>(y));
  case EditStep::Clone: {
    Operation *clone = b.clone(*g.op(static_cast<int32_t>(x)));
    for (unsigned k = 0, e = clone->getNumOperands(); k < e; ++k)
      clone->setOperand(k, values[p.cloneOperands[y + k]]);
    return clone->getResult(0);
  }
  case EditStep::Result:
    return values[x].getDefiningOp()->getResult(static_cast<unsigned>(y));
  case EditStep::Dim:
    return memref::DimOp::create(b, loc, values[x], values[y]);
  case EditStep::Assert:
    cf::AssertOp::create(b, loc, values[x], p.message);
    return Value();
  case EditStep::View:
    return memref::ViewOp::create(b, loc, byteBuffer(b), values[x], values[y],
                                  ValueRange{values[z]});
  case EditStep::Dealloc:
    memref::DeallocOp::create(b, loc, values[x]);
    return Value();
  case EditStep::EntryBegin: {
    Operation *func = g.op(static_cast<int32_t>(x));
    b.setInsertionPointToStart(&func->getRegion(0).front());
    loc = func->getLoc();
    return Value();
  }
  case EditStep::Before:
  case EditStep::After: {
    Operation *op = g.op(static_cast<int32_t>(x));
    if (static_cast<EditStep>(kind) == EditStep::Before)
      b.setInsertionPoint(op);
    else
      b.setInsertionPointAfter(op);
    loc = op->getLoc();
    return Value();
  }
  case EditStep::Function: {
    auto source = cast<FunctionOpInterface>(g.op(static_cast<int32_t>(x)));
    SmallVector<Type> inputs;
    for (auto [k, type] : llvm::enumerate(source.getArgumentTypes()))
      if (static_cast<int64_t>(k) != z)
        inputs.push_back(type);
    loc = source->getLoc();
    b.setInsertionPointAfter(source);
    made = func::FuncOp::create(b, loc, p.names[y],
                                b.getFunctionType(inputs, b.getIndexType()));
    b.setInsertionPointToStart(made.addEntryBlock());
    return Value();
  }
  case EditStep::NewArgument:
    return made.getArgument(static_cast<unsigned>(x));
  case EditStep::Return:
    func::ReturnOp::create(b, loc, values[x]);
    return Value();
  }
  llvm_unreachable("a step kind of EditSteps.def");
}

} // namespace

SmallVector<Value> createSteps(const Graph &g, const StepProgram &program,
                               OpBuilder &b, Location loc) {
  MLIRContext *context = b.getContext();
  context->getOrLoadDialect<arith::ArithDialect>();
  context->getOrLoadDialect<cf::ControlFlowDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  context->getOrLoadDialect<memref::MemRefDialect>();
  SmallVector<Value> values;
  values.reserve(program.steps.size());
  func::FuncOp made;
  for (const auto &step : program.steps)
    values.push_back(createStep(b, loc, made, g, program, step, values));
  return values;
}

} // namespace memplan
