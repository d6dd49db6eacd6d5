"""``analysis-heuristic=min-copy-bytes``: analyze in each order of
:data:`~memplan.inplace.options.MIN_COPY_BYTES_ORDERS` and keep the one
whose copies move the fewest bytes.

Each order runs the engine in analysis-only mode (the IR is not touched);
its cost is the copies upstream's copy insertion would make for its
decisions (``EngineResult.copies``): bytes of the copies that copy contents
(allocation-only ones cost nothing), a copy of dynamic size counting
:data:`DYNAMIC_COST`, then the number of such copies; ties go to the first
order. An order whose analysis fails is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from mlir import ir

from memplan import _core
from memplan.inplace import engine
from memplan.inplace.options import MIN_COPY_BYTES_ORDERS, order_name

#: What a copy of dynamic size costs in the ranking.
DYNAMIC_COST = 1 << 40


def copy_cost(result: _core.EngineResult) -> tuple[int, int]:
    """(bytes copied, copies) of an analysis-only result: copies that only
    allocate are free, one of dynamic size counts :data:`DYNAMIC_COST`."""
    total = count = 0
    for _op, _operand, _value, alloc_only, nbytes, _non_writable in result.copies:
        if alloc_only:
            continue
        count += 1
        total += DYNAMIC_COST if nbytes < 0 else nbytes
    return total, count


@dataclass
class Ranking:
    """The order kept and what every order cost."""

    heuristic: str
    seed: int
    #: (order name, bytes, copies) per order tried; (name, None, None) for an
    #: order whose analysis failed.
    costs: list[tuple[str, Optional[int], Optional[int]]] = field(default_factory=list)
    #: The kept order's analysis-only result (None if every order failed).
    result: Optional[_core.EngineResult] = None

    @property
    def choice(self) -> int:
        """Index of the kept order in MIN_COPY_BYTES_ORDERS."""
        return MIN_COPY_BYTES_ORDERS.index((self.heuristic, self.seed))


def rank_orders(module: ir.Operation, values: dict) -> Ranking:
    """Analyze ``module`` (the IR stays untouched) in every order of
    MIN_COPY_BYTES_ORDERS with the pass option ``values`` and rank them.
    The diagnostics of failing orders are dropped; with no order left,
    bottom-up is kept."""
    best: Optional[tuple[tuple[int, int], str, int, _core.EngineResult]] = None
    costs: list[tuple[str, Optional[int], Optional[int]]] = []
    handler = module.context.attach_diagnostic_handler(lambda _diagnostic: True)
    try:
        for heuristic, seed in MIN_COPY_BYTES_ORDERS:
            result = engine.run(module, values, heuristic, seed, analysis_only=True)
            name = order_name(heuristic, seed)
            if not result.ok:
                costs.append((name, None, None))
                continue
            cost = copy_cost(result)
            costs.append((name, *cost))
            if best is None or cost < best[0]:
                best = (cost, heuristic, seed, result)
    finally:
        handler.detach()
    if best is None:
        return Ranking("bottom-up", 0, costs)
    return Ranking(best[1], best[2], costs, best[3])
