"""Passes on tensor programs that lower the memory peak bufferization reaches.

* ``memplan-split-destinations`` (:mod:`.split_destinations`): one fresh
  destination per use, placed right before the op that writes it, so that a
  destination an importer CSE'd across layers no longer keeps one buffer live
  from the first layer to the last.
* ``memplan-reuse-dying-inputs`` (:mod:`.dying_inputs`): elementwise results
  written into an input that dies there.
* ``memplan-reorder-for-memory`` (:mod:`.reorder`): a memory-aware op order.
"""

from __future__ import annotations

from typing import Any, Callable

from mlir import ir

from memplan.passes import Option, PassContext

#: The option of the passes that ask the in-place analysis.
FUNCTION_BOUNDARIES = Option(
    "bufferize-function-boundaries", bool, True,
    "analyze as One-Shot Module Bufferize (function boundaries) bufferizes, as memplan-memory-pipeline does")


def run_analyzing(name: str, transform: Callable[[int, bool], Any], counters: dict[str, tuple[str, str]],
                  module: ir.Operation, ctx: PassContext) -> Any:
    """Runs the C++ `transform` of pass `name`, which asks the in-place
    analysis, on `module`; reports its `counters` (attribute: statistic name,
    description) as pass statistics and returns them. A remark says so when
    the analysis failed and nothing changed."""
    stats = transform(module._CAPIPtr, ctx.options["bufferize_function_boundaries"])
    if not stats.analyzed:
        ctx.remark(module, f"{name}: the in-place analysis failed on this module; nothing changed")
    for attribute, (statistic, description) in counters.items():
        ctx.stat(statistic, getattr(stats, attribute), description)
    return stats
