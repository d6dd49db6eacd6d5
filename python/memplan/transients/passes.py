"""The transient-storage passes and the ``memplan-transients`` pipeline."""

from __future__ import annotations

from typing import Optional

import numpy as np
from mlir import ir

from memplan.ir.graph import extract_graph, operation
from memplan.lifetimes import roles as K
from memplan.lifetimes.sizes import custom_data_layout
from memplan.passes import (CAPACITY, SEARCH_BUDGET, Option, PassContext, alignment, forward_options, register_pass,
                            register_pipeline)
from memplan.transients.annotate import annotate
from memplan.transients.contract import add_storage_argument, find_storage, functions_by_name, is_public
from memplan.transients.emplace import emplace_module
from memplan.transients.plan import DEFAULT_ALIGNMENT, ModulePlan, plan_module
from memplan.transients.queries import annotate_constant_sizes, materialize_queries

_ALIGNMENT = Option("alignment", alignment, DEFAULT_ALIGNMENT, "byte alignment of every offset in the storage")


def _report(plan: ModulePlan, ctx: PassContext, remarks: bool) -> bool:
    """Emit the plan's diagnostics; True when there was an error."""
    for d in plan.errors:
        ctx.error(operation(plan.graph, d.op), d.message,
                  [(operation(plan.graph, op), text) for op, text in d.notes])
    if remarks:
        for d in plan.remarks:
            ctx.remark(operation(plan.graph, d.op), d.message)
    return bool(plan.errors)


def _plan(module: ir.Operation, ctx: PassContext) -> Optional[ModulePlan]:
    """The module's transient plan; None (after a located error) when the
    module sets a data layout memplan does not model."""
    layout = custom_data_layout(module)
    if layout is not None:
        ctx.error(module, f"{ctx.info.argument}: the module sets its own data layout ({layout}); "
                          "memplan sizes elements for LLVM's default layout only")
        return None
    # The storage is a default-space buffer: that space's capacity bounds it.
    capacity = ctx.options.get("capacity", CAPACITY.default).bounds.of(0)
    return plan_module(extract_graph(module), alignment=ctx.options.get("alignment", DEFAULT_ALIGNMENT),
                       capacity=capacity, budget=ctx.options["search_budget"])


def _valid_plan(module: ir.Operation, ctx: PassContext) -> Optional[ModulePlan]:
    """The module's transient plan when it has no error (the errors are
    emitted), for the passes that change the IR."""
    plan = _plan(module, ctx)
    return None if plan is None or _report(plan, ctx, remarks=False) else plan


@register_pass(
    "memplan-add-transient-storage",
    "Add a caller-provided transient storage argument to a function",
    "Appends `%storage: memref<?xi8> {memplan.transients}` to the public function "
    "named by `func`. Fails if it is missing, private, called in the module, or "
    "already takes storage.",
    options=[Option("func", str, "", "name of the function (without @)")],
)
def _add_storage(module: ir.Operation, ctx: PassContext) -> None:
    name = ctx.options["func"]
    if not name:
        ctx.error(module, "memplan-add-transient-storage: the option 'func' (the function to "
                          "add storage to, without @) is required")
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
            ctx.error(operation(graph, op), f"cannot add transient storage to @{name}: it is called here")
            return
    add_storage_argument(operation(graph, f))


@register_pass(
    "memplan-verify-transient-storage",
    "Check that every transient allocation can be placed in caller storage",
    "Errors (with locations) when a transient size depends on a memory load, a "
    "call, a mutable global, or a value that cannot be recomputed at the function "
    "entry, on recursion, and on a malformed storage argument. Remarks name the "
    "allocations that stay on the heap and why. The IR is unchanged.",
    options=[Option("remarks", bool, True, "emit remarks for allocations left on the heap"), CAPACITY, SEARCH_BUDGET],
    per_module=True,
)
def _verify(module: ir.Operation, ctx: PassContext) -> None:
    plan = _plan(module, ctx)
    if plan is None:
        return
    _report(plan, ctx, ctx.options["remarks"])
    ctx.stat("functions", len(plan.functions), "functions planned")
    ctx.stat("transients", sum(len(fp.items) for fp in plan.functions.values()), "transient items")


