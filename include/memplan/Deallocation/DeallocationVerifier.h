//===- DeallocationVerifier.h - Every heap buffer freed once ----*- C++ -*-===//
//
// A checker of deallocated memref programs (the output of a deallocation
// pass), on MLIR's C++ API. It never changes the IR.
//
// What it proves, per function with a body (those of every builtin.module in
// the root), under the function boundary ABI of upstream's ownership-based
// deallocation (a callee never frees its arguments; every memref a function
// returns, and every memref a call returns, is a heap buffer the caller owns):
//   * every heap allocation (an Allocate effect outside the automatic
//     allocation scope: memref.alloc, bufferization.clone, call results) is
//     freed exactly once on every path through the function, or returned;
//   * nothing else is freed: no stack buffer (memref.alloca), no function
//     argument, no global or other memory the function did not allocate;
//   * no op reads or writes a buffer (through any view: ViewLikeOpInterface,
//     casts, pool views, extract_strided_metadata) after it was freed, no
//     function returns a freed buffer, and no buffer is freed while
//     asynchronous work that uses it (gpu::AsyncOpInterface, async.execute)
//     may still run: a buffer stays busy until an op waits for a completion
//     value of that work (the rules of the lifetime analysis, OpRoles.h).
// Paths: the function is run abstractly, one state per set of paths that
// agree on every buffer's state and on every flag that decides a branch
// (i1 values: constants, values forwarded through regions and blocks, and
// what the ops fold them to; heap addresses compared for equality). Region
// ops are run through RegionBranchOpInterface (scf.if both branches, scf.for
// zero and any number of trips, scf.while, ...), branches through
// BranchOpInterface, both to a fixpoint; an unknown i1 condition splits the
// paths and is remembered on each, so later branches on it agree. Paths that
// could only happen for conditions that contradict each other through values
// the checker does not fold are checked too (sound, possibly pessimistic).
// Where it cannot prove something (an op without memory effects information
// touching a buffer, a conditional free such as bufferization.dealloc, more
// paths than it follows), it says so with a warning: an `unproven` issue.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_DEALLOCATIONVERIFIER_H
#define MEMPLAN_DEALLOCATION_DEALLOCATIONVERIFIER_H

#include "mlir-c/IR.h"

#include <string>
#include <utility>
#include <vector>

namespace memplan {

/// One violation (or one thing the checker could not prove).
struct DeallocIssue {
  /// double-free, invalid-free, leak, use-after-free, async-free,
  /// bad-return, or unproven (a warning; the others are errors).
  std::string kind;
  MlirLocation location;
  std::string message;
  std::vector<std::pair<MlirLocation, std::string>> notes;
  bool isError() const { return kind != "unproven"; }
};

/// The issues of every function under `root` (a module or a function), in
/// the order found, each (kind, op, allocation) reported once.
std::vector<DeallocIssue> verifyDeallocation(MlirOperation root);

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_DEALLOCATIONVERIFIER_H
