//===- LayoutCopies.h - Ops that only copy to a new layout ------*- C++ -*-===//
//
// A layout copy is a structured op (LinalgOp) that copies its one input into
// its one init element by element, through a permutation or a broadcast:
// linalg.transpose, linalg.broadcast, linalg.copy, and any linalg.generic
// that does the same. What it is comes from LinalgOp (indexing maps,
// iterator types, the payload), never from op names. memplan-fold-transposes
// folds such copies into their readers (lib/Peak/FoldTransposes.cpp);
// the liveness report names the transposes and broadcasts among them that
// it finds at the heap peak (OpInterfaceBit PermutedCopy).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_LAYOUTCOPIES_H
#define MEMPLAN_IR_LAYOUTCOPIES_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace memplan {

/// If `op` is a layout copy on tensors or on buffers (a LinalgOp with one
/// input, ranked, and one init, all loops parallel, whose payload yields the
/// input element unchanged, the init's map a permutation and the input's a
/// projected permutation), the map from an index of its init (or result) to
/// the index of its input that holds the same element.
std::optional<mlir::AffineMap> layoutCopyMap(mlir::Operation *op);

} // namespace memplan

#endif // MEMPLAN_IR_LAYOUTCOPIES_H
