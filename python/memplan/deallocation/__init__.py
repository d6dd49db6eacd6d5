"""memplan's own deallocation: every buffer whose ownership memplan's
analysis reasons about is freed right after its last use, statically where
the paths agree and under a run-time flag where they do not, without
upstream's ownership-based deallocation and ``optimize-allocation-liveness``
(both quadratic in the buffers of a function), which run only for the
functions memplan leaves.

* :mod:`.dealloc_pass`: the ``memplan-buffer-deallocation`` pass (its
  analysis and rewrite are C++: ``lib/Deallocation/Ownership.cpp``,
  ``lib/Deallocation/InsertDeallocs.cpp``);
* :mod:`.verify`: :func:`verify` and the ``memplan-verify-deallocation``
  pass, which prove every heap buffer freed exactly once on every path.
"""

from memplan.deallocation.verify import KINDS, Violation, verify

__all__ = ["KINDS", "Violation", "verify"]
