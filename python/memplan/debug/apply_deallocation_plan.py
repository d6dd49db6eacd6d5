"""``memplan-test-apply-deallocation-plan``: apply a deallocation plan stated
by attributes.

A test pass for the rewrite of ``memplan-buffer-deallocation`` without its
ownership analysis: each function carrying ``memplan.test_ownership`` states
its plan (handles, run-time flags, frees and copies at returns) in
``memplan.test_`` attributes, read and applied in C++
(``memplan._core.apply_deallocation_plan_attributes``; the attributes are
listed in ``include/memplan/Deallocation/PlanAttributes.h``), so that lit tests
pin down the rewrite alone. The plan is taken as given. A malformed plan is a
located error per defect and nothing is changed.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext


def run(module: ir.Operation, ctx: PassContext) -> None:
    """Applies the plans the module's functions state."""
    ok, stats = _core.apply_deallocation_plan_attributes(module._CAPIPtr)
    if not ok:
        ctx.failed = True
        return
    for attribute, statistic, description in _core.DeallocationStats.STATISTICS:
        ctx.stat(statistic, getattr(stats, attribute), description)


__all__ = ["run"]
