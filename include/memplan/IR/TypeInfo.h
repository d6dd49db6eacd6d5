//===- TypeInfo.h - What the analyses know of an MLIR type ------*- C++ -*-===//
#ifndef MEMPLAN_IR_TYPEINFO_H
#define MEMPLAN_IR_TYPEINFO_H

#include "memplan/IR/Graph.h"

#include "mlir/IR/Types.h"

#include <string>

namespace memplan {

/// The TypeInfo of `type` (memplan/IR/Graph.h).
TypeInfo describeType(mlir::Type type);

/// Bytes per element of `type` at LLVM's default data-layout size, or -1
/// with the reason when memplan does not model it (memplan/IR/Graph.h).
int64_t elementLayout(mlir::Type type, std::string &reason);

} // namespace memplan

#endif // MEMPLAN_IR_TYPEINFO_H
