"""Apply pool plans to the IR: the pool through the MLIR Python bindings, the
per-allocation views through the C++ core.

For each :class:`~memplan.reuse.plan.PoolPlan`::

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

The pool, its size arithmetic and the offset constants are built with the
bindings; ``memplan._core.replace_allocs_with_views`` then creates each
``memref.view`` before its alloc, replaces the alloc's uses and erases the
alloc and its dealloc on MLIR's C++ API (lib/transforms/AllocsToViews.cpp;
100k allocations in milliseconds; transient emplacement uses it too). Ops
that Python holds a handle to are erased from Python.
Graph op ids stay valid throughout: nothing is erased before the last lookup.
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np
from mlir import ir
from mlir.dialects import arith, memref

from memplan import _core
from memplan.ir.graph import Graph, ir_value, operation
from memplan.lifetimes import bounds as B
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.sizes import dynamic_size_values, element_bytes
from memplan.reuse.plan import Layout, PoolPlan


def _constant(cache: dict[int, ir.Value], value: int, index: ir.Type) -> ir.Value:
    c = cache.get(value)
    if c is None:
        c = arith.constant(index, value)
        cache[value] = c
    return c


def _dynamic_bytes(
    graph: Graph, op: int, sizes: list[ir.Value], cache: dict[int, ir.Value], index: ir.Type
) -> ir.Value:
    """``index`` value of an allocation's byte size: element bytes x static dims x sizes."""
    info = graph.types[graph.value_type[graph.result_begin[op]]]
    factor = element_bytes(info)
    for d in info.shape:
        if d != _core.DYNAMIC:
            factor *= d
    total: Optional[ir.Value] = None
    for s in sizes:
        total = s if total is None else arith.muli(total, s)
    assert total is not None
    if factor != 1:
        total = arith.muli(total, _constant(cache, factor, index))
    return total


def _align_up(value: ir.Value, align: int, cache: dict[int, ir.Value], index: ir.Type) -> ir.Value:
    if align <= 1:
        return value
    bumped = arith.addi(value, _constant(cache, align - 1, index))
    return arith.muli(
        arith.divui(bumped, _constant(cache, align, index)), _constant(cache, align, index)
    )


Offset = Union[int, ir.Value]
"""A byte count known to the planner (int) or computed at run time."""


class _Layout:
    """Emits a :class:`~memplan.reuse.plan.Layout`'s offsets and pool size
    as ``index`` arithmetic at the insertion point: each item's offset is
    the largest end of the items directly below it, constants folded."""

    def __init__(
        self,
        g: Graph,
        lt: FunctionLifetimes,
        plan: PoolPlan,
        layout: Layout,
        sizes: dict[int, list[ir.Value]],
        consts: dict[int, ir.Value],
        shared: dict[tuple, ir.Value],
        index: ir.Type,
    ):
        self.g, self.lt, self.plan, self.sizes = g, lt, plan, sizes
        self.consts, self.index = consts, index
        self.layout = layout
        self.slots: list[Optional[Offset]] = [None] * len(layout.items)
        self.shared = shared  # slot computations, shared by the layouts of one pool
        # Each item's offset with every dynamic size 0: the least it can be
        # (every operation is monotone in the sizes), so a constant no larger
        # than a run-time term's least value is left out of a maximum.
        self.least: list[int] = []
        self.offsets: list[Offset] = []

    def value(self, x: Offset) -> ir.Value:
        """``x`` as an ``index`` value (constants emitted once)."""
        return _constant(self.consts, x, self.index) if isinstance(x, int) else x

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
                    value = _dynamic_bytes(self.g, op, self.sizes[row], self.consts, self.index)
                    if any(sm.atoms for sm in self.layout.slots[k]):  # not a multiple of it already
                        value = _align_up(value, self.plan.alignment, self.consts, self.index)
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
        values = []
        for i, _ in kept:
            off, slot = self.offsets[i], self.value(self.slot(i))
            at_zero = isinstance(off, int) and off == 0
            values.append(slot if at_zero else arith.addi(self.value(off), slot))
        out = values[0]
        for v in values[1:]:
            out = arith.maxui(out, v)
        if biggest > max(x for _, x in kept):
            out = arith.maxui(out, self.value(biggest))
        return out, least

    def emit(self) -> Offset:
        """Every item's offset, then the pool's bytes."""
        below = self.layout.below
        for k in range(len(self.layout.items)):
            off, least = self.top(below[k])
            if isinstance(off, int) and B.constant_value(self.layout.slots[k]) is None:
                self.value(off)  # a dynamic item's offset ahead of the sizes, as a bump layout
            self.offsets.append(off)
            self.least.append(least)
        above = {i for b in below for i in b}
        size, _ = self.top([k for k in range(len(below)) if k not in above])
        return size


