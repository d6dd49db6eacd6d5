"""Backward slices of index values: can a size be recomputed at function entry?

A dynamic allocation size can be hoisted when its backward slice holds only
ops without memory effects and without regions (``arith``, ``index``,
``affine.apply/min/max``, ``memref.dim``/``tensor.dim`` of arguments,
constants: whatever MLIR's MemoryEffectOpInterface says is effect-free) over
the function's arguments; outside the entry block, each op must also be
speculatable (ConditionallySpeculatable: a division by a value that may be
zero is not). The C++ core asks the interfaces (``Graph.op_purity``,
``include/memplan/IR/OpRoles.h``). The slice is then cloned where it is needed:
at the function entry, into a caller (arguments mapped to call operands), or
into a generated size-query function. Anything else blocks hoisting, with the
reason and the op responsible, so passes can report it with a location.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence, TypeVar, Union

from memplan import _core
from memplan.ir.graph import (  # noqa: F401 (ir_value re-exported)
    Graph,
    entry_block,
    ir_value,
    operation,
)

_EFFECT_FREE = int(_core.OpPurity.EFFECT_FREE)
_SPECULATABLE = int(_core.OpPurity.SPECULATABLE)
_READS_ONLY = int(_core.OpPurity.READS_ONLY)
_CALL = int(_core.LifetimeRole.CALL)


@dataclass(frozen=True)
class Hoistable:
    """The value's slice: op ids in program order, all pure, rooted at args."""

    ops: tuple[int, ...]
    args: frozenset[int]  # entry-block argument value ids it reads


@dataclass(frozen=True)
class Blocked:
    """Why a value cannot be recomputed at the function entry."""

    kind: str  # "load", "mutable-global", "call", "region-value", "unknown-op", "guarded"
    op: int  # op responsible (or the region op owning the block argument)
    message: str


SliceResult = Union[Hoistable, Blocked]

T = TypeVar("T")


def is_pure(graph: Graph, op: int) -> bool:
    """Op ``op`` has no memory effects and no regions: its results are a
    function of its operands (MemoryEffectOpInterface)."""
    return bool(int(graph.op_purity[op]) & _EFFECT_FREE)


class SliceAnalysis:
    """Memoized hoistability of values to the entry of one function."""

    def __init__(self, graph: Graph, func: int):
        self.graph = graph
        self.func = func
        self.entry_block = entry_block(graph, func)
        self._memo: dict[int, SliceResult] = {}

    def classify(self, value: int) -> SliceResult:
        """Hoistable slice or the reason it is blocked."""
        if value in self._memo:
            return self._memo[value]
        # Iterative post-order so deep arithmetic chains do not hit recursion limits.
        stack = [(value, False)]
        while stack:
            v, expanded = stack.pop()
            if v in self._memo:
                continue
            deps = self._operands_to_visit(v)
            if isinstance(deps, Blocked) or deps is None:
                self._memo[v] = deps if deps is not None else Hoistable((), frozenset({v}))
                continue
            if not expanded:
                stack.append((v, True))
                stack.extend((d, False) for d in deps if d not in self._memo)
                continue
            self._memo[v] = self._combine(v, deps)
        return self._memo[value]

    def _operands_to_visit(self, v: int) -> Optional[Union[list[int], Blocked]]:
        g = self.graph
        op = int(g.value_op[v])
        if op < 0:
            block = int(g.value_block[v])
            if block == self.entry_block:
                return None  # a function argument: a leaf
            owner = int(g.block_parent_op[block])
            return Blocked(
                "region-value",
                owner,
                f"depends on a block argument of '{g.names[g.op_name[owner]]}'",
            )
        name = g.names[g.op_name[op]]
        purity = int(g.op_purity[op])
        if purity & _READS_ONLY:
            return self._blocked_load(op, name)
        if int(g.op_role[op]) & 0xFF == _CALL:
            return Blocked(
                "call", op, f"depends on the result of '{name}', a call with side effects"
            )
        if not purity & _EFFECT_FREE:
            return Blocked("unknown-op", op, f"depends on '{name}', which cannot be hoisted")
        if not g.is_ancestor(self.func, op):
            return Blocked("unknown-op", op, "is defined outside the function")
        operands = [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]
        if int(g.op_block[op]) != self.entry_block and not purity & _SPECULATABLE:
            owner = int(g.op_parent[op])
            return Blocked(
                "guarded",
                op,
                f"depends on '{name}' inside '{g.names[g.op_name[owner]]}', which may trap "
                "(division by zero) if computed outside its guard",
            )
        return operands

    def _blocked_load(self, op: int, name: str) -> Blocked:
        g = self.graph
        begin = int(g.operand_begin[op])
        src_op = int(g.value_op[g.operands[begin]]) if int(g.operand_begin[op + 1]) > begin else -1
        # Only the message depends on it: which global a load reads, and
        # whether that global is constant, are memref's own attributes of
        # memref.get_global and memref.global (no interface tells either).
        if src_op >= 0 and g.names[g.op_name[src_op]] == "memref.get_global":
            global_name = g.symbol_attribute(src_op, "name") or "?"
            if not self._global_is_constant(global_name):
                return Blocked(
                    "mutable-global", op, f"depends on a load of the mutable global @{global_name}"
                )
        return Blocked("load", op, f"depends on a memory load ('{name}')")

    def _global_is_constant(self, sym: str) -> bool:
        g = self.graph
        gid = g.name_id("memref.global")
        for op in range(g.num_ops):
            if g.op_name[op] == gid and g.str_attribute(op, "sym_name") == sym:
                return g.has_attribute(op, "constant")
        return False

    def _combine(self, v: int, deps: list[int]) -> SliceResult:
        ops: set[int] = {int(self.graph.value_op[v])}
        args: set[int] = set()
        for d in deps:
            r = self._memo[d]
            if isinstance(r, Blocked):
                return r
            ops.update(r.ops)
            args.update(r.args)
        return Hoistable(tuple(sorted(ops)), frozenset(args))


def clone_slice(
    graph: Graph,
    result: Hoistable,
    value: int,
    arg_map: dict[int, T],
    clone: Callable[[int, list[T]], Sequence[T]],
    cache: Optional[dict[int, T]] = None,
) -> T:
    """Clone the slice of ``value``, reading ``arg_map`` for arguments.

    ``clone(op, operands)`` clones graph op ``op`` with those operands and
    returns its results (steps of an edit: :func:`memplan.ir.steps.cloner`).
    ``cache`` (value id -> clone) shares clones between calls at one
    insertion point, so common subexpressions are cloned once.
    """
    cache = {} if cache is None else cache
    if value in arg_map:
        return arg_map[value]
    for op in result.ops:
        first_result = int(graph.result_begin[op])
        if first_result in cache:
            continue
        begin = int(graph.operand_begin[op])
        operands = [
            arg_map[src] if src in arg_map else cache[src]
            for src in (int(x) for x in graph.operands[begin : int(graph.operand_begin[op + 1])])
        ]
        for r, v in enumerate(clone(op, operands)):
            cache[first_result + r] = v
    return cache[value]
