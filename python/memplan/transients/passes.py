"""The bodies of the transient-storage passes (declared, with the
``memplan-transients`` pipeline, in :mod:`memplan.passes.declarations`)."""

from __future__ import annotations

from typing import Optional

import numpy as np
from mlir import ir

from memplan import _core
from memplan.ir.graph import extract_graph, operation
from memplan.lifetimes import roles as K
from memplan.lifetimes.sizes import custom_data_layout
from memplan.passes import CAPACITY, PassContext, search_budget
from memplan.transients.annotate import annotate
from memplan.transients.contract import ATTR, find_storage, functions_by_name, is_public
from memplan.transients.emplace import emplace_module, new_edit
from memplan.transients.plan import DEFAULT_ALIGNMENT, ModulePlan, plan_module
from memplan.transients.queries import annotate_constant_sizes, materialize_queries


def _report(plan: ModulePlan, ctx: PassContext, remarks: bool) -> bool:
    """Emit the plan's diagnostics; True when there was an error."""
    for d in plan.errors:
        ctx.error(
            operation(plan.graph, d.op),
            d.message,
            [(operation(plan.graph, op), text) for op, text in d.notes],
        )
    if remarks:
        for d in plan.remarks:
            ctx.remark(operation(plan.graph, d.op), d.message)
    return bool(plan.errors)


def _plan(module: ir.Operation, ctx: PassContext) -> Optional[ModulePlan]:
    """The module's transient plan; None (after a located error) when the
    module sets a data layout memplan does not model."""
    layout = custom_data_layout(module)
    if layout is not None:
        ctx.error(
            module,
            f"{ctx.info.argument}: the module sets its own data layout ({layout}); "
            "memplan sizes elements for LLVM's default layout only",
        )
        return None
    # The storage is a default-space buffer: that space's capacity bounds it.
    capacity = ctx.options.get("capacity", CAPACITY.default).bounds.of(0)
    return plan_module(
        extract_graph(module),
        alignment=ctx.options.get("alignment", DEFAULT_ALIGNMENT),
        capacity=capacity,
        budget=search_budget(ctx.options),
    )


def _valid_plan(module: ir.Operation, ctx: PassContext) -> Optional[ModulePlan]:
    """The module's transient plan when it has no error (the errors are
    emitted), for the passes that change the IR."""
    plan = _plan(module, ctx)
    return None if plan is None or _report(plan, ctx, remarks=False) else plan


def run_add_storage(module: ir.Operation, ctx: PassContext) -> None:
    name = ctx.options["func"]
    if not name:
        ctx.error(
            module,
            "memplan-add-transient-storage: the option 'func' (the function to "
            "add storage to, without @) is required",
        )
        return
    graph = extract_graph(module)
    funcs = functions_by_name(graph)
    if name not in funcs:
        ctx.error(module, f"memplan-add-transient-storage: no function @{name}")
        return
    f = funcs[name]
    if not is_public(graph, f):
        ctx.error(operation(graph, f), f"cannot add transient storage to private function @{name}")
        return
    if find_storage(graph, f).index is not None:
        ctx.error(operation(graph, f), f"@{name} already takes transient storage")
        return
    for op in np.nonzero((graph.op_role & 0xFF) == K.CALL)[0].tolist():
        if graph.callee(op) == name:
            ctx.error(
                operation(graph, op), f"cannot add transient storage to @{name}: it is called here"
            )
            return
    edit = new_edit()
    edit.new_arguments = [f]
    edit.storage_marker = ATTR
    _core.apply_transient_edit(graph, edit)


def run_verify(module: ir.Operation, ctx: PassContext) -> None:
    plan = _plan(module, ctx)
    if plan is None:
        return
    _report(plan, ctx, ctx.options["remarks"])
    ctx.stat("functions", len(plan.functions), "functions planned")
    ctx.stat("transients", sum(len(fp.items) for fp in plan.functions.values()), "transient items")


def run_annotate(module: ir.Operation, ctx: PassContext) -> None:
    plan = _valid_plan(module, ctx)
    if plan is None:
        return
    annotate(plan)


def run_emplace(module: ir.Operation, ctx: PassContext) -> None:
    plan = _valid_plan(module, ctx)
    if plan is None:
        return
    stats = emplace_module(plan, assert_size=ctx.options["assert_size"])
    ctx.stat("num-emplaced", stats["emplaced"], "allocations placed in caller storage")
    ctx.stat("num-calls", stats["calls"], "calls passed a storage view")
    ctx.stat(
        "num-heap-calls",
        stats["heap-calls"],
        "calls given heap storage by a caller without storage",
    )
    ctx.stat(
        "num-heap",
        sum(len(fp.heap) for fp in plan.functions.values()),
        "allocations left on the heap",
    )


def run_queries(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    errors: list[tuple[int, str]] = []
    created = materialize_queries(graph, errors)
    for op, message in errors:
        ctx.error(operation(graph, op), message)
    ctx.stat("num-queries", len(created), "size-query functions created")


def run_constant(module: ir.Operation, ctx: PassContext) -> None:
    ctx.stat("num-constant", annotate_constant_sizes(module), "constant transient sizes")