def _emit_layouts(
    g: Graph,
    lt: FunctionLifetimes,
    plan: PoolPlan,
    sizes: dict[int, list[ir.Value]],
    consts: dict[int, ir.Value],
    index: ir.Type,
) -> tuple[Offset, dict[tuple, Offset]]:
    """The pool's bytes and each item's offset (by its rows): one layout's,
    or, with several, those of the layout whose pool is smallest at run time
    (the first of equal ones), chosen with ``arith.select``."""
    shared: dict[tuple, ir.Value] = {}
    emitters = [
        _Layout(g, lt, plan, layout, sizes, consts, shared, index) for layout in plan.layouts
    ]
    size = emitters[0].emit()
    offsets = dict(zip(plan.layouts[0].items, emitters[0].offsets))
    for emitter in emitters[1:]:
        other = emitter.emit()
        smaller = arith.cmpi(
            arith.CmpIPredicate.ult, _value(other, consts, index), _value(size, consts, index)
        )
        size = arith.select(smaller, _value(other, consts, index), _value(size, consts, index))
        for rows, off in zip(emitter.layout.items, emitter.offsets):
            if offsets[rows] != off:
                offsets[rows] = arith.select(
                    smaller, _value(off, consts, index), _value(offsets[rows], consts, index)
                )
    return size, offsets


def _value(x: Offset, consts: dict[int, ir.Value], index: ir.Type) -> ir.Value:
    return _constant(consts, x, index) if isinstance(x, int) else x


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
    member_ops = {int(lt.op[i]) for i in members} | {int(lt.dealloc[i]) for i in members}
    member_ops |= set(plan.merged_deallocs)
    # Python handles only where Python needs them; the C++ kernel erases the
    # remaining allocs and deallocs without ever wrapping them.
    handles: dict[int, ir.Operation] = {}

    def handle(op: int) -> ir.Operation:
        if op not in handles:
            handles[op] = operation(g, op)
        return handles[op]

    anchor = handle(plan.insert_before)
    # Right after the last use: the op after it may be a dealloc another
    # pool's rewrite has erased already.
    last_use = handle(plan.dealloc_after)
    dyn_allocs = {i: handle(int(lt.op[i])) for i in plan.dynamic_members}
    dyn_operands = {i: dynamic_size_values(g, int(lt.op[i])) for i in plan.dynamic_members}
    for i, alloc in dyn_allocs.items():
        # The views take the sizes the pool was planned with: a dimension of
        # another allocation becomes that allocation's size operand.
        for k, v in enumerate(lt.size_values.get(i, ())):
            if v != dyn_operands[i][k]:
                alloc.operands[k] = ir_value(g, v)
    hoisted = [operation(g, op) for op in plan.hoist if op > plan.insert_before]

    with anchor.context, anchor.location:
        index = ir.IndexType.get()
        i8 = ir.IntegerType.get_signless(8)
        for op in hoisted:
            op.move_before(anchor)
        consts: dict[int, ir.Value] = {}
        offset_values: list[ir.Value] = []
        offset_slot: dict[int, int] = {}
        member_slot: dict[int, int] = {}
        with ir.InsertionPoint(anchor):
            pool_sizes: list[ir.Value] = []
            if plan.layouts:
                sizes = {
                    i: list(dyn_allocs[i].operands)[: len(dyn_operands[i])]
                    for i in plan.dynamic_members
                }
                pool_bytes, item_offsets = _emit_layouts(g, lt, plan, sizes, consts, index)
                if isinstance(pool_bytes, int):
                    pool_type = ir.MemRefType.get([pool_bytes], i8)
                else:
                    pool_sizes = [pool_bytes]
                    pool_type = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], i8)
            else:
                pool_type = ir.MemRefType.get([plan.static_size], i8)
            pool = memref.alloc(
                pool_type,
                pool_sizes,
                [],
                alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), plan.alignment),
            )
            if plan.layouts:
                for rows_k, off in item_offsets.items():
                    value = _constant(consts, off, index) if isinstance(off, int) else off
                    for i in rows_k:
                        member_slot[int(i)] = len(offset_values)
                        offset_values.append(value)
            else:
                for i, off in zip(plan.static_members, plan.offsets):
                    off = int(off)
                    if off not in offset_slot:
                        offset_slot[off] = len(offset_values)
                        offset_values.append(_constant(consts, off, index))
                    member_slot[int(i)] = offset_slot[off]
        with ir.InsertionPoint.after(last_use):
            memref.dealloc(pool)

        for op in plan.merged_deallocs:
            handle(op)  # erased below, from Python
        keep = sorted(op for op in handles if op in member_ops)
        rows = np.array(members, dtype=np.int64)
        _core.replace_allocs_with_views(
            g,
            np.ascontiguousarray(lt.op[rows], dtype=np.int32),
            np.ascontiguousarray(lt.dealloc[rows], dtype=np.int32),
            pool,
            offset_values,
            np.array([member_slot[i] for i in members], dtype=np.int32),
            np.array([len(dyn_operands.get(i, ())) for i in members], dtype=np.int32),
            np.array(keep, dtype=np.int32),
        )
        # Deallocs before allocs: a kept dealloc never outlives its alloc.
        for op in sorted(keep, key=lambda o: K.kind(g, o) != K.DEALLOC):
            handles.pop(op).erase()


__all__ = ["apply_plan"]
