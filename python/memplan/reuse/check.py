"""Check a pooled module: no two views live at the same time share a byte,
for every value of the dynamic sizes.

Independent of the plan that produced the IR: it finds every view
(ViewLikeOpInterface) of a heap allocation of ``i8`` bytes placed as
``memref.view`` places one, recomputes the live interval of each view (with
the lifetime kernel, through all aliases), reads its byte offset and its
byte size from the IR and checks every pair of views of one pool that live
at the same time, and every view against the pool's size:

* offsets and sizes are read as :mod:`memplan.lifetimes.bounds` bounds
  over the dynamic sizes (``index`` arithmetic: constants, ``addi``,
  ``muli``, ``maxui``, the ``divui``/``muli`` round-up the rewrite emits,
  ``select`` between layouts; dimensions of arguments and size operands as
  leaves, never negative), so a constant offset and a computed one are
  compared like two constants are;
* where offsets choose between layouts (``select`` on a condition), every
  combination of the conditions is checked;
* a pair is proven apart when one view's offset is at least the other's
  end for every value of the sizes; otherwise it is evaluated at a set of
  sample sizes, and an overlap there (both views non-empty, every leaf an
  input of the function, so that those sizes can be given) is a violation
  naming the sizes; a pair neither proven nor refuted is ``unproven``
  (counted, listed in ``unproven_pairs``).

Views whose offset or size cannot be read are counted in ``unchecked``.
Views yielded out of the exclusive branches of one ``scf.if`` into the same
result (a branch group) never exist together and are not compared.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from mlir import ir

from memplan import _core
from memplan.ir.graph import extract_graph
from memplan.lifetimes import bounds as B
from memplan.lifetimes import roles as K
from memplan.lifetimes import symbolic
from memplan.lifetimes.branches import branch_exit
from memplan.lifetimes.reasons import bit
from memplan.lifetimes.sizes import element_bytes

_ESCAPES_BLOCK = bit("escapes-block")

SAMPLE_SIZES = (0, 1, 2, 3, 5, 7, 16, 63, 64, 65, 100, 1000)
"""Values given to the dynamic sizes (all alike, then one at a time above
the others) to look for an overlap a proof could not rule out."""

MAX_CONDITIONS = 6
"""The most ``select`` conditions of one pool whose combinations are checked."""


@dataclass
class CheckResult:
    """What :func:`check_module` found."""

    pools: int = 0
    views: int = 0
    unchecked: int = 0
    """Views whose offset or size could not be read."""
    violations: list[str] = field(default_factory=list)
    unproven_pairs: list[str] = field(default_factory=list)
    """Pairs of views neither proven apart nor seen to overlap."""

    @property
    def ok(self) -> bool:
        """No violation was found."""
        return not self.violations


def _operands(g, op: int) -> list[int]:
    """Value ids of ``op``'s operands."""
    return [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]


