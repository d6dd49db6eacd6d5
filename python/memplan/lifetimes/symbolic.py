"""Dynamic byte sizes in terms a user can read and evaluate.

A dynamic allocation's bytes are a product of its element size, its static
dimensions and its dynamic size operands. Each operand is followed back to
the function's arguments: ``memref.dim``/``tensor.dim`` of an argument (or of
a cast of one) with a constant index is ``argN.dimK``, an ``index`` argument
is ``argN``; ``arith`` additions, multiplications and maxima of those and
constants are kept as such. Anything else (a load, a loop variable) stays an
opaque leaf named by its SSA value.

A size is a polynomial: a map from monomials (sorted tuples of leaf names)
to coefficients. Sizes are never negative, so a sum of live buffers whose
coefficients are all at most another's is never the larger: the peak is the
maximum over the live sets that no other live set dominates. Given values
for the leaves (``--dim``/``--value``), everything evaluates to integers.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph, entry_block
from memplan.lifetimes.sizes import canonical_size_value, element_bytes

#: A polynomial: monomial (sorted leaf names, () for the constant) -> coefficient.
Poly = dict[tuple[str, ...], int]

# The report's expressions spell what the ops compute: a cast of a shaped
# value keeps its dims (CastOpInterface), a dim reads one
# (ShapedDimOpInterface); muli/addi multiply and add, read by name: no
# interface states a product or a sum of two values as such (ValueBounds
# keeps affine bounds only, and no product of two unknowns).
_CAST = int(_core.OpInterface.CAST)


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + c
    return {m: c for m, c in out.items() if c}


def const(value: int) -> Poly:
    """The constant ``value``."""
    return {(): value} if value else {}


def _leaf(name: str) -> Poly:
    return {(name,): 1}


class SymbolicSizes:
    """Byte sizes of the allocations of one function over named leaves."""

    def __init__(self, graph: Graph, func_op: int, value_name: Callable[[int], str]):
        self.graph = graph
        self.entry = entry_block(graph, func_op)
        self.first_arg = int(graph.block_arg_begin[self.entry])
        self.value_name = value_name
        self._memo: dict[int, Poly] = {}
        #: Leaves that are a size operand of an allocation: never negative.
        self.nonneg: set[str] = set()

    def _constant(self, v: int) -> Optional[int]:
        """The integer value of ``v`` when a constant op (ConstantLike) defines it."""
        op = int(self.graph.value_op[v])
        return self.graph.constant_int(op) if op >= 0 else None

    def _is_shaped_cast(self, op: int) -> bool:
        """A cast (CastOpInterface) of one shaped value to one shaped value."""
        g = self.graph
        if not int(g.op_interfaces[op]) & _CAST or int(g.num_results[op]) != 1:
            return False
        if int(g.operand_begin[op + 1]) - int(g.operand_begin[op]) != 1:
            return False
        source = g.types[g.value_type[g.operands[g.operand_begin[op]]]]
        result = g.types[g.value_type[g.result_begin[op]]]
        return (source.is_tensor or source.is_memref) and (result.is_tensor or result.is_memref)

    def _argument(self, v: int) -> Optional[int]:
        """The argument number of ``v`` (through casts), or None."""
        g = self.graph
        while True:
            op = int(g.value_op[v])
            if op < 0:
                if int(g.value_block[v]) == self.entry:
                    return v - self.first_arg
                return None
            if not self._is_shaped_cast(op):
                return None
            v = int(g.operands[g.operand_begin[op]])

    def value(self, v: int) -> Poly:
        """The index value ``v`` as a polynomial over leaves."""
        if v in self._memo:
            return self._memo[v]
        g = self.graph
        result: Optional[Poly] = None
        constant = self._constant(v)
        op = int(g.value_op[v])
        if constant is not None:
            result = const(constant)
        elif op < 0:
            arg = self._argument(v)
            if arg is not None:
                result = _leaf(f"arg{arg}")
        else:
            name = g.names[g.op_name[op]]
            operands = [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]
            shaped_dim = g.shaped_dim(op)
            if shaped_dim is not None:
                source, dim = shaped_dim
                arg = self._argument(operands[source])
                if arg is not None and dim is not None:
                    result = _leaf(f"arg{arg}.dim{dim}")

            elif name in ("arith.muli", "index.mul") and len(operands) == 2:
                result = mul(self.value(operands[0]), self.value(operands[1]))
            elif name in ("arith.addi", "index.add") and len(operands) == 2:
                result = add(self.value(operands[0]), self.value(operands[1]))
        if result is None:
            same = canonical_size_value(g, v) if op >= 0 else v
            result = self.value(same) if same != v else _leaf(self.value_name(v))
        self._memo[v] = result
        return result

    def alloc_bytes(self, alloc_op: int) -> Poly:
        """Bytes of an allocation: its element bytes and static dims times its
        dynamic size operands."""
        g = self.graph
        info = g.types[g.value_type[g.result_begin[alloc_op]]]
        factor = max(1, element_bytes(info))
        for d in info.shape:
            if d != _core.DYNAMIC:
                factor *= d
        size: Poly = {(): factor}
        count = sum(1 for d in info.shape if d == _core.DYNAMIC)
        begin = int(g.operand_begin[alloc_op])
        for v in g.operands[begin : begin + count]:
            operand = self.value(int(v))
            if len(operand) == 1 and next(iter(operand.values())) == 1:
                (mono,) = operand
                if len(mono) == 1:
                    self.nonneg.add(mono[0])
            size = mul(size, operand)
        return size


def to_text(p: Poly) -> str:
    """``65536 * arg0.dim0 + 640``: largest degree first, the constant last."""
    if not p:
        return "0"
    terms = []
    for m in sorted(p, key=lambda m: (-len(m), m)):
        c = p[m]
        factors = ([str(c)] if c != 1 or not m else []) + list(m)
        terms.append(" * ".join(factors))
    return " + ".join(terms)


def evaluate(p: Poly, env: Mapping[str, int]) -> Optional[int]:
    """The polynomial's value, or None when a leaf has no value."""
    total = 0
    for m, c in p.items():
        term = c
        for leaf in m:
            if leaf not in env:
                return None
            term *= env[leaf]
        total += term
    return total


