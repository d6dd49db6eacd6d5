"""Why an allocation is not pooled: reason names, in precedence order.

The first ``memplan._core.LIFETIME_NUM_CPP_REASONS`` bits are set by the C++
kernel (order of ``LifetimeReason`` in include/memplan/lifetimes.h); the rest
are decided in Python from types and sizes. An allocation's primary reason is
its lowest set bit; statistics count primary reasons, so every rejection is
counted once.
"""

from __future__ import annotations

from typing import Optional

REASONS: tuple[str, ...] = (
    "alloca",                       # stack allocation: listed, never pooled
    "unknown-region",               # nested in a region op we do not understand
    "unstructured-control-flow",    # in a multi-block region
    "escapes-return",               # returned from the function
    "escapes-call",                 # passed to func.call
    "escapes-store",                # stored into memory
    "escapes-block",                # flows out of its block (yield, region result)
    "captured-by-unknown-region",   # used inside a region op we do not understand
    "unknown-user",                 # used by an op with unknown memory effects
    "no-dealloc",                   # never freed
    "dealloc-in-other-block",       # freed in another block
    "multiple-deallocs",            # freed twice
    "dealloc-through-alias",        # freed through a view or cast
    "memory-space",                 # not the default memory space
    "non-identity-layout",          # strided / affine layout
    "async-not-awaited",            # used by asynchronous work no op of its block waits for
    "unsupported-element-type",     # element type whose LLVM layout memplan does not model
    "size-overflow",                # byte size does not fit in a 64-bit index
    "dynamic-size-not-hoistable",   # dynamic sizes not available at the pool
)

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


__all__ = ["REASONS", "ESCAPE_REASONS", "bit", "primary", "names"]
