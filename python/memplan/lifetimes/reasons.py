"""Why an allocation is not pooled: reason names, in precedence order.

The reasons are ``memplan._core.LifetimeReason``, the C++ enum of
include/memplan/Lifetimes/Lifetimes.h (its one list, with what each reason means):
the C++ kernel sets those before ``UNSUPPORTED_ELEMENT_TYPE``, the Python
analysis the rest, from types and sizes. A reason's name here is its
member's name in lowercase with dashes (``escapes-return``); its bit is
``1 << member``. An allocation's primary reason is its lowest set bit;
statistics count primary reasons, so every rejection is counted once.
"""

from __future__ import annotations

from typing import Optional

from memplan import _core

Reason = _core.LifetimeReason

REASONS: tuple[str, ...] = tuple(r.name.lower().replace("_", "-") for r in sorted(Reason))

ESCAPE_REASONS = frozenset(r for r in REASONS if r.startswith("escapes-"))

_BIT = {name: i for i, name in enumerate(REASONS)}


def bit(name: str) -> int:
    """The mask bit of reason ``name``."""
    return 1 << _BIT[name]


def primary(mask: int) -> Optional[str]:
    """The reason that takes precedence in ``mask``; None when eligible."""
    if not mask:
        return None
    return REASONS[(mask & -mask).bit_length() - 1]


def names(mask: int) -> list[str]:
    """Every reason set in ``mask``, in precedence order."""
    return [r for i, r in enumerate(REASONS) if mask >> i & 1]


__all__ = ["Reason", "REASONS", "ESCAPE_REASONS", "bit", "primary", "names"]
