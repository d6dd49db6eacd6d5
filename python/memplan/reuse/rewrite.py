"""Apply pool plans to the IR: each :class:`~memplan.reuse.plan.PoolPlan`
is stated as one edit, plain data, applied in one call on MLIR's C++ API
(a ``memplan._core.PoolEdit``, include/memplan/Reuse/PoolEdit.h, applied by
``memplan._core.apply_pool_edit``)::

    %pool = memref.alloc() {alignment = A} : memref<Nxi8>     // before the first member
    %c = arith.constant <offset> : index                      // one per distinct offset
    ...
    %a = memref.view %pool[%c][] : memref<Nxi8> to memref<...> // replaces each alloc
    ...
    memref.dealloc %pool : memref<Nxi8>                        // after the last use

and every member's own ``memref.dealloc`` is erased. With dynamic members the
pool is ``memref<?xi8>`` and its size and their offsets are ``index``
arithmetic over the (hoisted) dynamic sizes: each member at the largest end
of the members directly below it in its :class:`~memplan.reuse.plan.Layout`
(``arith.maxui`` of ``arith.addi``), constants folded; with several layouts,
those of the one whose pool is smallest (``arith.cmpi``, ``arith.select``).
That arithmetic is a list of steps (``memplan._core.EditStep``) in the order
it is created; the pool's alloc is one of them. Python holds no op handle:
graph op and value ids name everything, and stay valid throughout (nothing
is erased before the edit's last lookup).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph
from memplan.ir.steps import Offset, Program, Step
from memplan.lifetimes import bounds as B
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.sizes import dynamic_size_values, element_bytes
from memplan.reuse.plan import Layout, PoolPlan

_S = _core.EditStep


def _dynamic_bytes(graph: Graph, op: int, sizes: list[Step], prog: Program) -> Step:
    """An allocation's byte size: element bytes x static dims x sizes."""
    info = graph.types[graph.value_type[graph.result_begin[op]]]
    factor = element_bytes(info)
    for d in info.shape:
        if d != _core.DYNAMIC:
            factor *= d
    total: Optional[Step] = None
    for s in sizes:
        total = s if total is None else prog.binary(_S.MULI, total, s)
    assert total is not None
    if factor != 1:
        total = prog.binary(_S.MULI, total, prog.constant(factor))
    return total


def _align_up(value: Step, align: int, prog: Program) -> Step:
    if align <= 1:
        return value
    bumped = prog.binary(_S.ADDI, value, prog.constant(align - 1))
    return prog.binary(
        _S.MULI, prog.binary(_S.DIVUI, bumped, prog.constant(align)), prog.constant(align)
    )


class _Layout:
    """States a :class:`~memplan.reuse.plan.Layout`'s offsets and pool size
    as ``index`` steps: each item's offset is the largest end of the items
    directly below it, constants folded."""

    def __init__(
        self,
        g: Graph,
        lt: FunctionLifetimes,
        plan: PoolPlan,
        layout: Layout,
        sizes: dict[int, list[Step]],
        prog: Program,
        shared: dict[tuple, Step],
    ):
        self.g, self.lt, self.plan, self.sizes, self.prog = g, lt, plan, sizes, prog
        self.layout = layout
        self.slots: list[Optional[Offset]] = [None] * len(layout.items)
        self.shared = shared  # slot computations, shared by the layouts of one pool
        # Each item's offset with every dynamic size 0: the least it can be
        # (every operation is monotone in the sizes), so a constant no larger
        # than a run-time term's least value is left out of a maximum.
        self.least: list[int] = []
        self.offsets: list[Offset] = []

    def slot(self, k: int) -> Offset:
        """Bytes of item ``k`` rounded up to the pool's alignment (items of
        the same type and sizes share one computation)."""
        if self.slots[k] is None:
            value = B.constant_value(self.layout.slots[k])
            if value is None:
                (row,) = self.layout.items[k]  # a dynamic item is one allocation
                op = int(self.lt.op[row])
                key = (int(self.g.value_type[self.g.result_begin[op]]), tuple(self.sizes[row]))
                value = self.shared.get(key)
                if value is None:
                    value = _dynamic_bytes(self.g, op, self.sizes[row], self.prog)
                    if any(sm.atoms for sm in self.layout.slots[k]):  # not a multiple of it already
                        value = _align_up(value, self.plan.alignment, self.prog)
                    self.shared[key] = value
            self.slots[k] = value
        return self.slots[k]

    def least_slot(self, k: int) -> int:
        return B.evaluate(self.layout.slots[k], _Zero())

    def top(self, ks: list[int]) -> tuple[Offset, int]:
        """The largest end of items ``ks`` (and its least value): constants
        folded, and a term left out where another is never smaller."""
        biggest = 0
        terms: list[tuple[int, int]] = []  # (item, least)
        for i in ks:
            least = self.least[i] + self.least_slot(i)
            off, slot = self.offsets[i], B.constant_value(self.layout.slots[i])
            if isinstance(off, int) and slot is not None:
                biggest = max(biggest, off + slot)
            else:
                terms.append((i, least))
        ends = self.layout.ends
        kept: list[tuple[int, int]] = []
        for k, (i, least) in enumerate(terms):
            # Dropped when an exact term (a lower bound of its value too) is
            # at least this one's bound, the first of equal ones kept.
            if any(
                B.is_exact(ends[j])
                and B.dominates(ends[j], ends[i])
                and (not B.dominates(ends[i], ends[j]) or m < k)
                for m, (j, _) in enumerate(terms)
                if j != i
            ):
                continue
            kept.append((i, least))
        least = max([biggest] + [x for _, x in kept])
        if not kept:
            return biggest, least
        prog = self.prog
        values = []
        for i, _ in kept:
            off, slot = self.offsets[i], prog.of(self.slot(i))
            at_zero = isinstance(off, int) and off == 0
            values.append(slot if at_zero else prog.binary(_S.ADDI, prog.of(off), slot))
        out = values[0]
        for v in values[1:]:
            out = prog.binary(_S.MAXUI, out, v)
        if biggest > max(x for _, x in kept):
            out = prog.binary(_S.MAXUI, out, prog.constant(biggest))
        return out, least

    def emit(self) -> Offset:
        """Every item's offset, then the pool's bytes."""
        below = self.layout.below
        for k in range(len(self.layout.items)):
            off, least = self.top(below[k])
            if isinstance(off, int) and B.constant_value(self.layout.slots[k]) is None:
                self.prog.of(off)  # a dynamic item's offset ahead of the sizes, as a bump layout
            self.offsets.append(off)
            self.least.append(least)
        above = {i for b in below for i in b}
        size, _ = self.top([k for k in range(len(below)) if k not in above])
        return size


