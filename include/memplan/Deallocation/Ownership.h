//===- Ownership.h - Which block frees each buffer, and where ---*- C++ -*-===//
//
// The analysis behind memplan-buffer-deallocation, on MLIR's C++ API. It
// never changes the IR; lib/Deallocation/InsertDeallocs.cpp applies its plan.
//
// Every memref value of a function points into the buffer of one *handle*:
// an allocation (an Allocate effect outside the automatic allocation scope),
// a call result (the caller owns what a call returns), a function argument,
// a stack buffer, other memory (memref.get_global), a select of several
// memrefs, or a *merge*: a value several edges may bring, the result or
// region argument of a RegionBranchOpInterface op and the argument of a
// block that branches (BranchOpInterface) reach. Views (ViewLikeOpInterface,
// and ops whose one memref operand their memref result aliases) point into
// their source's handle.
//
// A handle is owned by the block it is defined in: Yes (allocations, call
// results), No (arguments, stack, globals, selects), or, for a merge, what
// its incoming edges bring: an edge leaving a block hands the merge the
// ownership of the handle it forwards when that block owns it (Yes or
// Dynamic), forwards it first among the edge's operands, and, for a branch,
// does not need it in the successor any more; the parent op's entry into its
// regions never hands ownership over (upstream's rule). Where all incoming
// edges agree the merge's ownership is static; where they do not it is
// Dynamic, and a run-time i1 flag travels with it (appended to the region
// op's results, region arguments and terminator operands, or to the block's
// arguments and the branch operands, as upstream's ownership-based
// deallocation does), so only what the paths disagree on costs a flag. The
// lattice is solved over all merges of a function at once, loops included.
//
// A select (an op of several memref operands that names one of them),
// forwarded on an edge, takes over the buffers its block owns among its
// sources when each is last used at the select but through it: each buffer
// it did not select is freed right after it (a run-time comparison of
// aligned pointers), and it is owned (Yes), or, when it may select a value
// it does not own, owned where a flag computed from the same comparison
// says so. The merges it reaches then need no buffer they may point into
// on a path that did not allocate it. A region op's result that no edge
// hands ownership to is such a select of the values its edges bring, known
// once the op is done. A select that is not forwarded takes its sources over
// only where it owns them all: the ones it did not select are freed right
// after it instead of after its last use, as upstream's ownership-based
// deallocation frees them.
//
// A handle the block owns is freed right after the op of its block that
// holds the last use of any value that may point into its buffer without
// owning it (views, merges it reaches without handing over ownership,
// selects; asynchronous work until the op that waits for it), unless an
// edge hands it over. In a multi-block region (no loops of branches) the
// free follows the liveness of those values over the blocks; where a buffer
// dies on one edge of a branch only, the edge is split. A function returns
// what it owns as is, and a copy of anything else (upstream's function
// boundary ABI: the caller owns every returned memref); a value every
// return gives at several positions is one buffer there, returned as is or
// copied once, and the caller frees it once. A returned select or merge
// that may be, at run time, a buffer the function owns and frees at that
// return is compared with it there: where it is that buffer, the buffer is
// handed to the caller as is (not copied, not freed), as upstream's
// run-time ownership does; a copy is made only where it is not.
//
// A function the analysis cannot reason about (an op without memory
// effects information on buffers, regions without RegionBranchOpInterface
// holding buffers, a loop of branches, frees the input already has other
// than of an allocation of the same block, ...) is left to upstream's
// ownership-based deallocation, with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_DEALLOCATION_OWNERSHIP_H
#define MEMPLAN_DEALLOCATION_OWNERSHIP_H

#include "memplan/Deallocation/DeallocationPlan.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace memplan {

/// What one function needs: frees, flags and copies (as plain data:
/// memplan/Deallocation/DeallocationPlan.h; Ownership is declared there).
struct FunctionPlan {
  mlir::Operation *func = nullptr;
  /// Why memplan leaves the function to upstream (empty: it does not), and
  /// the op that is about.
  std::string left;
  mlir::Operation *leftAt = nullptr;

  /// The handles and their ownership.
  std::vector<mlir::Value> handles;
  std::vector<Ownership> ownership;