class _Reader:
    """Reads ``index`` values of one graph as bounds over named leaves."""

    def __init__(self, graph, conditions: dict[int, bool]):
        self.g = graph
        self.conditions = conditions
        self.sym: dict[int, symbolic.SymbolicSizes] = {}
        self.memo: dict[int, Optional[B.Bound]] = {}
        self.selects: set[int] = set()

    def _sizes(self, v: int) -> symbolic.SymbolicSizes:
        g = self.g
        op = int(g.value_op[v])
        block = int(g.value_block[v]) if op < 0 else int(g.op_block[op])
        func = int(g.block_parent_op[block])
        while not int(g.op_role[func]) & 0xFF == K.FUNC and int(g.op_block[func]) >= 0:
            func = int(g.block_parent_op[int(g.op_block[func])])
        if func not in self.sym:
            self.sym[func] = symbolic.SymbolicSizes(g, func, lambda x: f"%v{x}")
        return self.sym[func]

    def poly(self, v: int) -> Optional[B.Bound]:
        """A value SymbolicSizes reads (products and sums of leaves)."""
        p = self._sizes(v).value(v)
        if any(c < 0 for c in p.values()):
            return None
        const = p.get((), 0)
        return (B.Sum(const, B.freeze({m: c for m, c in p.items() if m}), ()),)

    def value(self, v: int) -> Optional[B.Bound]:
        """The bound of index value ``v`` (exact), or None when it cannot be read."""
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = None  # a cycle reads as unknown
        g = self.g
        op = int(g.value_op[v])
        out: Optional[B.Bound] = None
        if op < 0:
            out = self.poly(v)
        else:
            constant = g.constant_int(op)
            name = g.names[g.op_name[op]]
            operands = [int(x) for x in g.operands[g.operand_begin[op] : g.operand_begin[op + 1]]]
            # Arithmetic read by name: no interface states a sum, a product,
            # a maximum or a choice of two values as such.
            if constant is not None:
                out = B.constant(constant) if constant >= 0 else None
            elif name == "arith.addi" and len(operands) == 2:
                a, b = self.value(operands[0]), self.value(operands[1])
                out = B.add(a, b, limit=1 << 30) if a is not None and b is not None else None
            elif name == "arith.maxui" and len(operands) == 2:
                a, b = self.value(operands[0]), self.value(operands[1])
                out = B.maximum(a, b, limit=1 << 30) if a is not None and b is not None else None
            elif name == "arith.muli" and len(operands) == 2:
                out = self._product(operands[0], operands[1])
            elif name == "arith.select" and len(operands) == 3:
                self.selects.add(operands[0])
                if operands[0] in self.conditions:
                    out = self.value(operands[1] if self.conditions[operands[0]] else operands[2])
                else:  # unknown choice: both sides read for the conditions they hold
                    self.value(operands[1])
                    self.value(operands[2])
            else:
                out = self.poly(v)
        self.memo[v] = out
        return out

    def _product(self, x: int, y: int) -> Optional[B.Bound]:
        g = self.g
        for a, c in ((x, y), (y, x)):
            factor = g.constant_int(int(g.value_op[c])) if int(g.value_op[c]) >= 0 else None
            owner = int(g.value_op[a])
            if factor is None or factor <= 0 or owner < 0:
                continue
            # align_up(z, f) as the rewrite emits it: (z + f - 1) divui f * f.
            if g.names[g.op_name[owner]] == "arith.divui":
                num, den = _operands(g, owner)
                d_op = int(g.value_op[den])
                if d_op >= 0 and g.constant_int(d_op) == factor:
                    bumped = int(g.value_op[num])
                    if bumped >= 0 and g.names[g.op_name[bumped]] == "arith.addi":
                        z, k = _operands(g, bumped)
                        for zz, kk in ((z, k), (k, z)):
                            k_op = int(g.value_op[kk])
                            if k_op >= 0 and g.constant_int(k_op) == factor - 1:
                                return _align(self.value(zz), factor)
                    return None
        a, b = self.value(x), self.value(y)
        if a is None or b is None:
            return None
        if len(a) == 1 and len(b) == 1 and not a[0].atoms and not b[0].atoms:
            pa = dict(a[0].poly) | ({(): a[0].const} if a[0].const else {})
            pb = dict(b[0].poly) | ({(): b[0].const} if b[0].const else {})
            prod = symbolic.mul(pa, pb)
            return (B.Sum(prod.get((), 0), B.freeze({m: c for m, c in prod.items() if m}), ()),)
        for s, t in ((a, b), (b, a)):
            c = B.constant_value(t)
            if c is not None:
                return (
                    B.prune(
                        (
                            B.Sum(
                                x_.const * c,
                                B.freeze({m: v * c for m, v in x_.poly}),
                                tuple(
                                    sorted(
                                        B.Atom(
                                            B.freeze({m: v * c for m, v in at.poly}),
                                            at.alignment * c,
                                        )
                                        for at in x_.atoms
                                    )
                                ),
                            )
                            for x_ in s
                        ),
                        limit=1 << 30,
                    )
                    if c > 0
                    else B.ZERO
                )
        return None


