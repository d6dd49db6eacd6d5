"""``memplan-reorder-for-memory``: a memory-aware op order for tensor programs.

The order an importer emits ops in is rarely the one with the lowest peak:
an op that frees a large buffer may wait behind ops that allocate new ones.
This pass list-schedules each single-block function body (C++:
``lib/transforms/ReorderForMemory.cpp``): among the ops whose operands are
ready, the one that frees the most bytes net of what it allocates goes first.
The order keeps every use-def dependence, the relative order of the ops with
memory effects, and every read of a tensor before an in-place write over it
(memplan's in-place analysis). Buffers are modeled as bufferization lays
them out (the analysis' alias sets rooted at a fresh destination). A body is
reordered only when its modeled peak goes down, and put back when the
analysis of the new order leaves an operand out of place that was in place.
Tensor semantics are unchanged.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext, register_pass
from memplan.peak import FUNCTION_BOUNDARIES, run_analyzing


#: The pass's statistics: counter, statistic name, description.
_COUNTERS = {
    "blocks": ("bodies", "Function bodies scheduled"),
    "reordered": ("reordered", "Function bodies whose order changed"),
    "reverted": ("reverted", "Bodies put back: the new order lost an in-place decision"),
    "peak_before": ("modeled-peak-before", "Modeled peak bytes of the reordered bodies before"),
    "peak_after": ("modeled-peak-after", "Modeled peak bytes of the reordered bodies after"),
}


@register_pass(
    "memplan-reorder-for-memory",
    "Reorder the ops of each function body for a lower memory peak, keeping every dependence",
    "Tensor level, before bufferization. Greedy list scheduling of each single-block function "
    "body: the ready op that frees the most bytes net of what it allocates first (ties in the "
    "original order). Use-def dependences, the order of ops with memory effects and the reads "
    "that precede in-place writes are kept; a body changes only when its modeled peak goes down "
    "and the in-place analysis keeps every decision.",
    options=[FUNCTION_BOUNDARIES],
)
def _run(module: ir.Operation, ctx: PassContext) -> None:
    stats = run_analyzing("memplan-reorder-for-memory", _core.reorder_for_memory, _COUNTERS, module, ctx)
    ctx.preserves_all_analyses = stats.reordered == 0


__all__: list[str] = []
