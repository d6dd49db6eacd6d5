"""Symbolic byte sizes and offsets over hoistable index values.

A size is a small expression tree: integer constants, SSA leaves (graph value
ids whose slices are hoistable), sums, products, maxima and align-up. Constant
subtrees fold as they are built, so a fully static plan becomes one integer.
The same tree is stated as ``index`` steps of an edit
(:mod:`memplan.ir.steps`) wherever it is needed: at a function entry or in a
caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from memplan import _core
from memplan.ir.steps import Program, Step

_S = _core.EditStep


@dataclass(frozen=True)
class Const:
    """A constant size."""

    value: int


@dataclass(frozen=True)
class Leaf:
    """An index value of the function, by graph value id (``name`` for printing)."""

    value: int
    name: str


@dataclass(frozen=True)
class Op:
    """A binary operation on sizes: ``kind`` is ``add``, ``mul`` or ``max``."""

    kind: str  # "add", "mul", "max"
    lhs: "Expr"
    rhs: "Expr"


@dataclass(frozen=True)
class AlignUp:
    """``operand`` rounded up to a multiple of ``alignment``."""

    operand: "Expr"
    alignment: int


Expr = Union[Const, Leaf, Op, AlignUp]


def const(v: int) -> Const:
    """The constant ``v``."""
    return Const(int(v))


def _fold(kind: str, a: Expr, b: Expr, compute: Callable[[int, int], int], identity: int) -> Expr:
    """``kind``(a, b), folded where both sides are constants or one is the
    operation's identity."""
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(compute(a.value, b.value))
    if isinstance(a, Const) and a.value == identity:
        return b
    if isinstance(b, Const) and b.value == identity:
        return a
    return Op(kind, a, b)


def add(a: Expr, b: Expr) -> Expr:
    """``a + b``, folded where an operand is constant."""
    return _fold("add", a, b, lambda x, y: x + y, 0)


def mul(a: Expr, b: Expr) -> Expr:
    """``a * b``, folded where an operand is constant."""
    return _fold("mul", a, b, lambda x, y: x * y, 1)


def maximum(a: Expr, b: Expr) -> Expr:
    """``max(a, b)`` of sizes, folded where both are constant or equal (sizes
    are never negative, so 0 is its identity)."""
    if a == b:
        return a
    return _fold("max", a, b, max, 0)


def align_up(a: Expr, alignment: int) -> Expr:
    """``a`` rounded up to a multiple of ``alignment``."""
    if alignment <= 1:
        return a
    if isinstance(a, Const):
        return Const(-(-a.value // alignment) * alignment)
    if isinstance(a, AlignUp) and alignment % a.alignment == 0:
        return AlignUp(a.operand, alignment)
    if isinstance(a, AlignUp) and a.alignment % alignment == 0:
        return a
    return AlignUp(a, alignment)


def leaf_nodes(e: Expr) -> list[Leaf]:
    """The distinct leaves of the expression, in first-use order."""
    out: list[Leaf] = []

    def walk(x: Expr) -> None:
        if isinstance(x, Leaf):
            if x not in out:
                out.append(x)
        elif isinstance(x, Op):
            walk(x.lhs)
            walk(x.rhs)
        elif isinstance(x, AlignUp):
            walk(x.operand)

    walk(e)
    return out


def leaves(e: Expr) -> list[int]:
    """Graph value ids the expression reads, in first-use order."""
    out: list[int] = []
    for leaf in leaf_nodes(e):
        if leaf.value not in out:
            out.append(leaf.value)
    return out


def to_string(e: Expr) -> str:
    """Readable form, e.g. ``align(4 * %dim, 64) + 256`` (used in attributes)."""
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Leaf):
        return e.name
    if isinstance(e, AlignUp):
        return f"align({to_string(e.operand)}, {e.alignment})"
    if e.kind == "max":
        return f"max({to_string(e.lhs)}, {to_string(e.rhs)})"
    symbol = {"add": "+", "mul": "*"}[e.kind]
    lhs, rhs = to_string(e.lhs), to_string(e.rhs)
    if e.kind == "mul":
        lhs = f"({lhs})" if isinstance(e.lhs, Op) and e.lhs.kind == "add" else lhs
        rhs = f"({rhs})" if isinstance(e.rhs, Op) and e.rhs.kind == "add" else rhs
    return f"{lhs} {symbol} {rhs}"


def evaluate(e: Expr, env: Callable[[int], int]) -> int:
    """Integer value given the leaves' values."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Leaf):
        return env(e.value)
    if isinstance(e, AlignUp):
        v = evaluate(e.operand, env)
        return -(-v // e.alignment) * e.alignment
    a, b = evaluate(e.lhs, env), evaluate(e.rhs, env)
    return {"add": a + b, "mul": a * b, "max": max(a, b)}[e.kind]


class Emitter:
    """States expressions as ``index`` steps of a
    :class:`~memplan.ir.steps.Program`, at its insertion point.

    ``leaf`` maps a :class:`Leaf` to the step of the value to read there
    (typically a clone of the leaf's slice). Subexpressions and constants are
    stated once per emitter.
    """

    def __init__(self, program: Program, leaf: Callable[[Leaf], Step]):
        self.program = program
        self.leaf = leaf
        self._memo: dict[Expr, Step] = {}

    def constant(self, value: int) -> Step:
        """An ``index`` constant ``value``."""
        return self.emit(Const(value))

    def emit(self, e: Expr) -> Step:
        """The step of ``e``'s ``index`` value, stated once per emitter."""
        if e in self._memo:
            return self._memo[e]
        p = self.program
        if isinstance(e, Const):
            v = p.constant(e.value)
        elif isinstance(e, Leaf):
            v = self.leaf(e)
        elif isinstance(e, AlignUp):
            # (x + a - 1) floordiv a * a, with unsigned ops as sizes are >= 0.
            x = self.emit(e.operand)
            bump = p.binary(_S.ADDI, x, self.emit(Const(e.alignment - 1)))
            a = self.emit(Const(e.alignment))
            v = p.binary(_S.MULI, p.binary(_S.DIVUI, bump, a), a)
        else:
            lhs, rhs = self.emit(e.lhs), self.emit(e.rhs)
            v = p.binary({"add": _S.ADDI, "mul": _S.MULI, "max": _S.MAXUI}[e.kind], lhs, rhs)
        self._memo[e] = v
        return v
