"""What each op does with a buffer operand: the role words the IR bridge
computes from MLIR's interfaces (``lib/IR/OpRoles.cpp``, documented in
``include/memplan/IR/OpRoles.h``), one per op in ``graph.op_role``.

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

from memplan import _core
from memplan.ir.graph import Graph

#: The enums of ``include/memplan/IR/OpRoles.h``, exported by the C++ core: a
#: role (low byte of a role word) and the flags above it.
Role = _core.LifetimeRole
Flag = _core.LifetimeRoleFlag

OTHER, ALLOC, ALLOCA, DEALLOC = Role.OTHER, Role.ALLOC, Role.ALLOCA, Role.DEALLOC
ALIAS, ACCESS, STORE, RETURN, CALL = Role.ALIAS, Role.ACCESS, Role.STORE, Role.RETURN, Role.CALL
TERMINATOR, BRANCH, FUNC, PARALLEL = Role.TERMINATOR, Role.BRANCH, Role.FUNC, Role.PARALLEL
CAPTURE_OK, SEQUENTIAL, EXCLUSIVE = Flag.CAPTURE_OK, Flag.SEQUENTIAL, Flag.EXCLUSIVE
ALWAYS_RUNS, ONE_RUNS = Flag.ALWAYS_RUNS, Flag.ONE_RUNS

KIND_NAMES: dict[int, str] = {int(r): r.name.lower() for r in Role}


def kind(graph: Graph, op: int) -> int:
    """The role kind (low byte) of op ``op``."""
    return int(graph.op_role[op]) & 0xFF


def frees(graph: Graph, value: int) -> list[int]:
    """The ops that free value ``value`` (its ``DEALLOC`` users), in use order."""
    return [
        int(graph.use_op[u])
        for u in range(int(graph.use_begin[value]), int(graph.use_begin[value + 1]))
        if kind(graph, int(graph.use_op[u])) == DEALLOC
    ]


def describe(role: int) -> str:
    """Readable form of a role word, e.g. ``branch+capture+sequential``."""
    text = KIND_NAMES.get(role & 0xFF, str(role & 0xFF))
    for flag in Flag:
        if role & flag:
            text += "+" + _core.ROLE_FLAG_SHORT_NAMES[flag.name]
    return text


def flows(graph: Graph, op: int, operand: int) -> np.ndarray:
    """Value ids that operand ``operand`` of region-branch op (or terminator)
    ``op`` is forwarded to."""
    slot = int(graph.operand_begin[op]) + operand
    return graph.flow_target[graph.flow_begin[slot] : graph.flow_begin[slot + 1]]


__all__ = ["Role", "Flag", "kind", "describe", "flows", "KIND_NAMES"]
