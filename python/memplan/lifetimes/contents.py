"""Where a function's heap peak is, and which buffers are held without contents.

Both read :class:`~memplan.lifetimes.analysis.FunctionLifetimes` and never
touch the IR.

* :func:`peak_site`: the first program point where the heap (the IR as it
  is: every ``memref.alloc`` from its allocation to its dealloc, 64-byte
  blocks, as :func:`memplan.lifetimes.peaks.input_peak` counts it) reaches its
  peak, the op there, and the buffers live there.
* :func:`held_without_contents`: every heap buffer whose lifetime outlasts
  its contents: allocated well before its first write, or kept between the
  last read of its contents and the next write that overwrites it whole
  (its content segments, :meth:`FunctionLifetimes.segments`). "Well before"
  and "between" mean that at least one other op reads or writes memory in
  the gap (from the ops' memory effects): a gap nothing happens in costs
  nothing. These are the bytes the dataflow bound
  (:func:`memplan.lifetimes.peaks.dataflow_bound`) does not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from memplan.ir.parse import location_prefix
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.peaks import ROUNDING


@dataclass(frozen=True)
class Site:
    """An op of the function, as a report shows it."""

    point: int
    """Program point (op id) relative to the function op."""
    op: str
    """Op name."""
    location: str
    """``file:line:col`` in the source the IR was parsed from."""


@dataclass(frozen=True)
class PeakSite:
    """The first point where the heap reaches its peak."""

    bytes: int
    """Heap bytes live there (64-byte blocks)."""
    at: Site
    live: tuple[int, ...]
    """Rows (allocations) live there, largest first."""


@dataclass(frozen=True)
class HeldWithoutContents:
    """A stretch where a buffer is allocated but holds nothing needed."""

    row: int
    """The allocation (row of the FunctionLifetimes arrays)."""
    kind: str
    """``before-first-write``: from the allocation to the first access;
    ``between-contents``: from the last access of one content to the full
    overwrite that starts the next."""
    start: Site
    """The allocation, or the op where the contents die (their last access)."""
    end: Site
    """The op that next writes the buffer."""

    @property
    def points(self) -> int:
        """How many program points the buffer is held without contents."""
        return self.end.point - self.start.point


def _site(lt: FunctionLifetimes, op: int) -> Site:
    g = lt.graph
    return Site(op - lt.func_op, g.names[g.op_name[op]], location_prefix(g.location(op)))


def peak_site(lt: FunctionLifetimes) -> Optional[PeakSite]:
    """Where the function's heap peaks (None without static heap buffers)."""
    rows = np.nonzero(~lt.is_alloca & (lt.bytes > 0))[0]
    if not rows.size:
        return None
    func_end = int(lt.graph.op_end[lt.func_op]) + 1
    dealloc = lt.dealloc[rows].astype(np.int64)
    start = lt.op[rows].astype(np.int64)
    end = np.where(dealloc >= 0, np.maximum(dealloc + 1, lt.end[rows].astype(np.int64)), func_end)
    size = -(-lt.bytes[rows].astype(np.int64) // ROUNDING) * ROUNDING
    # A branch group's members never live at once: each counts on its own here.
    keys = np.concatenate([2 * end, 2 * start + 1])
    order = np.argsort(keys, kind="stable")
    level = np.cumsum(np.concatenate([-size, size])[order])
    best = int(np.argmax(level))
    point = int(keys[order][best] // 2)
    live = rows[(start <= point) & (point < end)]
    live = live[np.argsort(-lt.bytes[live], kind="stable")]
    return PeakSite(int(level[best]), _site(lt, point), tuple(int(r) for r in live))


def _accessing_prefix(lt: FunctionLifetimes) -> np.ndarray:
    """prefix[i]: ops before op i that read or write memory."""
    g = lt.graph
    begin = g.operand_begin
    counts = np.diff(begin)
    per_op = np.zeros(g.num_ops, dtype=np.int64)
    if g.operand_access.size:
        owner = np.repeat(np.arange(g.num_ops), counts)
        np.maximum.at(per_op, owner, g.operand_access)
    return np.concatenate([[0], np.cumsum(per_op > 0)])


def held_without_contents(lt: FunctionLifetimes) -> list[HeldWithoutContents]:
    """Every heap buffer's stretches without contents, in row order."""
    g = lt.graph
    prefix = _accessing_prefix(lt)

    def busy(a: int, b: int) -> bool:  # an op after a's subtree and before b accesses memory
        after = int(g.op_end[a]) + 1
        return b > after and prefix[b] - prefix[after] > 0

    out: list[HeldWithoutContents] = []
    for r in np.nonzero(~lt.is_alloca)[0].tolist():
        segments = lt.segments(r)
        if not segments:
            continue
        alloc = int(lt.op[r])
        first = segments[0][0]
        if busy(alloc, first):
            out.append(
                HeldWithoutContents(r, "before-first-write", _site(lt, alloc), _site(lt, first))
            )
        block = int(g.op_block[alloc])
        for (_, end), (nxt, _) in zip(segments, segments[1:]):
            last = g.ancestor_in_block(block, end - 1)
            if busy(last, nxt):
                out.append(
                    HeldWithoutContents(r, "between-contents", _site(lt, last), _site(lt, nxt))
                )
    return out


__all__ = ["HeldWithoutContents", "PeakSite", "Site", "held_without_contents", "peak_site"]