def _align(x: Optional[B.Bound], alignment: int) -> Optional[B.Bound]:
    """``align_up`` of every sum of ``x`` (exact where each sum's aligned
    parts are multiples of ``alignment``), or None."""
    if x is None:
        return None
    out = []
    for s in x:
        if all(a.alignment % alignment == 0 for a in s.atoms) and s.const % alignment == 0:
            rest = B.thaw(s.poly)
            aligned = B.aligned(rest, alignment) if rest else B.ZERO
            out.append(B.Sum(s.const, (), s.atoms) + aligned[0])
        elif not s.atoms and not s.poly:
            out.append(B.Sum(-(-s.const // alignment) * alignment))
        else:
            return None
    return B.prune(out, limit=1 << 30)


@dataclass
class _View:
    op: int
    offset: Optional[B.Bound]
    size: Optional[B.Bound]
    start: int
    end: int
    exit: Optional[tuple[int, int]]


def _view_bytes(reader: _Reader, g, op: int, sizes: list[int]) -> Optional[B.Bound]:
    """Bytes a view's result spans: element bytes times its static and dynamic dimensions."""
    info = g.types[g.value_type[g.result_begin[op]]]
    factor = element_bytes(info)
    if factor < 0:
        return None
    out: B.Bound = B.constant(factor)
    dynamic = iter(sizes)
    for d in info.shape:
        if d == _core.DYNAMIC:
            v = next(dynamic, None)
            if v is None:
                return None
            b = reader.poly(v)
            if b is None:
                return None
            out = _times(out, b)
            if out is None:
                return None
        else:
            out = _times(out, B.constant(d))
    return out


def _times(a: B.Bound, b: B.Bound) -> Optional[B.Bound]:
    if len(a) != 1 or len(b) != 1 or a[0].atoms or b[0].atoms:
        return None
    pa = dict(a[0].poly) | ({(): a[0].const} if a[0].const else {})
    pb = dict(b[0].poly) | ({(): b[0].const} if b[0].const else {})
    prod = symbolic.mul(pa, pb)
    return (B.Sum(prod.get((), 0), B.freeze({m: c for m, c in prod.items() if m}), ()),)


def _apart(a: _View, b: _View) -> bool:
    """Proven: one lies at or above the other's end, for every size."""
    return B.dominates(b.offset, B.add(a.offset, a.size, limit=1 << 30)) or B.dominates(
        a.offset, B.add(b.offset, b.size, limit=1 << 30)
    )


def _samples(leaves: list[str]) -> list[dict[str, int]]:
    out = [{leaf: v for leaf in leaves} for v in SAMPLE_SIZES]
    for leaf in leaves[:8]:
        for v in (0, 1, 7, 100):
            out += [{other: (v if other == leaf else w) for other in leaves} for w in (3, 64)]
    return out


def _overlap(a: _View, b: _View, env: dict[str, int]) -> Optional[tuple[int, int]]:
    oa, ob = B.evaluate(a.offset, env), B.evaluate(b.offset, env)
    za, zb = B.evaluate(a.size, env), B.evaluate(b.size, env)
    if None in (oa, ob, za, zb) or za <= 0 or zb <= 0:
        return None
    lo, hi = max(oa, ob), min(oa + za, ob + zb)
    return (lo, hi) if lo < hi else None


def _inputs_only(*views: _View) -> bool:
    """Every leaf of the views' offsets and sizes is an input of the
    function (an argument or an argument's dimension), so any values may be
    given to them: an overlap at sample values is one the program can reach.
    A value computed some other way (``%v...``) may not take them."""
    return all(
        not leaf.startswith("%") for v in views for leaf in B.leaves(v.offset) | B.leaves(v.size)
    )


def _members(g) -> dict[int, list[tuple[int, int, list[int]]]]:
    """Per pool value: (view op, shift value, dynamic size values) of each member."""
    # A pool as the rewrite builds it: views of a heap allocation at byte
    # offsets. No interface states a view's byte offset: ViewLikeOpInterface
    # gives the source only, and OffsetSizeAndStrideOpInterface (subview,
    # reinterpret_cast) offsets count elements from the source's aligned
    # pointer, while memref.view moves that pointer by the operand after its
    # source and gives an identity layout. So a member is a view whose result
    # has the identity layout and whose operand after the source is the byte
    # shift (what memref.view is), the ones after it its dynamic sizes; other
    # views are not read here (the run-time oracle, memplan.numerics.oracle,
    # measures any view's bytes).
    by_pool: dict[int, list[tuple[int, int, list[int]]]] = {}
    for op in np.nonzero(g.view_source >= 0)[0]:
        op = int(op)
        begin, source = int(g.operand_begin[op]), int(g.view_source[op])
        src = int(g.operands[begin + source])
        src_op = int(g.value_op[src])
        if src_op < 0 or K.kind(g, src_op) != K.ALLOC or int(g.num_results[op]) != 1:
            continue
        identity = g.types[g.value_type[g.result_begin[op]]].identity_layout
        end = int(g.operand_begin[op + 1])
        if begin + source + 1 >= end or not identity:
            continue
        shift = int(g.operands[begin + source + 1])
        sizes = [int(x) for x in g.operands[begin + source + 2 : end]]
        by_pool.setdefault(src, []).append((op, shift, sizes))
    return by_pool


def check_module(module: ir.Operation | ir.Module) -> CheckResult:
    """Verify every pool of ``module`` (see the module docstring)."""
    g = extract_graph(module)
    result = CheckResult()
    for pool, members in _members(g).items():
        result.pools += 1
        result.views += len(members)
        ops = np.array([m[0] for m in members], dtype=np.int32)
        t = _core.analyze_lifetimes(g, np.ascontiguousarray(g.result_begin[ops], dtype=np.int32))
        exits = []
        for j, (op, _, _) in enumerate(members):
            found = branch_exit(g, op) if int(t["reasons"][j]) & _ESCAPES_BLOCK else None
            exits.append(found[:2] if found is not None else None)
        pool_op = int(g.value_op[pool])
        pool_sizes = _operands(g, pool_op)
        # The conditions the offsets choose layouts by: every combination.
        probe = _Reader(g, {})
        for _, shift, _ in members:
            probe.value(shift)
        conditions = sorted(probe.selects)
        if len(conditions) > MAX_CONDITIONS:
            result.unchecked += len(members)
            continue
        found: set[str] = set()
        for choice in itertools.product((False, True), repeat=len(conditions)):
            reader = _Reader(g, dict(zip(conditions, choice)))
            views = [
                _View(
                    op,
                    reader.value(shift),
                    _view_bytes(reader, g, op, sizes),
                    int(t["start"][j]),
                    int(t["last_use"][j]) + 1,
                    exits[j],
                )
                for j, (op, shift, sizes) in enumerate(members)
            ]
            total = _pool_bytes(reader, g, pool_op, pool_sizes)
            _check_pool(g, views, total, result, found, choice)
    return result


def _pool_bytes(reader: _Reader, g, op: int, sizes: list[int]) -> Optional[B.Bound]:
    """The bytes of a pool: its static size, or its one dynamic size read as a bound."""
    info = g.types[g.value_type[g.result_begin[op]]]
    if not sizes:
        return _view_bytes(reader, g, op, [])
    if len(sizes) != 1 or len(info.shape) != 1:
        return None
    return reader.value(sizes[0])


def _check_pool(
    g,
    views: list[_View],
    total: Optional[B.Bound],
    result: CheckResult,
    found: set[str],
    choice: tuple,
) -> None:
    readable = [v for v in views if v.offset is not None and v.size is not None]
    if not any(choice):  # counted once per pool
        result.unchecked += len(views) - len(readable)
    leaves = sorted(
        set().union(*(B.leaves(v.offset) | B.leaves(v.size) for v in readable))
        | (B.leaves(total) if total is not None else set())
    )
    envs = _samples(leaves) if leaves else [{}]
    where = f" (layout choice {tuple(int(c) for c in choice)})" if choice else ""

    def report(into: list[str], text: str) -> None:
        if text not in found:
            found.add(text)
            into.append(text)

    def violated(what: str, env: dict) -> None:
        """``what`` happens at the sizes of ``env``."""
        sizes = ", ".join(f"{k} = {v}" for k, v in env.items()) or "every size"
        report(result.violations, f"{what}, at {sizes}{where}")

    def unproven(what: str) -> None:
        report(result.unproven_pairs, f"unproven: {what}{where}")

    order = sorted(range(len(readable)), key=lambda k: readable[k].start)
    for x in range(len(order)):
        a = readable[order[x]]
        for y in range(x + 1, len(order)):
            b = readable[order[y]]
            if b.start >= a.end:
                break
            if a.exit is not None and a.exit == b.exit:
                continue  # exclusive branches: never both
            if _apart(a, b):
                continue
            seen = next(
                ((env, hit) for env in envs if (hit := _overlap(a, b, env)) is not None), None
            )
            pair = f"view at {g.location(a.op)} and view at {g.location(b.op)}"
            if seen is not None and _inputs_only(a, b):
                env, (lo, hi) = seen
                violated(f"overlap: {pair} share bytes [{lo}, {hi}) while both live", env)
            else:
                unproven(pair)
    if total is None:
        return
    for v in readable:
        end = B.add(v.offset, v.size, limit=1 << 30)
        if B.dominates(total, end):
            continue
        bad = next(
            (
                env
                for env in envs
                if (B.evaluate(v.size, env) or 0) > 0
                and (B.evaluate(end, env) or 0) > (B.evaluate(total, env) or 0)
            ),
            None,
        )
        if not all(not leaf.startswith("%") for leaf in B.leaves(end) | B.leaves(total)):
            bad = None
        if bad is not None:
            violated(f"out-of-bounds: view at {g.location(v.op)} ends past the pool", bad)
        else:
            unproven(f"view at {g.location(v.op)} within its pool")


__all__ = ["CheckResult", "check_module"]
