"""What each op does with a buffer operand: the role words the IR bridge
computes from MLIR's interfaces (``lib/extract_roles.cpp``, documented in
``include/memplan/op_roles.h``), one per op in ``graph.op_role``.

The low byte says how a buffer flows through the op; two flag bits say
whether the op's regions may use outer buffers and whether they run one at a
time during the op (so allocations inside may be hoisted into the enclosing
pool). Region-branch ops and their terminators forward operands as
``graph.flow_begin`` / ``graph.flow_target`` say (RegionBranchOpInterface).
An op without effects information has the role ``OTHER``: a buffer it uses
is ``unknown-user``, an allocation nested in its regions ``unknown-region``.
"""

from __future__ import annotations

import numpy as np

from memplan.ir.graph import Graph

# Role codes; the values of LifetimeRole in include/memplan/op_roles.h.
OTHER, ALLOC, ALLOCA, DEALLOC, ALIAS, ACCESS, STORE, RETURN, CALL, TERMINATOR, BRANCH = range(11)
FUNC, PARALLEL = 14, 15
CAPTURE_OK = 1 << 8
SEQUENTIAL = 1 << 9
EXCLUSIVE = 1 << 10

KIND_NAMES: dict[int, str] = {
    OTHER: "other", ALLOC: "alloc", ALLOCA: "alloca", DEALLOC: "dealloc", ALIAS: "alias",
    ACCESS: "access", STORE: "store", RETURN: "return", CALL: "call", TERMINATOR: "terminator",
    BRANCH: "branch", FUNC: "func", PARALLEL: "parallel",
}


def kind(graph: Graph, op: int) -> int:
    """The role kind (low byte) of op ``op``."""
    return int(graph.op_role[op]) & 0xFF


def describe(role: int) -> str:
    """Readable form of a role word, e.g. ``branch+capture+sequential``."""
    text = KIND_NAMES.get(role & 0xFF, str(role & 0xFF))
    if role & CAPTURE_OK:
        text += "+capture"
    if role & SEQUENTIAL:
        text += "+sequential"
    if role & EXCLUSIVE:
        text += "+exclusive"
    return text


def flows(graph: Graph, op: int, operand: int) -> np.ndarray:
    """Value ids that operand ``operand`` of region-branch op (or terminator)
    ``op`` is forwarded to."""
    slot = int(graph.operand_begin[op]) + operand
    return graph.flow_target[graph.flow_begin[slot] : graph.flow_begin[slot + 1]]


__all__ = ["kind", "describe", "flows", "KIND_NAMES"]