def _emit_layouts(
    g: Graph,
    lt: FunctionLifetimes,
    plan: PoolPlan,
    sizes: dict[int, list[Step]],
    prog: Program,
) -> tuple[Offset, dict[tuple, Offset]]:
    """The pool's bytes and each item's offset (by its rows): one layout's,
    or, with several, those of the layout whose pool is smallest at run time
    (the first of equal ones), chosen with ``arith.select``."""
    shared: dict[tuple, Step] = {}
    emitters = [_Layout(g, lt, plan, layout, sizes, prog, shared) for layout in plan.layouts]
    size = emitters[0].emit()
    offsets = dict(zip(plan.layouts[0].items, emitters[0].offsets))
    for emitter in emitters[1:]:
        other = emitter.emit()
        smaller = prog.binary(_S.CMPULT, prog.of(other), prog.of(size))
        size = prog.select(smaller, prog.of(other), prog.of(size))
        for rows, off in zip(emitter.layout.items, emitter.offsets):
            if offsets[rows] != off:
                offsets[rows] = prog.select(smaller, prog.of(off), prog.of(offsets[rows]))
    return size, offsets


class _Zero(dict):
    """Every leaf 0."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> int:
        return 0


def apply_plan(lt: FunctionLifetimes, plan: PoolPlan) -> None:
    """Rewrite the members of ``plan`` into views of one pool."""
    g = lt.graph
    members = plan.members
    prog = Program()
    # The views take the sizes the pool was planned with: a dimension of
    # another allocation becomes that allocation's size operand.
    size_operands: list[tuple[int, int, int]] = []
    sizes: dict[int, list[Step]] = {}
    for i in plan.dynamic_members:
        op = int(lt.op[i])
        current = dynamic_size_values(g, op)
        for k, v in enumerate(lt.size_values.get(i, ())):
            if v != current[k]:
                size_operands.append((op, k, int(v)))
                current[k] = int(v)
        if plan.layouts:
            sizes[i] = [prog.value(v) for v in current]

    member_step: dict[int, int] = {}
    if plan.layouts:
        pool_bytes, item_offsets = _emit_layouts(g, lt, plan, sizes, prog)
        prog.pool(pool_bytes)
        for rows_k, off in item_offsets.items():
            step = prog.of(off)
            for i in rows_k:
                member_step[int(i)] = step.index
    else:
        prog.pool(plan.static_size)
        for i, off in zip(plan.static_members, plan.offsets):
            member_step[int(i)] = prog.constant(int(off)).index

    rows = np.array(members, dtype=np.int64)
    edit = _core.PoolEdit()
    edit.insert_before = plan.insert_before
    edit.dealloc_after = plan.dealloc_after
    edit.alignment = plan.alignment
    edit.hoist = [op for op in plan.hoist if op > plan.insert_before]
    edit.size_operands = size_operands
    edit.steps = prog.steps
    edit.allocs = lt.op[rows].tolist()
    edit.deallocs = lt.dealloc[rows].tolist()
    edit.offset_step = [member_step[i] for i in members]
    edit.erase = plan.merged_deallocs
    _core.apply_pool_edit(g, edit)


__all__ = ["apply_plan"]