  /// Merges that carry a run-time flag (block arguments and region-op
  /// results), in no particular order: the rewrite appends one i1 per such
  /// value, in the order of the values in their list.
  llvm::SetVector<mlir::Value> flagged;

  /// The ownership an edge brings into a flagged merge: none, the handle's
  /// (Yes: true; Dynamic: its flag).
  struct Incoming {
    int32_t handle = -1;
    Ownership ownership = Ownership::No;
  };
  /// The flags to append to one operand list: a region terminator's (all
  /// its successors share it), a region op's entry operands, or one
  /// successor of a branch. One per flagged input of the successor(s), in
  /// input order.
  struct FlagList {
    mlir::Operation *op = nullptr;
    bool entry = false; ///< The region op's own operands.
    int successor = -1; ///< For a branch: the successor index.
    std::vector<Incoming> flags;
  };
  std::vector<FlagList> flagLists;

  /// An owning select that may select a buffer it did not take over: its
  /// flag (computed right after it) is whether its aligned pointer is one
  /// of `taken`'s.
  struct SelectFlag {
    int32_t select = -1;
    std::vector<int32_t> taken;
  };
  std::vector<SelectFlag> selectFlags;

  /// A free of a handle: right after `after`, right before `before`, at the
  /// start of `atStart`, or on the edge from branch `edge` to its successor
  /// `edgeSuccessor` (split). Conditional on the flag for Dynamic handles.
  struct Free {
    int32_t handle = -1;
    mlir::Operation *after = nullptr;
    mlir::Operation *before = nullptr;
    mlir::Block *atStart = nullptr;
    mlir::Operation *edge = nullptr;
    unsigned edgeSuccessor = 0;
    /// A buffer a select took over (an owning select, see below): freed
    /// only where the select's value is not this buffer (their aligned
    /// pointers differ at run time).
    int32_t unlessSelected = -1;
    /// A buffer freed right before a return whose copies may hand it to the
    /// caller instead (ReturnCopy::takeOver): freed only where none did.
    bool unlessReturned = false;
  };
  std::vector<Free> frees;

  /// A returned memref the function does not own (or returns twice): the
  /// return gets a copy (`conditional`: only where the handle's flag is
  /// false).
  struct ReturnCopy {
    mlir::Operation *ret = nullptr;
    unsigned operand = 0;
    int32_t handle = -1;
    bool conditional = false;
    /// An earlier operand of the same return that every return gives the
    /// same value (repeatedResults): this one takes that operand's copy
    /// (cast to its type).
    int32_t sameAs = -1;
    /// Owned handles freed right before the return that the value may be at
    /// run time (through selects and merges): where it is one of them (their
    /// aligned pointers agree, the block owns it, and no earlier position of
    /// the return took it), the return hands that buffer to the caller as
    /// is, and neither copies it nor frees it (upstream's run-time ownership
    /// at the function boundary).
    std::vector<int32_t> takeOver;
  };
  std::vector<ReturnCopy> returnCopies;

  /// A returned merge that always holds one value of its type (through
  /// casts: an scf.if whose branches yield a value and a cast back of it):
  /// the rewrite returns that value, so that a value returned at several
  /// positions is seen as one (repeatedResults), and analyzes again.
  struct ReturnForward {
    mlir::Operation *ret = nullptr;
    unsigned operand = 0;
    mlir::Value value;
  };
  std::vector<ReturnForward> returnForwards;

  /// Handles memplan does not free because asynchronous work that uses them
  /// is never awaited in their block (with the op that starts that work).
  std::vector<std::pair<int32_t, mlir::Operation *>> unawaited;

  /// Heap allocations of a left function (what upstream's pass is run for).
  unsigned leftAllocations = 0;
};

/// Per result of `func`: the first earlier result that every return of
/// the function gives the same memref value (or casts of one value, of
/// types memref.cast allows), or -1 (no body or returns, a
/// result of its own). The function boundary ABI for those: one buffer at
/// both positions, which the caller frees once (a call's repeated results
/// are its earlier result under another name).
llvm::SmallVector<int32_t> repeatedResults(mlir::Operation *func);

/// The plan of every function with a body under `root` (those of
/// builtin.modules, nested ones included).
std::vector<FunctionPlan> analyzeOwnership(mlir::Operation *root);

} // namespace memplan

#endif // MEMPLAN_DEALLOCATION_OWNERSHIP_H
