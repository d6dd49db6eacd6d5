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

#include <string>

namespace memplan {

/// Extracts the graph of the operation stored at `opPtr` (an MlirOperation).
Graph extractGraph(void *opPtr);

/// Printed location of the op (e.g. `loc("f.mlir":3:5)`).
std::string opLocation(void *opPtr);

/// The op printed with default flags (optionally without verifying it first).
std::string printOperation(MlirOperation op, bool assumeVerified);

/// Printed attribute `name` of the op, or empty when absent; `found` tells.
std::string opAttribute(void *opPtr, const std::string &name, bool &found);

}  // namespace memplan

#endif  // MEMPLAN_EXTRACT_H
