"""memplan's own deallocation: buffers whose lifetimes memplan proves are
freed right after their last use, without upstream's ownership-based
deallocation and ``optimize-allocation-liveness`` (both quadratic in the
buffers of a function).

* :mod:`.placement`: which buffers memplan frees after which op, and whether
  anything is left for upstream's passes (an analysis; the IR is unchanged);
* :mod:`.dealloc_pass`: the ``memplan-buffer-deallocation`` pass;
* :mod:`.verify`: :func:`verify` and the ``memplan-verify-deallocation``
  pass, which prove every heap buffer freed exactly once on every path.
"""

from memplan.deallocation.verify import KINDS, Violation, verify

__all__ = ["KINDS", "Violation", "verify"]
