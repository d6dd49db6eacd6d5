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
arithmetic over the (hoisted) dynamic sizes.

The pool, its size arithmetic and the offset constants are built with the
bindings; ``memplan._core.replace_allocs_with_views`` then creates each
``memref.view`` before its alloc, replaces the alloc's uses and erases the
alloc and its dealloc on MLIR's C++ API (lib/transforms/AllocsToViews.cpp;
100k allocations in milliseconds; transient emplacement uses it too). Ops that Python holds a handle to are erased from Python.
Graph op ids stay valid throughout: nothing is erased before the last lookup.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from mlir import ir
from mlir.dialects import arith, memref

from memplan import _core
from memplan.ir.graph import Graph, operation
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.sizes import dynamic_size_values, element_bytes
from memplan.reuse.plan import PoolPlan


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
    return arith.muli(arith.divui(bumped, _constant(cache, align, index)), _constant(cache, align, index))


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
            static_end = -(-plan.static_size // plan.alignment) * plan.alignment
            pool_sizes: list[ir.Value] = []
            if plan.dynamic_members:
                offset = _constant(consts, static_end, index)
                # One slot after the other, each as large as its first
                # (largest) member; the members of a slot share its offset.
                for slot in plan.dynamic_slots:
                    largest = slot[0]
                    sizes = [dyn_allocs[largest].operands[k] for k in range(len(dyn_operands[largest]))]
                    for i in slot:
                        member_slot[i] = len(offset_values)
                    offset_values.append(offset)
                    nbytes = _align_up(
                        _dynamic_bytes(g, int(lt.op[largest]), sizes, consts, index),
                        plan.alignment,
                        consts,
                        index,
                    )
                    offset = arith.addi(offset, nbytes)
                pool_sizes = [offset]
                pool_type = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], i8)
            else:
                pool_type = ir.MemRefType.get([plan.static_size], i8)
            pool = memref.alloc(
                pool_type,
                pool_sizes,
                [],
                alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), plan.alignment),
            )
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
