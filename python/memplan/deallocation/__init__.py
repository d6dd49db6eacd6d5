"""memplan's own deallocation: every buffer whose ownership memplan's
analysis reasons about is freed right after its last use, statically where
the paths agree and under a run-time flag where they do not, without
upstream's ownership-based deallocation and ``optimize-allocation-liveness``
(both quadratic in the buffers of a function), which run only for the
functions memplan leaves.

* :mod:`.dealloc_pass`: the ``memplan-buffer-deallocation`` pass (its
  analysis and rewrite are C++: ``lib/Deallocation/Ownership.cpp``,
  ``lib/Deallocation/InsertDeallocs.cpp``);
* :mod:`.plans`: the pass's plans as data (:func:`plan`, no IR change),
  their one apply (:func:`apply`) and what the pass does before it plans
  (:func:`prepare`), for programs that inspect or state plans;
* :mod:`.verify`: :func:`verify` and the ``memplan-verify-deallocation``
  pass, which prove every heap buffer freed exactly once on every path.
"""

from memplan.deallocation.plans import (
    DeallocationPlan,
    FreePlace,
    Ownership,
    apply,
    plan,
    prepare,
)
from memplan.deallocation.verify import KINDS, Violation, verify

__all__ = [
    "KINDS",
    "DeallocationPlan",
    "FreePlace",
    "Ownership",
    "Violation",
    "apply",
    "plan",
    "prepare",
    "verify",
]