@register_pass(
    "memplan-annotate-transient-storage",
    "Write the transient storage plan as attributes (test pass)",
    "Per allocation its scope, live interval, slot, offset and size expressions "
    "(or why it stays on the heap); per function the storage argument and size "
    "expression; per call the callee storage passed down.",
    options=[_ALIGNMENT, CAPACITY, SEARCH_BUDGET],
    per_module=True,
)
def _annotate(module: ir.Operation, ctx: PassContext) -> None:
    plan = _valid_plan(module, ctx)
    if plan is None:
        return
    annotate(plan)


@register_pass(
    "memplan-emplace-transients",
    "Place every transient allocation in caller-provided storage",
    "Each transient `memref.alloc` becomes `memref.view %storage[%offset][sizes]` "
    "and loses its dealloc; callees that need storage get a `memref<?xi8>` argument "
    "and receive a view of the caller's storage. Offsets and the total size are "
    "computed at the function entry; with `assert-size` a `cf.assert` checks that "
    "the storage is large enough. Function results stay on the heap.",
    options=[
        Option("assert-size", bool, True, "check the storage size with cf.assert"),
        _ALIGNMENT,
        CAPACITY,
        SEARCH_BUDGET,
    ],
    per_module=True,
)
def _emplace(module: ir.Operation, ctx: PassContext) -> None:
    plan = _valid_plan(module, ctx)
    if plan is None:
        return
    stats = emplace_module(plan, assert_size=ctx.options["assert_size"])
    ctx.stat("num-emplaced", stats["emplaced"], "allocations placed in caller storage")
    ctx.stat("num-calls", stats["calls"], "calls passed a storage view")
    ctx.stat("num-heap-calls", stats["heap-calls"], "calls given heap storage by a caller without storage")
    ctx.stat("num-heap", sum(len(fp.heap) for fp in plan.functions.values()), "allocations left on the heap")


@register_pass(
    "memplan-materialize-transient-size-queries",
    "Generate @<name>_transient_size functions",
    "For each public function with caller storage, a public function with the "
    "same arguments minus the storage returning the required bytes (`index`), "
    "built from pure arithmetic only. The original function gets "
    "`memplan.transient_size_fn`. Runs after memplan-emplace-transients.",
    per_module=True,
)
def _queries(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    errors: list[tuple[int, str]] = []
    created = materialize_queries(graph, errors)
    for op, message in errors:
        ctx.error(operation(graph, op), message)
    ctx.stat("num-queries", len(created), "size-query functions created")


@register_pass(
    "memplan-annotate-constant-transient-size",
    "Record sizes whose query folded to a constant",
    "After canonicalize and cse: when `@<name>_transient_size` returns a constant, "
    "put `memplan.transient_size = N : index` on the function, so callers can "
    "skip the query.",
    per_module=True,
)
def _constant(module: ir.Operation, ctx: PassContext) -> None:
    ctx.stat("num-constant", annotate_constant_sizes(module), "constant transient sizes")


def _packing(options: dict) -> str:
    """The packing options the pipeline forwards, where they are set."""
    return forward_options(options, (CAPACITY, SEARCH_BUDGET))


register_pipeline(
    "memplan-transients",
    "Verify, emplace, generate size queries, fold, and record constant sizes",
    lambda o: (
        f"memplan-verify-transient-storage{{remarks=false{_packing(o)}}},"
        f"memplan-emplace-transients{{assert-size={str(o['assert_size']).lower()} alignment={o['alignment']}"
        f"{_packing(o)}}},"
        "memplan-materialize-transient-size-queries,canonicalize,cse,"
        "memplan-annotate-constant-transient-size"
    ),
    "Runs memplan-verify-transient-storage, memplan-emplace-transients (both with the capacity and "
    "search budget), "
    "memplan-materialize-transient-size-queries, canonicalize, cse and "
    "memplan-annotate-constant-transient-size.",
    options=[Option("assert-size", bool, True, "check the storage size with cf.assert"), _ALIGNMENT, CAPACITY,
             SEARCH_BUDGET],
)
