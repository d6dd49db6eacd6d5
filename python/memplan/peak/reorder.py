"""``memplan-reorder-for-memory``: a memory-aware op order for tensor programs.

The order an importer emits ops in is rarely the one with the lowest peak:
in GPT-2's tanh-GELU, ``0.5 * x`` is computed first and held while
``x ** 3`` and its chain are, where computing it last lets it write into
``x``, which dies there, and keeps two FFN-wide temporaries from
overlapping. This pass schedules each single-block function body (C++:
``lib/Peak/ReorderForMemory.cpp``) by a beam search over list
schedules: ``beam-width`` partial schedules, each ``lookahead`` ops beyond
a committed prefix; an op that allocates nothing goes first whenever one is
ready, and the first ``branching`` ready ops (in the original order) are
tried where each would allocate. It is bounded (``ops * beam-width *
(lookahead + branching)`` steps, each over an op's buffers; no op moves
more than ``lookahead + branching`` ops from its place) and deterministic.

The model: buffers are memplan's in-place analysis' alias sets with a
member that bufferizes to a new allocation, live from their first toucher
to their last (a returned one to the end); the writes of
``memplan-reuse-dying-inputs`` (which runs next) are modeled, an
elementwise op taking a dying input's buffer where it is that buffer's
last toucher. The order keeps every use-def dependence, the relative order
of the ops with memory effects (``cf.assert`` among them), and every read
of a tensor before an in-place write over it. A body is reordered only when
its modeled peak goes down (else the importer's order stays), and put back
when the analysis of the new order leaves an operand out of place that was
in place; a body with a new buffer whose size is known at run time only
keeps its order. Tensor semantics are unchanged.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext
from memplan.peak import report

#: The options that bound the search (include/memplan/Passes/PassOptions.def).
BOUNDS = ("beam_width", "lookahead", "branching")


def run(module: ir.Operation, ctx: PassContext) -> None:
    """The pass' body: the C++ rewrite, its counters as statistics."""
    for name in BOUNDS:
        if ctx.options[name] < 1:
            option = name.replace("_", "-")
            ctx.error(
                module,
                f"memplan-reorder-for-memory: option '{option}' must be at "
                f"least 1, got {ctx.options[name]}",
            )
            return
    stats = _core.reorder_for_memory(module._CAPIPtr, ctx.options)
    if not stats.analyzed:
        ctx.remark(
            module,
            "memplan-reorder-for-memory: the in-place analysis failed on this "
            "module; nothing changed",
        )
    report(stats, ctx)
    ctx.preserves_all_analyses = stats.reordered == 0


__all__ = ["run"]
