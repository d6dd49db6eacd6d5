//===- extract.h - Build a Graph from live MLIR IR ----------------*- C++ -*-===//
//
// Walks an operation through the MLIR C API of the bindings wheel, in the same
// process and context as the Python objects, and fills a Graph.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_EXTRACT_H
#define MEMPLAN_EXTRACT_H

#include "memplan/graph.h"

#include "mlir-c/IR.h"

#include <cstdint>
#include <optional>
#include <string>

namespace memplan {

/// Bytes per element of `type` at LLVM's default data-layout size (integers
/// above 64 bits rounded up to 16 bytes, the largest alignment layouts give
/// them), or -1 with the reason when memplan does not model it.
int64_t elementLayout(MlirType type, std::string &reason);

/// Extracts the graph of the operation stored at `opPtr` (an MlirOperation).
Graph extractGraph(void *opPtr);

/// Printed location of the op (e.g. `loc("f.mlir":3:5)`).
std::string opLocation(void *opPtr);

/// The op printed with default flags (optionally without verifying it first).
std::string printOperation(MlirOperation op, bool assumeVerified);

/// Whether the op has an attribute `name`.
bool opHasAttribute(void *opPtr, const std::string &name);

/// Value of the op's attribute `name` when it is an IntegerAttr (of `index`
/// or an integer type of at most 64 bits; signless values sign-extended, so
/// an i1 `true` (a BoolAttr) is -1); nullopt when absent, of another kind, or
/// not representable.
std::optional<int64_t> opIntegerAttribute(void *opPtr, const std::string &name);

/// Value of the op's attribute `name` when it is a StringAttr.
std::optional<std::string> opStringAttribute(void *opPtr, const std::string &name);

/// Symbol of the op's attribute `name` when it is a FlatSymbolRefAttr
/// (without the `@`).
std::optional<std::string> opSymbolAttribute(void *opPtr, const std::string &name);

}  // namespace memplan

#endif  // MEMPLAN_EXTRACT_H
