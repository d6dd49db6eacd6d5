"""``memplan-buffer-deallocation``: free what memplan understands, leave the
rest to upstream's ownership-based deallocation.

Runs on bufferized IR that has no deallocations yet (after
``one-shot-bufferize``), where upstream's ``buffer-deallocation-pipeline``
would run. See :mod:`memplan.deallocation.placement` for which buffers
memplan frees and when upstream's pipeline is still needed; when it is, it
runs as a nested pipeline of this pass, with memplan's deallocations marked
``bufferization.manual_deallocation`` so that it leaves them alone, then
``optimize-allocation-liveness`` for its own.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.ir.graph import extract_graph, operation
from memplan.deallocation.placement import plan_deallocation
from memplan.passes import PassContext

#: What runs for the buffers memplan leaves to upstream.
UPSTREAM_DEALLOCATION = "builtin.module(buffer-deallocation-pipeline, func.func(optimize-allocation-liveness))"


def run(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    plan = plan_deallocation(graph)
    if ctx.options["remarks"]:
        for op, why in plan.left_to_upstream:
            ctx.remark(operation(graph, op), f"left to upstream's deallocation: {why}")
    if plan.upstream_needed and plan.existing_deallocs:
        # Upstream's ownership-based deallocation rejects frees it did not
        # place; memplan cannot tell whose they are.
        ctx.error(operation(graph, plan.existing_deallocs[0]),
                  "memplan-buffer-deallocation: the module frees buffers already, and upstream's "
                  "ownership-based deallocation (needed here for "
                  f"{plan.left_to_upstream[0][1]}) rejects that; run the pass right after bufferization")
        return
    ctx.stat("freed-by-memplan", len(plan.allocs), "Allocations memplan frees after their last use")
    ctx.stat("left-to-upstream", len(plan.left_to_upstream),
             "Allocations and memrefs left to upstream's ownership-based deallocation")
    _core.insert_deallocs(graph, plan.allocs, plan.after, plan.upstream_needed)
    del graph  # stale from here on
    ctx.stat("ran-upstream-deallocation", int(plan.upstream_needed),
             "Whether upstream's deallocation pipeline ran for the rest")
    if plan.upstream_needed and not ctx.run_pipeline(UPSTREAM_DEALLOCATION):
        ctx.failed = True
    ctx.preserves_all_analyses = not len(plan.allocs) and not plan.upstream_needed


__all__ = ["UPSTREAM_DEALLOCATION"]
