"""Apply pool plans to the IR through the MLIR Python bindings.

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

Every op handle is taken from the graph before the first change, and changes
only insert before existing ops, so the handles stay valid throughout.
"""

from __future__ import annotations

from typing import Optional

from mlir import ir
from mlir.dialects import arith, memref

from memplan import _core
from memplan.ir.graph import Graph, operation
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.sizes import dynamic_size_values
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
    factor = (info.elem_bits + 7) // 8
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
    allocs = {i: operation(g, int(lt.op[i])) for i in members}
    deallocs = [operation(g, int(lt.dealloc[i])) for i in members]
    dyn_operands = {i: dynamic_size_values(g, int(lt.op[i])) for i in plan.dynamic_members}
    anchor = operation(g, plan.insert_before)
    after_last = int(g.op_end[plan.dealloc_after]) + 1
    dealloc_anchor = operation(g, after_last)
    hoisted = [operation(g, op) for op in plan.hoist if op > plan.insert_before]

    with anchor.context, anchor.location:
        index = ir.IndexType.get()
        i8 = ir.IntegerType.get_signless(8)
        for op in hoisted:
            op.move_before(anchor)
        consts: dict[int, ir.Value] = {}
        with ir.InsertionPoint(anchor):
            static_end = -(-plan.static_size // plan.alignment) * plan.alignment
            dyn_offsets: dict[int, ir.Value] = {}
            pool_sizes: list[ir.Value] = []
            if plan.dynamic_members:
                offset = _constant(consts, static_end, index)
                for i in plan.dynamic_members:
                    sizes = [allocs[i].operands[k] for k in range(len(dyn_operands[i]))]
                    dyn_offsets[i] = offset
                    nbytes = _align_up(
                        _dynamic_bytes(g, int(lt.op[i]), sizes, consts, index),
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
            static_offsets = {
                int(i): _constant(consts, int(off), index)
                for i, off in zip(plan.static_members, plan.offsets)
            }
        for i in members:
            alloc = allocs[i]
            result = alloc.results[0]
            with ir.InsertionPoint(alloc), alloc.location:
                if i in dyn_offsets:
                    sizes = [alloc.operands[k] for k in range(len(dyn_operands[i]))]
                    view = memref.view(result.type, pool, dyn_offsets[i], sizes)
                else:
                    view = memref.view(result.type, pool, static_offsets[i], [])
            result.replace_all_uses_with(view)
        with ir.InsertionPoint(dealloc_anchor):
            memref.dealloc(pool)
        for d in deallocs:
            d.erase()
        for i in members:
            allocs[i].erase()


__all__ = ["apply_plan"]
