//===- OpRoles.h - What ops do with buffers, by interfaces ------*- C++ -*-===//
//
// The graph carries one role word per op and a forwarding table per operand,
// computed with the numbering from MLIR's interfaces
// (lib/analysis/OpRoles.cpp), never from op names:
//   * MemoryEffectOpInterface: allocate (heap or automatic allocation scope),
//     free, read and write effects on operands;
//   * ViewLikeOpInterface, and results an op does not allocate: aliases;
//   * CallOpInterface, a terminator of a FunctionOpInterface: escapes;
//   * RegionBranchOpInterface / RegionBranchTerminatorOpInterface: which
//     operand flows into which region argument or result (the forwarding
//     table), that the regions run one at a time during the op, and whether
//     they are exclusive (each returns to the op: scf.if's branches);
//   * HasParallelRegion: a pooling scope per body instance;
//   * FunctionOpInterface: a pooling scope;
//   * gpu::AsyncOpInterface (an async token result) and async.execute: work
//     on buffers that goes on after the op returns, until the op in its block
//     that waits for it (its completion point, followed through the ops that
//     chain tokens: async dependencies, async.execute, async.add_to_group);
//   * MemoryEffectOpInterface again: per operand, whether the op reads it,
//     writes it, and whether a write covers the operand's whole region;
//   * MemoryEffectOpInterface and ConditionallySpeculatable: per op, whether
//     its results can be recomputed elsewhere (OpPurity);
//   * ViewLikeOpInterface again: per op, the operand that is its view source.
// An op with no effects information (no MemoryEffectOpInterface, no
// recursive effects) is an unknown user; its regions are unknown regions.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_ANALYSIS_OPROLES_H
#define MEMPLAN_ANALYSIS_OPROLES_H

#include <cstdint>

namespace memplan {

// Each enum below is written once, as a list macro: the C++ enumerators and
// the Python enums of memplan._core (lib/bindings/GraphBindings.cpp) are both
// made from it. X(Name, PYTHON_NAME, value, doc); flags also carry the short
// name memplan.lifetimes.roles.describe prints.

/// What an op does with a memref (or tensor) operand. Low byte of a role word.
#define MEMPLAN_LIFETIME_ROLES(X)                                              \
  X(Other, OTHER, 0, "Unknown memory effects: `unknown-user`.")                \
  X(Alloc, ALLOC, 1, "Allocates a result on the heap.")                        \
  X(Alloca, ALLOCA, 2,                                                         \
    "Allocates a result in the automatic allocation scope.")                   \
  X(Dealloc, DEALLOC, 3, "Frees its only operand.")                            \
  X(Alias, ALIAS, 4,                                                           \
    "Its shaped results may alias the operand (views, casts, pure ops).")      \
  X(Access, ACCESS, 5,                                                         \
    "Reads/writes through the operand, no alias, no escape.")                  \
  X(Store, STORE, 6, "Like access, but operand 0 is stored into memory.")      \
  X(Return, RETURN, 7, "Terminator of a function: escapes.")                   \
  X(Call, CALL, 8, "A call: escapes.")                                         \
  X(Terminator, TERMINATOR, 9,                                                 \
    "Region-branch terminator: operands flow per the table.")                  \
  X(Branch, BRANCH, 10,                                                        \
    "Region-branch op: operands flow into its regions per the table.")         \
  X(Func, FUNC, 14, "A function: a pooling scope.")                            \
  X(Parallel, PARALLEL, 15,                                                    \
    "Parallel region op: a pooling scope per body instance.")

enum LifetimeRole : int32_t {
#define MEMPLAN_ROLE_ENUMERATOR(Name, Py, Value, Doc) kRole##Name = Value,
  MEMPLAN_LIFETIME_ROLES(MEMPLAN_ROLE_ENUMERATOR)
#undef MEMPLAN_ROLE_ENUMERATOR
};

/// Flags above the role byte.
#define MEMPLAN_LIFETIME_ROLE_FLAGS(X)                                         \
  X(CaptureOk, CAPTURE_OK, 1 << 8, "capture",                                  \
    "Its regions may use outer buffers.")                                      \
  X(Sequential, SEQUENTIAL, 1 << 9, "sequential",                              \
    "Its regions run one at a time during the op: hoisting is safe.")          \
  X(Exclusive, EXCLUSIVE, 1 << 10, "exclusive",                                \
    "Region branch op whose regions only return to it: at most one runs.")     \
  X(Async, ASYNC, 1 << 11, "async",                                            \
    "Its work (its regions' too) runs on after it returns: see asyncEnd.")     \
  X(WholeView, WHOLE_VIEW, 1 << 12, "whole-view",                              \
    "A view whose one result covers its one source exactly (same bytes, "      \
    "contiguous).")                                                            \
  X(AlwaysRuns, ALWAYS_RUNS, 1 << 13, "always-runs",                           \
    "Region branch op each of whose regions runs at least once per execution " \
    "(RegionBranchOpInterface::getRegionInvocationBounds, constant operands "  \
    "known).")

enum LifetimeRoleFlag : int32_t {
#define MEMPLAN_ROLE_FLAG_ENUMERATOR(Name, Py, Value, Short, Doc)              \
  kFlag##Name = Value,
  MEMPLAN_LIFETIME_ROLE_FLAGS(MEMPLAN_ROLE_FLAG_ENUMERATOR)
#undef MEMPLAN_ROLE_FLAG_ENUMERATOR
};

/// Whether an op's results can be recomputed elsewhere, from its memory
/// effects (MemoryEffectOpInterface, recursive effects) and its
/// speculatability (ConditionallySpeculatable): bits per op.
#define MEMPLAN_OP_PURITY(X)                                                   \
  X(EffectFree, EFFECT_FREE, 1,                                                \
    "No memory effects and no regions: its results are a function of its "     \
    "operands.")                                                               \
  X(Speculatable, SPECULATABLE, 2,                                             \
    "May run where its guard would not let it (getSpeculatability; a "         \
    "division by a constant "                                                  \
    "that is not 0, nor -1 when signed).")                                     \
  X(ReadsOnly, READS_ONLY, 4, "Reads memory and has no other effect: a load.")

enum OpPurity : int32_t {
#define MEMPLAN_PURITY_ENUMERATOR(Name, Py, Value, Doc) kPurity##Name = Value,
  MEMPLAN_OP_PURITY(MEMPLAN_PURITY_ENUMERATOR)
#undef MEMPLAN_PURITY_ENUMERATOR
};

/// What an op does with the memory behind one operand, from its memory
/// effects: bits per operand slot. An op without effects information reads
/// and writes every operand.
enum OperandAccess : int32_t {
  kAccessRead = 1,
  kAccessWrite = 2,
  kAccessFullWrite = 4, ///< A write that covers the operand's whole region
                        ///< (EffectInstance::getEffectOnFullRegion).
};

} // namespace memplan

#endif // MEMPLAN_ANALYSIS_OPROLES_H
