//===- Dominance.h - Op order and dominance by DominanceInfo ----*- C++ -*-===//
//
// The one implementation of op ordering and dominance behind the Graph's
// queries: MLIR's DominanceInfo over the live IR (CFG regions, graph
// regions, nested regions), built lazily once per graph. Compiled on MLIR's
// C++ API (lib/analysis/Dominance.cpp); this header only has plain C++ and C
// API types so that nanobind code can include it.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_DOMINANCE_H
#define MEMPLAN_ANALYSIS_DOMINANCE_H

#include "mlir-c/IR.h"

#include <memory>

namespace memplan {

/// DominanceInfo of the regions under one root op (opaque).
class OpDominance;

/// Dominance over the regions of `root` (an MlirOperation).
std::shared_ptr<OpDominance> makeOpDominance(MlirOperation root);

/// `a` properly dominates `b`, an op never dominating the ops nested in it
/// (DominanceInfo::properlyDominates with enclosingOpOk = false).
bool opProperlyDominates(const OpDominance &d, MlirOperation a,
                         MlirOperation b);

/// Upstream One-Shot Analysis's happens-before: `a`, or an op enclosing it
/// that does not enclose `b`, properly dominates `b`.
bool opHappensBefore(const OpDominance &d, MlirOperation a, MlirOperation b);

/// The value `v` properly dominates the op `b` (DominanceInfo: a result is
/// available after its op, outside the op's regions; a block argument in
/// the blocks its block dominates).
bool valueProperlyDominates(const OpDominance &d, MlirValue v, MlirOperation b);

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_DOMINANCE_H
