"""``memplan-buffer-deallocation``: memplan frees every buffer its ownership
analysis reasons about; upstream's ownership-based deallocation runs only for
the functions it leaves.

Runs on bufferized IR (after ``one-shot-bufferize``), where upstream's
``buffer-deallocation-pipeline`` would run. The analysis and the rewrite are
C++ (``lib/Deallocation/Ownership.cpp``, ``lib/Deallocation/InsertDeallocs.cpp``):
what memplan owns is known from the analysis, never from an attribute. A
function it leaves (an op without memory effects information on buffers,
a loop of branches, ...) is handed to upstream's pipeline with every other
function's body out of its sight; inputs upstream's pass crashes on are a
located error instead.

The pass is one C++ call (``_core.deallocate_buffers``): the analysis and the
apply that :mod:`memplan.deallocation.plans` hands out as data, without the
graph and the second analysis that stating the plans in its ids needs (on
GPT-2 they would double the pass's CPU time, 24 to 48 ms, with the same
output).
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext

#: What runs for the functions memplan leaves to upstream.
UPSTREAM_DEALLOCATION = (
    "builtin.module(buffer-deallocation-pipeline, func.func(optimize-allocation-liveness))"
)


def run(module: ir.Operation, ctx: PassContext) -> None:
    """Frees what memplan's ownership analysis reasons about; upstream's
    deallocation runs for the functions it leaves."""
    stats, left, unawaited = _core.deallocate_buffers(module._CAPIPtr, ctx.options)
    for attribute, statistic, description in _core.DeallocationStats.STATISTICS:
        ctx.stat(statistic, getattr(stats, attribute), description)
    for buffer, work in unawaited:
        ctx.warning(
            ir.Location._CAPICreate(buffer),
            "memplan-buffer-deallocation: not freed: asynchronous work that uses "
            "the buffer is never awaited in its block",
            [(ir.Location._CAPICreate(work), "the work starts here")],
        )
    if not left:
        ctx.preserves_all_analyses = not (stats.frees or stats.copies or stats.loop_copies)
        return
    functions = [ir.Operation._CAPICreate(func) for func, _, _, _ in left]
    for func, (_, at, reason, allocations) in zip(functions, left):
        if ctx.options["remarks"]:
            ctx.remark(
                ir.Operation._CAPICreate(at),
                f"left to upstream's deallocation ({allocations} heap allocations): " f"{reason}",
            )
        if not _core.check_upstream_deallocation(func._CAPIPtr):
            ctx.failed = True
    if ctx.failed:
        return
    hidden = _core.HiddenFunctionBodies(module._CAPIPtr, [f._CAPIPtr for f in functions])
    try:
        if not ctx.run_pipeline(UPSTREAM_DEALLOCATION):
            ctx.failed = True
    finally:
        hidden.restore()


__all__ = ["UPSTREAM_DEALLOCATION"]
