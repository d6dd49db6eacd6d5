"""Rows of a :class:`~memplan.lifetimes.analysis.FunctionLifetimes` that hold
one buffer together over one live interval (a branch group, a pool)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RowSpan:
    """Allocations (rows) that share one buffer, live over ``[start, end)``."""

    rows: tuple[int, ...]
    """Rows (in the FunctionLifetimes arrays) of the member allocations."""
    start: int
    end: int
    """The buffer's live interval: program points ``[start, end)``."""


__all__ = ["RowSpan"]
