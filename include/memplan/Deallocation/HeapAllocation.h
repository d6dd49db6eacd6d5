//===- HeapAllocation.h - Where an op allocates a result --------*- C++ -*-===//
//
// The one answer memplan's deallocation (Ownership.cpp, LoopCopies.cpp)
// gives to "does this op allocate its result on the heap?", from MLIR's
// MemoryEffectOpInterface. The deallocation verifier answers it on its own,
// on purpose: it must stay independent of what it checks.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_HEAPALLOCATION_H
#define MEMPLAN_DEALLOCATION_HEAPALLOCATION_H

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace memplan {

/// Where an op allocates one of its results.
enum class ResultAllocation {
  None,  ///< No Allocate effect on the result.
  Heap,  ///< An Allocate effect outside the automatic allocation scope.
  Stack, ///< An Allocate effect in the automatic allocation scope.
};

/// Where the op whose memory effects are `effects` allocates its result `r`;
/// of several Allocate effects on `r`, the last one says where.
ResultAllocation
allocationOf(llvm::ArrayRef<mlir::MemoryEffects::EffectInstance> effects,
             mlir::Value r);

/// The same from the effects of `op` (MemoryEffectOpInterface); None for an
/// op without effects information.
ResultAllocation allocationOf(mlir::Operation *op, mlir::Value r);

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_HEAPALLOCATION_H
