//===- op_roles.h - What each op does with a buffer, from MLIR's interfaces -*- C++ -*-===//
//
// The graph carries one role word per op and a forwarding table per operand,
// computed during extraction from MLIR's interfaces (lib/extract_roles.cpp),
// never from op names:
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
//     writes it, and whether a write covers the operand's whole region.
// An op with no effects information (no MemoryEffectOpInterface, no
// recursive effects) is an unknown user; its regions are unknown regions.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_OP_ROLES_H
#define MEMPLAN_OP_ROLES_H

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace memplan {

/// What an op does with a memref (or tensor) operand. Low byte of a role word.
enum LifetimeRole : int32_t {
  kRoleOther = 0,       ///< Unknown memory effects: `unknown-user`.
  kRoleAlloc = 1,       ///< Allocates a result on the heap.
  kRoleAlloca = 2,      ///< Allocates a result in the automatic allocation scope.
  kRoleDealloc = 3,     ///< Frees its only operand.
  kRoleAlias = 4,       ///< Its shaped results may alias the operand (views, casts, pure ops).
  kRoleAccess = 5,      ///< Reads/writes through the operand, no alias, no escape.
  kRoleStore = 6,       ///< Like access, but operand 0 is stored into memory.
  kRoleReturn = 7,      ///< Terminator of a function: escapes.
  kRoleCall = 8,        ///< A call: escapes.
  kRoleTerminator = 9,  ///< Region-branch terminator: operands flow per the table.
  kRoleBranch = 10,     ///< Region-branch op: operands flow into its regions per the table.
  kRoleFunc = 14,       ///< A function: a pooling scope.
  kRoleParallel = 15,   ///< Parallel region op: a pooling scope per body instance.
};

/// Flags above the role byte.
enum LifetimeRoleFlag : int32_t {
  kFlagCaptureOk = 1 << 8,   ///< Its regions may use outer buffers.
  kFlagSequential = 1 << 9,  ///< Its regions run one at a time during the op: hoisting is safe.
  kFlagExclusive = 1 << 10,  ///< Region branch op whose regions only return to it: at most one runs.
  kFlagAsync = 1 << 11,      ///< Its work (its regions' too) runs on after it returns: see asyncEnd.
  kFlagWholeView = 1 << 12,  ///< A view whose one result covers its one source exactly (same bytes, contiguous).
  kFlagAlwaysRuns = 1 << 13, ///< Region branch op each of whose regions runs at least once per execution
                             ///< (RegionBranchOpInterface::getRegionInvocationBounds, constant operands known).
};

/// What an op does with the memory behind one operand, from its memory
/// effects: bits per operand slot. An op without effects information reads
/// and writes every operand.
enum OperandAccess : int32_t {
  kAccessRead = 1,
  kAccessWrite = 2,
  kAccessFullWrite = 4,  ///< A write that covers the operand's whole region (EffectInstance::getEffectOnFullRegion).
};

/// Roles of the ops of a graph and where their operands flow.
struct OpRoleTable {
  std::vector<int32_t> role;        ///< Role word per op.
  std::vector<int32_t> flowBegin;   ///< CSR over operand slots, size numOperands+1.
  std::vector<int32_t> flowTarget;  ///< Value ids an operand is forwarded to.
  std::vector<int32_t> access;      ///< OperandAccess bits per operand slot.
  /// Per op with kFlagAsync: the op of its block that waits for its work
  /// (its completion point), or -1 when no op of its block does (the token
  /// escapes, is never awaited, or is awaited conditionally). -1 elsewhere.
  std::vector<int32_t> asyncEnd;
};

/// Classify the ops `opPtr` (MlirOperation storage, pre-order) whose operands
/// occupy slots [operandBegin[i], operandBegin[i+1]); `valueIds` maps MLIR
/// value handles (MlirValue::ptr) to graph value ids.
OpRoleTable classifyOps(const std::vector<void *> &opPtr, const std::vector<int32_t> &operandBegin,
                        const std::unordered_map<const void *, int32_t> &valueIds);

}  // namespace memplan

#endif  // MEMPLAN_OP_ROLES_H
