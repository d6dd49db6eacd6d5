//===- AsyncWork.h - When asynchronous work on buffers is done --*- C++ -*-===//
//
// The rules the lifetime analysis (OpRoles.cpp) and the deallocation
// verifier share for asynchronous work: which values complete when an op's
// work is done, and how later ops chain or wait for them.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_ASYNCWORK_H
#define MEMPLAN_IR_ASYNCWORK_H

#include "mlir/IR/Operation.h"

namespace memplan {

/// The values that complete when the asynchronous work `op` starts is done:
/// the token of a gpu::AsyncOpInterface op, the token and values of an
/// async.execute. Empty for an op whose work is done when it returns.
llvm::SmallVector<mlir::Value> asyncCompletions(mlir::Operation *op);

/// What an op does with pending completion values.
enum class AsyncStep {
  None,   ///< Nothing: it does not wait for any of them.
  Waits,  ///< The host waits until one of them completes.
  Chains, ///< Values it appended to `chained` complete after them.
};

/// What `next` does with the values `isPending` accepts: a gpu async op
/// waits for its dependencies (without a token of its own: gpu.wait, a
/// synchronous gpu.memcpy, the host waits; with one, the token completes
/// after them); async.await and async.await_all wait; an async.execute
/// starts after its dependencies and operands (its results complete after
/// them); async.add_to_group puts a value in a group.
AsyncStep asyncStep(mlir::Operation *next,
                    llvm::function_ref<bool(mlir::Value)> isPending,
                    llvm::SmallVectorImpl<mlir::Value> &chained);

/// The first op after `op` in its block that waits until the work `op`
/// started (whose completion values are `completions`) is done, or null (the
/// rules of asyncStep). An op nested in a later op of the block may not run:
/// it does not count, and nor does any other use (passed to a call,
/// returned, yielded, stored).
mlir::Operation *completionPoint(mlir::Operation *op,
                                 llvm::ArrayRef<mlir::Value> completions);

} // namespace memplan

#endif // MEMPLAN_IR_ASYNCWORK_H
