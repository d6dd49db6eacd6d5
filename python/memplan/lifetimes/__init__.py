"""Buffer lifetimes: live intervals, aliases, eligibility for pooling.

``analyze_function(graph, func_op)`` returns a :class:`FunctionLifetimes` of
numpy arrays; the ``memplan-buffer-liveness`` pass (:mod:`memplan.liveness`)
reports it as statistics, text or JSON, and ``memplan report FILE --plot timeline.png`` draws it.
"""

from memplan.lifetimes.analysis import (
    Allocation,
    FunctionLifetimes,
    LifetimeAnalysis,
    analyze_function,
    analyze_module,
)
from memplan.lifetimes.branches import BranchGroup
from memplan.lifetimes.reasons import REASONS

__all__ = [
    "Allocation",
    "BranchGroup",
    "FunctionLifetimes",
    "LifetimeAnalysis",
    "REASONS",
    "analyze_function",
    "analyze_module",
]
