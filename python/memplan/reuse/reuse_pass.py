"""``memplan-buffer-reuse``: pack eligible allocations into one pool per scope.

Run it after the deallocation pipeline (``bufferization.dealloc`` lowered to
``memref.dealloc``), ideally after ``optimize-allocation-liveness``; see the
``memplan-memory-pipeline`` alias. Allocations the analysis rejects (escaping,
unknown users, other memory spaces, dynamic sizes it cannot hoist, ...) are
left exactly as they were and counted per reason.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from memplan.ir.graph import extract_graph, function_ids, operation
from memplan.lifetimes import reasons as R
from memplan.lifetimes.analysis import FunctionLifetimes, LifetimeAnalysis
from memplan.lifetimes.fit import buffer_note, report_over
from memplan.lifetimes.sizes import custom_data_layout
from memplan.passes import PassContext, search_budget
from memplan.passes.declarations import ALGORITHMS
from memplan.reuse.plan import PoolCapacityError, PoolOverflow, plan_function
from memplan.reuse.rewrite import apply_plan

__all__ = ["ALGORITHMS", "run"]


def run(module: ir.Operation, ctx: PassContext) -> None:
    alignment = ctx.options["alignment"]  # a power of two (its option type)
    layout = custom_data_layout(module)
    if layout is not None:
        ctx.remark(
            module,
            f"memplan-buffer-reuse: the module sets its own data layout ({layout}); "
            "memplan sizes elements for LLVM's default layout only: nothing pooled",
        )
        ctx.stat("skipped-data-layout", 1, "Modules left alone: they set their own data layout")
        return
    # Only the default memory space is pooled (the analysis leaves buffers
    # of other spaces alone), so only its capacity bounds the pools.
    capacity = ctx.options["capacity"].bounds.of(0)
    graph = extract_graph(module)
    analysis = LifetimeAnalysis(graph)
    work = []
    overflow = R.bit("size-overflow")
    for func in function_ids(graph):
        lt = analysis.function(func)
        for i in np.nonzero(lt.reasons & overflow)[0]:
            ctx.error(
                operation(graph, int(lt.op[i])), f"memplan-buffer-reuse: {lt.reason_detail(int(i))}"
            )
        try:
            fplan = plan_function(
                lt,
                ctx.options["algorithm"],
                alignment,
                capacity=capacity,
                budget=search_budget(ctx.options),
            )
        except PoolOverflow as err:
            ctx.error(operation(graph, err.op), f"memplan-buffer-reuse: {err}")
            continue
        except PoolCapacityError as err:
            _report_capacity(ctx, lt, err)
            continue
        plans = fplan.pools
        work.append((lt, plans))
        ctx.stat(
            "peak-input",
            fplan.input_peak,
            "Peak heap bytes of the pass's input, every buffer counted (summed over functions)",
        )
        ctx.stat(
            "peak-planned", fplan.peak, "Peak heap bytes with the pools (summed over functions)"
        )
        ctx.stat(
            "peak-lower-bound",
            fplan.lower_bound,
            "Lower bound of that peak (summed over functions)",
        )
        ctx.stat(
            "heap-allocations-left",
            fplan.heap_allocations,
            "Allocation sites left on the heap, pools included",
        )
        pooled = {i for p in plans for i in p.members}
        for reason, n in lt.reason_counts().items():
            ctx.stat(f"skipped-{reason}", n, f"Allocations left alone: {reason}")
        alone = int(lt.eligible.sum()) - len(pooled)
        if alone:
            ctx.stat(
                "skipped-alone",
                alone,
                "Eligible allocations left alone: alone in their scope, or pooling them would not "
                "lower the heap peak",
            )
        if ctx.options["remarks"]:
            for i in range(len(lt)):
                if lt.reason(i) is not None:
                    reason = lt.reason_detail(i)
                elif i not in pooled and capacity is not None and lt.bytes[i] < 0:
                    reason = "dynamic size: its bytes cannot be planned within the capacity"
                elif i not in pooled:
                    reason = (
                        "alone in its scope"
                        if capacity is not None
                        else "pooling it would not lower the heap peak"
                    )
                else:
                    continue
                ctx.remark(operation(graph, int(lt.op[i])), f"not pooled: {reason}")
        for p in plans:
            before = int(lt.bytes[p.static_members].sum())
            ctx.stat("pools", 1, "Pools created")
            ctx.stat("pooled-allocations", len(p.members), "Allocations replaced by pool views")
            ctx.stat(
                "pooled-dynamic", len(p.dynamic_members), "Pooled allocations with dynamic sizes"
            )
            ctx.stat(
                "branch-groups",
                len(p.merged_deallocs),
                "scf.if results whose branch buffers share one offset",
            )
            ctx.stat(
                "bytes-before", before, "Static bytes of the pooled allocations, one malloc each"
            )
            ctx.stat("bytes-after", p.static_size, "Static bytes of the pools")
            ctx.stat("pool-lower-bound", p.lower_bound, "Peak live bytes of the pooled allocations")
            ctx.stat(
                "pool-lower-bound-aligned",
                p.lower_bound_aligned,
                "Lower bound counting alignment padding",
            )
            if ctx.options["remarks"]:
                within = f", capacity {capacity}" if capacity is not None else ""
                ctx.remark(
                    operation(graph, p.insert_before),
                    f"pooled {len(p.members)} allocations into {p.static_size} bytes"
                    f" (lower bound {p.lower_bound}, {p.algorithm}{within})",
                )
    if ctx.failed:
        return
    # All planning is done before the first change: the graph stays valid.
    for lt, plans in work:
        for p in plans:
            apply_plan(lt, p)


def _report_capacity(ctx: PassContext, lt: FunctionLifetimes, err: PoolCapacityError) -> None:
    """The located error for a pool that does not fit in the capacity."""
    graph = lt.graph
    if err.over is None:
        ctx.error(operation(graph, err.scope_op), f"memplan-buffer-reuse: {err.packing_error}")
        return
    notes = [
        (int(lt.op[err.rows[k][0]]), buffer_note(graph, int(lt.op[err.rows[k][0]]), err.sizes[k]))
        for k in err.over.live
    ]
    report_over(ctx, graph, "memplan-buffer-reuse", err.over, err.capacity, "", notes, lt.func_op)
