"""Backward slices of index values: can a size be recomputed at function entry?

A dynamic allocation size can be hoisted when its backward slice holds only
pure index arithmetic over the function's arguments (``arith``, ``index``,
``affine.apply/min/max``, ``memref.dim``/``tensor.dim`` of arguments,
constants). The slice is then cloned where it is needed: at the function
entry, into a caller (arguments mapped to call operands), or into a generated
size-query function. Anything else blocks hoisting, with the reason and the op
responsible, so passes can report it with a location.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from mlir import ir

from memplan.ir.graph import Graph, entry_block, ir_value, operation  # noqa: F401 (ir_value re-exported)

# Ops with no memory effects whose results depend only on their operands.
_PURE_PREFIXES = ("arith.", "index.")
_PURE_OPS = frozenset(
    {
        "affine.apply",
        "affine.min",
        "affine.max",
        "memref.dim",
        "tensor.dim",
        # Casts change the static type only: a dim of the cast is the
        # source's, and lowered they neither trap nor touch memory a caller
        # has not handed over.
        "memref.cast",
        "tensor.cast",
        "memref.rank",
        "tensor.rank",
        "ub.poison",
    }
)
_LOAD_OPS = frozenset(
    {"memref.load", "tensor.extract", "affine.load", "vector.load", "vector.extractelement"}
)
_CALL_OPS = frozenset({"func.call", "func.call_indirect"})
# Pure, but not speculatable: they trap (SIGFPE) on a zero divisor, the
# signed ones also on INT_MIN / -1. Hoisted out of the guard that protects
# them (an scf.if, a loop that runs zero times) they would run anyway.
_UNSIGNED_DIVISIONS = frozenset(
    {"arith.divui", "arith.remui", "arith.ceildivui", "index.divu", "index.remu", "index.ceildivu"}
)
_SIGNED_DIVISIONS = frozenset(
    {"arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi",
     "index.divs", "index.rems", "index.ceildivs", "index.floordivs"}
)
_CONSTANT_OPS = frozenset({"arith.constant", "index.constant"})


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


def is_pure(name: str) -> bool:
    """Op names whose results are pure functions of their operands."""
    return name in _PURE_OPS or name.startswith(_PURE_PREFIXES)


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
        if name in _LOAD_OPS:
            return self._blocked_load(op, name)
        if name in _CALL_OPS:
            return Blocked("call", op, f"depends on the result of '{name}', a call with side effects")
        if not is_pure(name):
            return Blocked("unknown-op", op, f"depends on '{name}', which cannot be hoisted")
        if not g.is_ancestor(self.func, op):
            return Blocked("unknown-op", op, "is defined outside the function")
        operands = [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]
        if int(g.op_block[op]) != self.entry_block and not self._speculatable(name, operands):
            owner = int(g.op_parent[op])
            return Blocked(
                "guarded",
                op,
                f"depends on '{name}' inside '{g.names[g.op_name[owner]]}', which may trap "
                "(division by zero) if computed outside its guard",
            )
        return operands

    def _speculatable(self, name: str, operands: list[int]) -> bool:
        """Whether a pure op can run where its guard did not let it: everything
        but a division whose divisor is not a safe constant."""
        signed = name in _SIGNED_DIVISIONS
        if not signed and name not in _UNSIGNED_DIVISIONS:
            return True
        divisor = self._constant(operands[1])
        return divisor is not None and divisor != 0 and not (signed and divisor == -1)

    def _constant(self, v: int) -> Optional[int]:
        """The integer value of an ``arith.constant`` / ``index.constant``, else None."""
        g = self.graph
        op = int(g.value_op[v])
        if op < 0 or g.names[g.op_name[op]] not in _CONSTANT_OPS:
            return None
        return g.int_attribute(op, "value")

    def _blocked_load(self, op: int, name: str) -> Blocked:
        g = self.graph
        src = int(g.operands[g.operand_begin[op]])
        src_op = int(g.value_op[src])
        if src_op >= 0 and g.names[g.op_name[src_op]] == "memref.get_global":
            global_name = g.symbol_attribute(src_op, "name") or "?"
            if not self._global_is_constant(global_name):
                return Blocked("mutable-global", op, f"depends on a load of the mutable global @{global_name}")
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
    ip: ir.InsertionPoint,
    arg_map: dict[int, ir.Value],
    cache: Optional[dict[int, ir.Value]] = None,
) -> ir.Value:
    """Clone the slice of ``value`` at ``ip``, reading ``arg_map`` for arguments.

    ``cache`` (value id -> cloned value) shares clones between calls at one
    insertion point, so common subexpressions are cloned once.
    """
    cache = {} if cache is None else cache
    if value in arg_map:
        return arg_map[value]
    for op in result.ops:
        first_result = int(graph.result_begin[op])
        if first_result in cache:
            continue
        original = operation(graph, op)
        clone = original.clone(ip)
        begin = int(graph.operand_begin[op])
        for k in range(int(graph.operand_begin[op + 1]) - begin):
            src = int(graph.operands[begin + k])
            clone.operands[k] = arg_map[src] if src in arg_map else cache[src]
        for r in range(int(graph.num_results[op])):
            cache[first_result + r] = clone.results[r]
    return cache[value]