def leaves(p: Poly) -> set[str]:
    """The leaf names that occur in ``p``."""
    return {leaf for m in p for leaf in m}


def peak(
    start: np.ndarray, end: np.ndarray, sizes: list[Poly], nonneg: frozenset = frozenset()
) -> list[Poly]:
    """The candidates for the most bytes live at once over intervals
    ``[start, end)``: the sums of the live sets that no other sum dominates
    (:func:`dominates`). The peak is their maximum."""
    points = sorted({int(s) for s in start})
    sums: list[Poly] = []
    for t in points:
        live = [i for i in range(len(sizes)) if start[i] <= t < max(int(end[i]), int(start[i]) + 1)]
        total: Poly = {}
        for i in live:
            total = add(total, sizes[i])
        sums.append(total)
    kept: list[Poly] = []
    for i, s in enumerate(sums):
        dominated = any(
            j != i and dominates(o, s, nonneg) and (o != s or j < i) for j, o in enumerate(sums)
        )
        if not dominated and s not in kept:
            kept.append(s)
    return kept


def dominates(a: Poly, b: Poly, nonneg: frozenset = frozenset()) -> bool:
    """Whether size ``a`` is at least size ``b`` whatever the leaves' values
    (both being sizes, never negative): ``a`` is ``b`` times a factor of at
    least 1, or, over leaves that are never negative (argument dimensions,
    and the ``nonneg`` ones), no coefficient of ``b`` is above ``a``'s and
    none is negative."""
    if not b:
        return all(c >= 0 for c in a.values()) or not a
    m, c = next(iter(b.items()))
    factor = a.get(m, 0) / c
    if factor >= 1 and all(a.get(k, 0) == factor * v for k, v in b.items()) and len(a) == len(b):
        return True
    if not all(".dim" in leaf or leaf in nonneg for p in (a, b) for mono in p for leaf in mono):
        return False
    if any(v < 0 for p in (a, b) for v in p.values()):
        return False
    return all(a.get(k, 0) >= v for k, v in b.items())


def max_text(candidates: list[Poly]) -> str:
    """The maximum of ``candidates``, as text."""
    if not candidates:
        return "0"
    if len(candidates) == 1:
        return to_text(candidates[0])
    return "max(" + ", ".join(to_text(c) for c in candidates) + ")"


class ArgumentSizes(Mapping[str, int]):
    """Leaf values from the command line's ``--dim``/``--value`` pairs:
    ``argN.dimK`` from ``(N, K)``, then ``N`` (every dynamic dimension of
    argument N), then ``"*"``; ``argN`` from a value of N, then ``N`` of
    ``--dim``."""

    def __init__(self, dims: Mapping, values: Mapping):
        self.dims, self.values = dict(dims), dict(values)

    def _find(self, leaf: str) -> Optional[int]:
        arg_text, _, dim_text = leaf.partition(".dim")
        if not arg_text.startswith("arg") or not arg_text[3:].isdigit():
            return None
        arg = int(arg_text[3:])
        if dim_text:
            if not dim_text.isdigit():
                return None
            for key in ((arg, int(dim_text)), arg, "*"):
                if key in self.dims:
                    return int(self.dims[key])
            return None
        if arg in self.values:
            return int(self.values[arg])
        return int(self.dims[arg]) if arg in self.dims else None

    def __getitem__(self, leaf: str) -> int:
        value = self._find(leaf)
        if value is None:
            raise KeyError(leaf)
        return value

    def __contains__(self, leaf: object) -> bool:
        return isinstance(leaf, str) and self._find(leaf) is not None

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0


__all__ = [
    "Poly",
    "SymbolicSizes",
    "ArgumentSizes",
    "add",
    "const",
    "mul",
    "dominates",
    "to_text",
    "evaluate",
    "leaves",
    "peak",
    "max_text",
]
