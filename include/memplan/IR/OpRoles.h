//===- OpRoles.h - What ops do with buffers, by interfaces ------*- C++ -*-===//
//
// The graph carries one role word per op and a forwarding table per operand,
// computed with the numbering from MLIR's interfaces
// (lib/IR/OpRoles.cpp), never from op names:
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
//   * ViewLikeOpInterface again: per op, the operand that is its view source;
//   * FunctionOpInterface, ModuleOp, CastOpInterface, ShapedDimOpInterface,
//     OffsetSizeAndStrideOpInterface and the ConstantLike trait: per op, which
//     of them it is (OpInterfaceBit).
// An op with no effects information (no MemoryEffectOpInterface, no
// recursive effects) is an unknown user; its regions are unknown regions.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPLAN_IR_OPROLES_H
#define MEMPLAN_IR_OPROLES_H

#include <cstdint>

namespace memplan {

// Each enum below is written once, in memplan/IR/OpRoles.def: the C++
// enumerators and the Python enums of memplan._core
// (lib/Bindings/GraphBindings.cpp) are both made from it.

/// What an op does with a memref (or tensor) operand. Low byte of a role word.
enum LifetimeRole : int32_t {
#define MEMPLAN_LIFETIME_ROLE(Name, Py, Value, Doc) kRole##Name = Value,
#include "memplan/IR/OpRoles.def"
};

/// Flags above the role byte.
enum LifetimeRoleFlag : int32_t {
#define MEMPLAN_LIFETIME_ROLE_FLAG(Name, Py, Value, Short, Doc)                \
  kFlag##Name = Value,
#include "memplan/IR/OpRoles.def"
};

/// Whether an op's results can be recomputed elsewhere, from its memory
/// effects (MemoryEffectOpInterface, recursive effects) and its
/// speculatability (ConditionallySpeculatable): bits per op.
enum OpPurity : int32_t {
#define MEMPLAN_OP_PURITY_BIT(Name, Py, Value, Doc) kPurity##Name = Value,
#include "memplan/IR/OpRoles.def"
};

/// What an op is (FunctionOpInterface, CastOpInterface, ...): bits per op.
enum OpInterfaceBit : int32_t {
#define MEMPLAN_OP_INTERFACE_BIT(Name, Py, Value, Doc) kInterface##Name = Value,
#include "memplan/IR/OpRoles.def"
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

#endif // MEMPLAN_IR_OPROLES_H
