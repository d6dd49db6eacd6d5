"""Passes on tensor programs that lower the memory peak bufferization reaches.

* ``memplan-split-destinations`` (:mod:`.split_destinations`): one fresh
  destination per use, placed right before the op that writes it, so that a
  destination an importer CSE'd across layers no longer keeps one buffer live
  from the first layer to the last.
* ``memplan-recompute-cheap-values`` (:mod:`.recompute`): values whose
  computation reads only constants and scalars (fills, broadcasts of
  constants) computed again at their users where holding them costs bytes
  at the peak.
* ``memplan-reuse-dying-inputs`` (:mod:`.dying_inputs`): elementwise results
  written into an input that dies there.
* ``memplan-reorder-for-memory`` (:mod:`.reorder`): a memory-aware op order.
* ``memplan-eliminate-subset-copies`` (:mod:`.subset_copies`): the producers
  of a value copied into a pad, a concat or an insert_slice write straight
  into that subset of the larger tensor.
"""

from __future__ import annotations

from typing import Any, Callable

from mlir import ir

from memplan.passes import PassContext


def report(stats: Any, ctx: PassContext) -> None:
    """Reports the counters of a C++ rewrite's ``stats`` (a ``_core``
    ``*Stats`` object) as the pass statistics its ``STATISTICS`` names."""
    for attribute, statistic, description in stats.STATISTICS:
        ctx.stat(statistic, getattr(stats, attribute), description)


def analyzing_pass(
    argument: str, transform: Callable[[Any, dict[str, Any]], Any], changed: str
) -> Callable[[ir.Operation, PassContext], None]:
    """The body of the pass ``argument`` that runs the C++ ``transform``
    (given the pass' option values), which asks the in-place analysis, on
    the module: its counters as statistics, and a remark when the analysis
    failed and nothing changed. The pass keeps every analysis when its
    counter ``changed`` is 0."""

    def run(module: ir.Operation, ctx: PassContext) -> None:
        stats = transform(module._CAPIPtr, ctx.options)
        if not stats.analyzed:
            ctx.remark(
                module, f"{argument}: the in-place analysis failed on this module; nothing changed"
            )
        report(stats, ctx)
        ctx.preserves_all_analyses = getattr(stats, changed) == 0

    return run
