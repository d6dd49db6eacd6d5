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
``best``
    All of the above (several threads for large inputs); the smallest pool
    wins, ties to the earlier one above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence, Union

import numpy as np

from memplan import _core

ALGORITHMS: tuple[str, ...] = tuple(_core.PACKING_ALGORITHMS)
"""Accepted ``algorithm`` names; ``"best"`` is last."""

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
    """Pool size of every algorithm that was run."""

    @property
    def ratio(self) -> float:
        """pool_size / lower_bound (1.0 is optimal; 1.0 for an empty pool)."""
        return self.pool_size / self.lower_bound if self.lower_bound else 1.0


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
) -> PackResult:
    """Assign each buffer a byte offset that is a multiple of ``alignment``.

    Raises ValueError on unequal lengths, start > end, negative sizes, an
    alignment that is not a power of two, or an unknown algorithm.
    """
    r = _core.pack(*_buffers(starts, ends, sizes), algorithm, alignment)
    return PackResult(
        offsets=r.offsets,
        pool_size=r.pool_size,
        algorithm=r.algorithm,
        lower_bound=r.lower_bound,
        lower_bound_aligned=r.lower_bound_aligned,
        per_algorithm=dict(r.per_algorithm),
    )


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


__all__ = ["ALGORITHMS", "SIZE_LIMIT", "PackResult", "Violation", "lower_bound", "pack", "verify"]
