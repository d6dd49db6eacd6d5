//===- Transforms.h - memplan's rewrites of tensor programs -----*- C++ -*-===//
//
// Rewrites on MLIR's C++ API (lib/Peak/) that shape a tensor program
// for a low memory peak before bufferization. Each takes a module as an MLIR
// C API handle and returns what it did as plain counters, so the nanobind
// code (built with RTTI) never sees an MLIR C++ type.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_PEAK_TRANSFORMS_H
#define MEMPLAN_PEAK_TRANSFORMS_H

#include "memplan/Passes/OptionValues.h"
#include "memplan/Passes/PassOptions.def"

#include "mlir-c/IR.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// What `splitDestinations` did (memplan/Passes/Counters.def).
struct SplitDestinationsStats {
#define MEMPLAN_SPLIT_DESTINATIONS_COUNTER(Field, Py, Statistic, Doc)          \
  int64_t Field = 0;
#include "memplan/Passes/Counters.def"
};

/// Gives every op of a fresh destination's block that holds uses of it (a
/// side-effect free op without regions or tensor operands whose tensor
/// result bufferizes to a new allocation, as `tensor.empty`:
/// BufferizableOpInterface) its own copy, right before that op, shared by
/// the uses it holds (the uses inside one loop or branch share one, as
/// upstream allocates it), and moves a destination held by one op down to
/// it. A destination one of whose uses
/// reads it (BufferizableOpInterface) stays shared: the program reads
/// undefined contents, which bufferization makes what another use wrote. Tensor
/// semantics are unchanged (the op is pure); bufferization then allocates each
/// buffer where it is first written instead of where a shared destination
/// stood.
SplitDestinationsStats splitDestinations(MlirOperation root);

/// What `reuseDyingInputs` did (memplan/Passes/Counters.def).
struct DyingInputStats {
#define MEMPLAN_DYING_INPUT_COUNTER(Field, Py, Statistic, Doc)                 \
  int64_t Field = 0;
#include "memplan/Passes/Counters.def"
  bool analyzed = true; ///< False: the analysis failed; nothing changed.
};

/// reuseDyingInputs' options (memplan/Passes/PassOptions.def).
MEMPLAN_OPTIONS_STRUCT(DyingInputOptions, "memplan-reuse-dying-inputs",
                       MEMPLAN_DYING_INPUT_OPTIONS);

/// Lets an elementwise linalg op (all loops parallel, permutation maps,
/// scalar payload; upstream's `linalg::isElementwise`) whose destination is a
/// fresh one it does not read write into one of its inputs instead: an input
/// of the destination's type and indexing map that dies at the op and whose
/// buffer is the program's own (an allocation, not a function argument or a
/// constant). Legality is the in-place analysis': memplan's engine analyzes
/// the rewritten module (One-Shot Module Bufferize with function boundaries
/// when `options.functionBoundaries`) with the rewritten operands decided after
/// all the others, so that a rewrite is in place only where it costs no other
/// operand its decision; the rewrites it leaves out of place are undone one
/// by one, the others stay. A second analysis, in bufferization's order,
/// confirms that no tensor operand lost its in-place decision (otherwise the
/// rewrites of its function are undone). Unused destinations are erased.
DyingInputStats reuseDyingInputs(MlirOperation root,
                                 const DyingInputOptions &options);

/// What `reorderForMemory` did (memplan/Passes/Counters.def).
struct ReorderStats {
#define MEMPLAN_REORDER_COUNTER(Field, Py, Statistic, Doc) int64_t Field = 0;
#include "memplan/Passes/Counters.def"
  bool analyzed = true; ///< False: the analysis failed; nothing changed.
};

/// reorderForMemory's model and the bounds of its search (the pass' options:
/// memplan/Passes/PassOptions.def).
MEMPLAN_OPTIONS_STRUCT(ReorderOptions, "memplan-reorder-for-memory",
                       MEMPLAN_REORDER_OPTIONS);

/// Reorders the ops of each single-block function body for a lower memory
/// peak, keeping every use-def dependence, the relative order of every op
/// with memory effects, and, for each tensor an op writes in place (memplan's
/// in-place analysis), every read of what it held before that write. The
/// model: buffers are the analysis' alias sets with a member that bufferizes
/// to a new allocation (a fresh destination, or the copy of an operand left
/// out of place), live from the first op of the body that touches a member
/// to the last; a fresh destination with one user stays right before it;
/// and an elementwise op that memplan-reuse-dying-inputs may let write into
/// an input (DyingInputQueries) takes that input's buffer where it is the
/// buffer's last toucher. The order is a beam search over list schedules
/// within `options` (O(ops * width * (lookahead + branching)) steps, each over
/// an op's buffers; deterministic). A body is reordered only when its
/// modeled peak goes down, and put back when the analysis of the new order
/// leaves an operand out of place that was in place.
ReorderStats reorderForMemory(MlirOperation root,
                              const ReorderOptions &options);

/// What `recomputeCheapValues` is asked to do (the pass' options:
/// memplan/Passes/PassOptions.def): `remarks` records one remark per
/// decision in RecomputeStats::remarks; `maxAddedWorkPercent` is the work
/// one function may gain, in percent of its modeled work (loop iterations
/// times payload ops of its linalg ops), negative for no limit.
MEMPLAN_OPTIONS_STRUCT(RecomputeOptions, "memplan-recompute-cheap-values",
                       MEMPLAN_RECOMPUTE_OPTIONS);

