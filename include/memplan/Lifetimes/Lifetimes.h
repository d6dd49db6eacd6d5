//===- Lifetimes.h - Live intervals of buffers over the graph ---*- C++ -*-===//
//
// The hot path of the buffer lifetime analysis. Given the graph (with the
// role of every op and the forwarding table of region-branch operands, both
// from MLIR's interfaces: memplan/IR/OpRoles.h) and the root values to
// follow (allocation results, or pool views for the checker), compute per root:
//   * its live interval [start, end) over pre-order op ids, with every use of
//     every alias lifted to the op in the root's block that encloses it (so a
//     use inside a region keeps the buffer live across the whole region op);
//   * its dealloc (a `memref.dealloc` of the root itself, in the root's block);
//   * its pooling scope (the entry block of the function, or the body of the
//     nearest parallel op), hoisting through known sequential region ops;
//   * a bit mask of reasons why it cannot be pooled;
//   * the segments of program points where its contents are needed: from
//     the first read or write to the last one before the next write that
//     covers the whole buffer without reading it (a full overwrite, from the
//     ops' memory effects), and so on; a root whose uses are not all
//     understood has one segment from its first access to the end of its
//     interval.
// One breadth-first walk over the alias closure per root: O(uses * depth).
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_LIFETIMES_LIFETIMES_H
#define MEMPLAN_LIFETIMES_LIFETIMES_H

#include "memplan/IR/Graph.h"
#include "memplan/IR/OpRoles.h"

#include <cstdint>
#include <vector>

namespace memplan {

/// Reasons an allocation is not pooled, as bits; lower bits take precedence
/// (an allocation's primary reason is its lowest set bit). Written once, in
/// memplan/Lifetimes/LifetimeReasons.def (with memplan._core.LifetimeReason).
/// The kernel here sets the reasons before kReasonUnsupportedElementType; the
/// Python analysis (memplan.lifetimes.analysis) sets the rest, from types and
/// sizes.
enum LifetimeReason : int32_t {
#define MEMPLAN_LIFETIME_REASON(Name, Py, Doc) kReason##Name,
#include "memplan/Lifetimes/LifetimeReasons.def"
  kNumReasons,
};

/// Per root, one int32 column of memplan/Lifetimes/LifetimeColumns.def each.
struct LifetimeTable {
#define MEMPLAN_LIFETIME_COLUMN(Field, Py) std::vector<int32_t> Field;
#include "memplan/Lifetimes/LifetimeColumns.def"
};

/// The pooling scope of each block (-1: none): hoisting out of a block goes
/// through region-branch ops whose regions run one at a time during the op
/// (and, with `pathSafe`, at least once per execution of it), up to a
/// function body or the body of a parallel op. With `pathSafe`, a region
/// that may not run on some path (an scf.if branch, a loop of unknown trip
/// count) is a scope of its own: a pool outside it would hold bytes on paths
/// that never allocate them. -1 for a block in a multi-block region, or
/// under a region op whose regions' execution memplan does not model.
std::vector<int32_t> blockScopes(const Graph &g, bool pathSafe);

/// Analyze the given roots. A root with reasons stays live until its dealloc
/// (or, without one, the end of its block).
LifetimeTable analyzeLifetimes(const Graph &g, const int32_t *roots,
                               size_t numRoots);

} // namespace memplan

#endif // MEMPLAN_LIFETIMES_LIFETIMES_H
