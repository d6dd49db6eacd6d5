"""Where the shared real-model workloads are (``shared/workloads``).

``MEMPLAN_WORKLOADS`` names the directory; otherwise it is the nearest
``shared/workloads`` beside the checkout or one of its parents (a clone at
``X/memplan`` finds ``X/shared/workloads``, a worktree at ``X/wt/NAME``
too). The benches run without it where it is missing: their rows for the
shared workloads are then left out.
"""

from __future__ import annotations

import os

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def workload_dir() -> str:
    """The directory of the shared workloads (it may not exist)."""
    named = os.environ.get("MEMPLAN_WORKLOADS")
    if named:
        return named
    here = _ROOT
    while os.path.dirname(here) != here:
        here = os.path.dirname(here)
        candidate = os.path.join(here, "shared", "workloads")
        if os.path.isdir(candidate):
            return candidate
    return os.path.join(os.path.dirname(_ROOT), "shared", "workloads")
