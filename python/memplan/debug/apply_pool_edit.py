"""``memplan-test-apply-pool-edit``: apply pools stated by attributes.

A test pass for the pool rewrite without its planner: in each block, the
``memref.alloc`` ops carrying ``memplan.test_offset = N`` (bytes) are the
members of one pool. The pass states that pool as the edit
``memplan-buffer-reuse`` would (:mod:`memplan.reuse.rewrite`: the pool's
alloc and one ``arith.constant`` per distinct offset before the first member,
the pool freed where the last member's dealloc was) and applies it with
``memplan._core.apply_pool_edit``, so that lit tests pin down the rewrite
alone. Offsets are taken as given, overlaps included: checking a plan is the
planner's business. A member with a dynamic size or a negative offset, or
without exactly one ``memref.dealloc`` in its block, is a located error and
nothing is changed.
"""

from __future__ import annotations

from collections import defaultdict

from mlir import ir

from memplan import _core
from memplan.ir.graph import extract_graph, operation
from memplan.lifetimes import roles as K
from memplan.passes import PassContext

#: The attribute naming a member's byte offset.
OFFSET = "memplan.test_offset"


def _previous_sibling(graph: _core.Graph, op: int) -> int:
    """The op right before ``op`` in its block, or -1."""
    block = graph.op_block[op]
    for p in range(op - 1, -1, -1):
        if graph.op_block[p] == block and graph.op_end[p] == op - 1:
            return p
    return -1


def run(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    alloc = graph.name_id("memref.alloc")
    pools: dict[int, list[int]] = defaultdict(list)
    for op in range(graph.num_ops):
        if graph.op_name[op] == alloc and graph.int_attribute(op, OFFSET) is not None:
            pools[int(graph.op_block[op])].append(op)
    plans = []
    for members in pools.values():
        deallocs, end = [], 0
        for op in members:
            info = graph.types[graph.value_type[graph.result_begin[op]]]
            block = graph.op_block[op]
            frees = [
                f for f in K.frees(graph, int(graph.result_begin[op])) if graph.op_block[f] == block
            ]
            if not info.has_static_shape:
                ctx.error(
                    operation(graph, op),
                    "memplan-test-apply-pool-edit: a member must have a static size",
                )
            elif graph.int_attribute(op, OFFSET) < 0:
                ctx.error(
                    operation(graph, op),
                    "memplan-test-apply-pool-edit: a member's offset must not be negative",
                )
            elif len(frees) != 1:
                ctx.error(
                    operation(graph, op),
                    "memplan-test-apply-pool-edit: a member must have one memref.dealloc "
                    "in its block",
                )
            else:
                deallocs.append(frees[0])
                end = max(end, graph.int_attribute(op, OFFSET) + info.static_bytes)
        plans.append((members, deallocs, end))
    if ctx.failed:
        return
    align = ctx.options["alignment"]
    for members, deallocs, end in plans:
        steps = [(int(_core.EditStep.POOL), -(-end // align) * align, 0, 0)]
        step_of: dict[int, int] = {}
        for op in members:
            offset = graph.int_attribute(op, OFFSET)
            if offset not in step_of:
                step_of[offset] = len(steps)
                steps.append((int(_core.EditStep.CONSTANT), offset, 0, 0))
        edit = _core.PoolEdit()
        edit.insert_before = members[0]
        edit.dealloc_after = _previous_sibling(graph, max(deallocs))
        edit.alignment = align
        edit.steps = steps
        edit.allocs = members
        edit.deallocs = deallocs
        edit.offset_step = [step_of[graph.int_attribute(op, OFFSET)] for op in members]
        _core.apply_pool_edit(graph, edit)
    ctx.stat("pools", len(plans), "Pools applied")


__all__ = ["OFFSET", "run"]
