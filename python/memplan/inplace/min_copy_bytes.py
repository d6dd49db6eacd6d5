"""``analysis-heuristic=min-copy-bytes``: analyze in each order of
:data:`~memplan.inplace.options.MIN_COPY_BYTES_ORDERS` and keep the one
whose copies move the fewest bytes.

The engine ranks the orders in one call (``lib/Inplace/ModuleAnalysis.cpp``):
each order is analyzed without touching the IR, its diagnostics dropped; its
cost is the copies upstream's copy insertion would make for its decisions:
bytes of the copies that copy contents (allocation-only ones cost nothing),
a copy of dynamic size counting :data:`DYNAMIC_COST`, then the number of
such copies; ties go to the first order; an order whose analysis fails is
skipped. The cheapest order's analysis then annotates or bufferizes, without
analyzing again (except for print-conflicts, whose annotations are made as
decisions are).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from mlir import ir

from memplan import _core
from memplan.inplace import engine
from memplan.inplace.options import MIN_COPY_BYTES_ORDERS, order_name

#: What a copy of dynamic size costs in the ranking (the engine's
#: ``kDynamicCopyBytes``).
DYNAMIC_COST: int = _core.DYNAMIC_COPY_BYTES


@dataclass
class Ranking:
    """The order kept and what every order cost."""

    heuristic: str
    seed: int
    #: (order name, bytes, copies) per order tried; (name, None, None) for an
    #: order whose analysis failed.
    costs: list[tuple[str, Optional[int], Optional[int]]] = field(default_factory=list)

    @property
    def choice(self) -> int:
        """Index of the kept order in MIN_COPY_BYTES_ORDERS."""
        return MIN_COPY_BYTES_ORDERS.index((self.heuristic, self.seed))


def run_ranked(
    module: ir.Operation, values: dict, analysis_only: bool = False
) -> tuple[Ranking, _core.EngineResult]:
    """Rank the orders of MIN_COPY_BYTES_ORDERS on ``module`` with the pass
    option ``values``, then annotate or bufferize it (or, with
    ``analysis_only``, leave it untouched) with the cheapest order's
    analysis, as :func:`memplan.inplace.engine.run` does for one order. With
    no order left, bottom-up runs (and reports its errors)."""
    result = engine.run(
        module, values, "bottom-up", 0, analysis_only=analysis_only, orders=MIN_COPY_BYTES_ORDERS
    )
    costs = [
        (order_name(h, s), nbytes, ncopies)
        for (h, s), (nbytes, ncopies) in zip(MIN_COPY_BYTES_ORDERS, result.order_costs)
    ]
    heuristic, seed = (
        MIN_COPY_BYTES_ORDERS[result.chosen_order] if result.chosen_order >= 0 else ("bottom-up", 0)
    )
    return Ranking(heuristic, seed, costs), result