/// A remark of a rewrite: where, and what it decided.
struct RewriteRemark {
  MlirLocation loc;
  std::string message;
};

/// What `eliminateSubsetCopies` did (memplan/Passes/Counters.def).
struct SubsetCopyStats {
#define MEMPLAN_SUBSET_COPY_COUNTER(Field, Py, Statistic, Doc)                 \
  int64_t Field = 0;
#include "memplan/Passes/Counters.def"
  bool analyzed = true; ///< False: the analysis failed; nothing changed.
  /// With the `remarks` option, one per candidate value: written in place,
  /// or why it stays a copy.
  std::vector<RewriteRemark> remarks;
};

/// What `eliminateSubsetCopies` is asked to do (the pass' options:
/// memplan/Passes/PassOptions.def): `remarks` records one remark per
/// candidate value in SubsetCopyStats::remarks.
MEMPLAN_OPTIONS_STRUCT(SubsetCopyOptions, "memplan-eliminate-subset-copies",
                       MEMPLAN_SUBSET_COPY_OPTIONS);

/// Lets the producers of a value copied into a subset of a larger tensor
/// (the source of a `tensor.pad`, an operand of a `tensor.concat`, the
/// source of a SubsetInsertionOpInterface op such as `tensor.insert_slice`)
/// write straight into that subset: when the value is made in a
/// single-block function body by a chain of destination-style ops (each
/// result used only by the next op's init) that starts at a fresh
/// destination, or at a fill-like op of one (cloned if shared), that
/// destination becomes a `tensor.extract_slice` of the larger tensor, made
/// (and filled with the padding value) right before the chain, and the copy
/// an `insert_slice` of the value into it. Static shapes only. A rewrite
/// stays only where memplan's engine, on a clone with every rewrite applied,
/// bufferizes its operands in place, no operand in place before loses that,
/// and the modeled peak of its function (alias sets rooted at allocations,
/// each live from its first to its last op) does not go up. Without
/// `apply`, the module stays as it is and the stats (remarks included) say
/// what the rewrite would do.
SubsetCopyStats eliminateSubsetCopies(MlirOperation root,
                                      const SubsetCopyOptions &options,
                                      bool apply = true);

/// What `recomputeCheapValues` did (memplan/Passes/Counters.def).
struct RecomputeStats {
#define MEMPLAN_RECOMPUTE_COUNTER(Field, Py, Statistic, Doc) int64_t Field = 0;
#include "memplan/Passes/Counters.def"
  std::vector<RewriteRemark> remarks;
};

/// Recomputes values that are cheap to compute (the ops computing them are
/// side-effect free and read only constants, scalars and other such values:
/// MemoryEffectOpInterface, ConstantLike, LinalgOp payloads) right before
/// each op of the function body that holds uses of them (one computation
/// per op, shared by its uses), instead of holding them from their
/// definition to their last use: torch-mlir's one zero fill serving a
/// matmul in every layer. Decided per function body by a model of the bytes
/// its tensors hold at every op (the dataflow bound in tensor terms): a
/// value is recomputed only where holding it costs bytes at the modeled
/// peak, which never rises, and the work added stays within the option's
/// share. Values computed inside a region of an op (a loop body, a branch)
/// are left alone.
RecomputeStats recomputeCheapValues(MlirOperation root,
                                    const RecomputeOptions &options);

/// What `foldTransposes` did (memplan/Passes/Counters.def).
struct FoldTransposesStats {
#define MEMPLAN_FOLD_TRANSPOSES_COUNTER(Field, Py, Statistic, Doc)             \
  int64_t Field = 0;
#include "memplan/Passes/Counters.def"
};

/// What `foldTransposes` is asked to do (the pass' options:
/// memplan/Passes/PassOptions.def).
MEMPLAN_OPTIONS_STRUCT(FoldTransposesOptions, "memplan-fold-transposes",
                       MEMPLAN_FOLD_TRANSPOSES_OPTIONS);

/// Folds layout copies (a LinalgOp on tensors whose payload forwards its
/// one input to its one init through a permutation or a broadcast:
/// linalg.transpose, linalg.broadcast, linalg.copy, such generics) into
/// their readers:
/// a LinalgOp input reads the copy's source through the composed indexing
/// map (the op with new maps where it takes them, else, with `generalize`,
/// the linalg.generic with the same loops and payload), `tensor.extract`
/// at the mapped indices, through reshapes that only insert or drop unit
/// dimensions. A copy is folded when every use reads through it; when one
/// cannot (it writes into the copy, returns it, ...), the other reads are
/// folded only if every kept use comes first and the source lives anyway
/// (a function argument, a constant). With `remarks`, one remark per
/// decision in `remarks`.
FoldTransposesStats foldTransposes(MlirOperation root,
                                   const FoldTransposesOptions &options,
                                   std::vector<RewriteRemark> &remarks);

} // namespace memplan

#endif // MEMPLAN_PEAK_TRANSFORMS_H
