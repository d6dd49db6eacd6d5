"""The memory packer: aligned byte offsets for buffers with live intervals.

Buffer ``i`` has ``sizes[i]`` bytes and is live over the half-open interval
``[starts[i], ends[i])`` of program points. Two buffers conflict iff their
intervals overlap; conflicting buffers must not share a byte of the pool. A
buffer with size 0 or an empty interval conflicts with nothing and gets offset
0 (the pool is still at least as large as every buffer).

Algorithms (all in C++; the greedy ones are near O(n log n) when lifetimes are
short, more as buffers overlap more):

``greedy-by-size``
    Largest buffer first (ties: longer-lived first), each at the lowest
    aligned gap left by the already-placed buffers it conflicts with.
``greedy-by-size-best-fit``
    Same order, but the tightest gap that fits (TFLite's greedy by size).
``greedy-by-breadth``
    Program points from the busiest down, their unplaced live buffers from
    largest down, tightest gap (TFLite's greedy by breadth).
``best-fit``
    Program order, tightest gap: what an online best-fit allocator does.
``linear-scan``
    Program order, whole-slot reuse: a buffer takes the smallest free slot
    that fits, else grows the largest free one, else opens a new slot (the
    baseline of the MLIR buffer-reuse RFC).
``squeaky-wheel``
    Repeated greedy-by-size where the buffers to blame for exceeding the
    lower bound (those sticking out, and the stack at the peak) move earlier
    each round, then a local repair around the peak. Work-budgeted, so
    deterministic.
``squeaky-wheel-to-front``
    The same, moving the blamed buffers straight to the front.
``exact``
    Complete searches: over canonical packings (each buffer at the lowest
    offset above those placed before it, in a fixed order), after MiniMalloc
    (Moffitt, ASPLOS 2023), taking turns with a clause-learning search over
    which buffer of each overlapping pair lies below the other (the
    difference-logic model of job-shop solvers). From greedy-by-size's
    packing, it tries capacities from the lower bound up; per capacity it
    finds a packing, proves that none exists, or runs out of its share of
    the work budget.
    The budget counts search steps, so the result is the same on any machine
    (:data:`DEFAULT_BUDGET`: 5-10 s here). ``PackResult.optimal`` says
    whether the pool is proven smallest, ``PackResult.bound`` what is proven.
``best``
    All of the above but ``exact`` (several threads for large inputs); the
    smallest pool wins, ties to the earlier one above. Where that pool is
    above the lower bound (on up to 4096 buffers), or above ``capacity``, the
    exact search continues from it: with the whole budget where the gap is
    1% of the bound or more (or the capacity is missed), less with the square
    of the gap below that. Inputs the heuristics pack at the bound (every
    real model's here) never pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence, Union

import numpy as np

from memplan import _core

ALGORITHMS: tuple[str, ...] = tuple(_core.PACKING_ALGORITHMS)
"""Accepted ``algorithm`` names; ``"best"`` is last."""

DEFAULT_BUDGET: int = _core.PACKING_DEFAULT_BUDGET
"""The exact search's work budget (steps) when ``pack`` is given none: about
5 s of one core of the reference machine (a 2-core x86 with no other job)."""

DEFAULT_CAPACITY_BUDGET: int = _core.PACKING_DEFAULT_CAPACITY_BUDGET
"""With a capacity and no budget given, the steps the search for a packing
within the capacity may take before ``pack`` gives up (7x
:data:`DEFAULT_BUDGET`, about 30 s of one core of the reference machine);
the search for a smaller pool after a fit still stops at
:data:`DEFAULT_BUDGET`."""

_INT64_MAX = (1 << 63) - 1

SIZE_LIMIT = 1 << 62
"""The packer rejects inputs whose aligned sizes sum to this many bytes or more
(so no offset arithmetic can overflow int64)."""

IntArray = Union[np.ndarray, Sequence[int]]


@dataclass(frozen=True)
class PackResult:
    """A packing and how good it is."""

    offsets: np.ndarray
    """Byte offset of each buffer (read-only int64 array)."""
    pool_size: int
    """Bytes needed: max(offset + size) over all buffers."""
    algorithm: str
    """The algorithm whose offsets these are (the winner for ``"best"``)."""
    lower_bound: int
    """No packing needs fewer bytes: max over time of the live bytes."""
    lower_bound_aligned: int
    """Tighter bound counting alignment padding (all but the top buffer)."""
    per_algorithm: Mapping[str, int]
    """Pool size of every algorithm that was run (``exact`` when it ran)."""
    bound: int = 0
    """Proven: no packing has a smaller pool. ``lower_bound_aligned``, or more
    where the exact search proved that nothing reaches it."""
    optimal: bool = False
    """``pool_size == bound``: no packing is smaller."""
    search_work: int = 0
    """Steps the exact search took (0 when it did not run)."""
    search_budget: int = 0
    """The steps it was allowed (0 when it did not run)."""

    @property
    def ratio(self) -> float:
        """pool_size / lower_bound (1.0 is optimal; 1.0 for an empty pool)."""
        return self.pool_size / self.lower_bound if self.lower_bound else 1.0

    @property
    def gap(self) -> float:
        """How far the pool may be above the optimum: pool_size / bound - 1
        (0.0 when proven optimal)."""
        return self.pool_size / self.bound - 1 if self.bound else 0.0


class CapacityError(ValueError):
    """No packing within the capacity was found.

    Either the buffers live at one point need more than the capacity
    (``point`` and ``live`` say where and which; then no packing exists), or
    the packer found none within its budget (``result`` is the smallest pool
    it found).
    """

    def __init__(
        self,
        capacity: int,
        lower_bound: int,
        *,
        point: int | None = None,
        live: Sequence[int] = (),
        live_bytes: int = 0,
        result: PackResult | None = None,
    ):
        self.capacity = capacity
        """The bytes asked for."""
        self.lower_bound = lower_bound
        """The aligned lower bound on any pool."""
        self.point = point
        """Where the live buffers need more than the capacity (a start time),
        or None when the bound fits."""
        self.live = list(live)
        """The buffers live at ``point`` (indices), else empty."""
        self.live_bytes = live_bytes
        """Their summed sizes (without alignment padding)."""
        self.result = result
        """The smallest packing found, when the bound fits."""
        if point is not None:
            message = (
                f"the buffers live at point {point} need {lower_bound} bytes "
                f"({live_bytes} without alignment padding), more than the capacity of "
                f"{capacity} bytes"
            )
        else:
            assert result is not None
            how = (
                f"after {result.search_work} of {result.search_budget} search steps"
                if result.search_budget
                else "the exact search did not run"
            )
            message = (
                f"no packing within {capacity} bytes found: the smallest pool found is "
                f"{result.pool_size} bytes ({result.algorithm}; lower bound {lower_bound}, "
                f"proven bound {result.bound}), {how}"
            )
        super().__init__(message)


class Violation(NamedTuple):
    """One reason a packing is invalid."""

    kind: str
    """``overlap``, ``misaligned``, ``negative`` or ``out-of-pool``."""
    buffer: int
    other: int
    """The second buffer of an ``overlap`` (the larger index), else -1."""


def _int64(name: str, values: IntArray) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} does not fit in int64")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _buffers(starts: IntArray, ends: IntArray, sizes: IntArray):
    return _int64("starts", starts), _int64("ends", ends), _int64("sizes", sizes)


def pack(
    starts: IntArray,
    ends: IntArray,
    sizes: IntArray,
    algorithm: str = "best",
    alignment: int = 64,
    capacity: int | None = None,
    budget: int | None = None,
) -> PackResult:
    """Assign each buffer a byte offset that is a multiple of ``alignment``.

    With ``capacity``, the pool must fit in that many bytes: ``best`` and
    ``exact`` search for such a packing first, and :class:`CapacityError` is
    raised when none is found (at once when the live bytes at some point
    already need more). ``budget`` is the exact search's work budget in steps
    (default :data:`DEFAULT_BUDGET`, and up to :data:`DEFAULT_CAPACITY_BUDGET`
    for a packing within ``capacity``; 0 turns the search off in ``best``).

    Raises ValueError on unequal lengths, start > end, negative sizes, an
    alignment that is not a power of two, an unknown algorithm, or a negative
    capacity or budget.
    """
    if capacity is not None and capacity < 0:
        raise ValueError(f"capacity must be >= 0, got {capacity}")
    if budget is not None and budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    buffers = _buffers(starts, ends, sizes)
    if capacity is not None:
        point, raw, aligned, live = _core.live_peak(*buffers, alignment)
        if aligned > capacity:
            if algorithm not in ALGORITHMS:  # the same error as without a capacity
                _core.pack(*buffers, algorithm, alignment, -1, 0)
            raise CapacityError(capacity, aligned, point=point, live=live, live_bytes=raw)
    # The core takes int64: larger capacities and budgets mean the same as
    # its largest (no pool reaches SIZE_LIMIT; no search runs 2**63 steps).
    r = _core.pack(
        *buffers,
        algorithm,
        alignment,
        -1 if capacity is None else min(capacity, _INT64_MAX),
        -1 if budget is None else min(budget, _INT64_MAX),
    )
    result = PackResult(
        offsets=r.offsets,
        pool_size=r.pool_size,
        algorithm=r.algorithm,
        lower_bound=r.lower_bound,
        lower_bound_aligned=r.lower_bound_aligned,
        per_algorithm=dict(r.per_algorithm),
        bound=r.bound,
        optimal=r.optimal,
        search_work=r.search_work,
        search_budget=r.search_budget,
    )
    if capacity is not None and result.pool_size > capacity:
        raise CapacityError(capacity, result.lower_bound_aligned, result=result)
    return result


def lower_bound(
    starts: IntArray, ends: IntArray, sizes: IntArray, alignment: int = 64
) -> tuple[int, int]:
    """(raw, aligned) lower bounds on the pool size of any valid packing."""
    return tuple(_core.pool_lower_bound(*_buffers(starts, ends, sizes), alignment))


def verify(
    starts: IntArray,
    ends: IntArray,
    sizes: IntArray,
    offsets: IntArray,
    alignment: int = 64,
    pool_size: int | None = None,
    limit: int | None = None,
) -> list[Violation]:
    """Everything wrong with a packing; an empty list means it is valid.

    Reports each pair of buffers overlapping in both time and bytes once,
    misaligned or negative offsets of non-empty buffers, and, if ``pool_size``
    is given, buffers reaching past it. At most ``limit`` violations are
    returned. O(n log n + k).
    """
    if pool_size is not None and pool_size < 0:
        raise ValueError(f"pool_size must be >= 0, got {pool_size}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    found = _core.verify_packing(
        *_buffers(starts, ends, sizes),
        _int64("offsets", offsets),
        alignment,
        -1 if pool_size is None else pool_size,
        -1 if limit is None else limit,
    )
    return [Violation(*v) for v in found]


__all__ = [
    "ALGORITHMS",
    "DEFAULT_BUDGET",
    "DEFAULT_CAPACITY_BUDGET",
    "SIZE_LIMIT",
    "CapacityError",
    "PackResult",
    "Violation",
    "lower_bound",
    "pack",
    "verify",
]
