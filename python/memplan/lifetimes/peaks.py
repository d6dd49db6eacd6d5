"""Heap peaks of one function: the input as it is, a plan, and the lower bound.

Every heap byte live at a program point counts: each ``memref.alloc`` left
on the heap from its allocation to its ``memref.dealloc`` (to the end of the
function when it has none in its block: a returned buffer, a leak), each pool
from its allocation to its dealloc, each heap copy (``bufferization.clone``:
never pooled, in all the figures below) from the copy to its dealloc.
``memref.alloca`` is stack memory and does not count; buffers with dynamic
sizes have no static figure and are left out of all three peaks. The
allocations of exclusive branches that merge into one result (a branch
group) are one buffer. Each block counts rounded up to
:data:`ROUNDING` bytes.

* :func:`input_peak`: the IR as it is (:func:`input_peak_held`: with some
  rows held elsewhere, as a rewrite would hold them). After upstream's
  ``buffer-deallocation-pipeline`` and ``optimize-allocation-liveness`` this
  is upstream's peak.
* :func:`plan_peak`: the same with the pooled rows replaced by their pools.
* :func:`lower_bound_peak`: poolable buffers over their live intervals
  (allocation to last use), every other buffer as in the input. No plan that
  leaves the other buffers where they are does better: the bound of the
  given lifetimes.
* :func:`dataflow_bound`: every heap buffer holds its bytes only while its
  contents are needed (its content segments, see
  :meth:`~memplan.lifetimes.analysis.FunctionLifetimes.segments`): from the
  first write to the last read, and again from each full overwrite to the
  last read of what it wrote. In tensor terms: each value's storage from its
  definition to its last use, in place only into a destination that dies
  there, in the same op order. A plan that keeps the op order and the
  in-place decisions cannot go below it; the tensor-level passes of
  :mod:`memplan.peak` reach it by giving every use of a shared destination
  its own buffer, and go below it by changing the decisions or the order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

import numpy as np

from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live
from memplan.lifetimes.sizes import static_bytes
from memplan.lifetimes.spans import RowSpan


@dataclass(frozen=True)
class Pool(RowSpan):
    """A pool as the peak sees it: its rows, its live points and its bytes."""

    bytes: int
    """Its bytes (with dynamic members: when every dynamic size is 0; the
    per-path checks of :mod:`memplan.lifetimes.paths` see them all)."""


def _heap_items(lt: FunctionLifetimes, skip: set[int]) -> tuple[list[int], list[int], list[int]]:
    """(start, end, bytes) of every heap allocation not in ``skip``, as the
    input holds it; a branch group counts once."""
    func_end = int(lt.graph.op_end[lt.func_op]) + 1
    group = lt.group_of()
    starts: list[int] = []
    ends: list[int] = []
    sizes: list[int] = []
    for k, grp in enumerate(lt.groups):
        rows = [r for r in grp.rows if r not in skip]
        if not rows:
            continue
        starts.append(min(int(lt.op[r]) for r in rows))
        ends.append(grp.dealloc + 1 if grp.dealloc >= 0 else func_end)
        sizes.append(max(int(lt.bytes[r]) for r in rows))
    keep = ~lt.is_alloca & (group < 0)
    if skip:
        keep[np.fromiter(skip, dtype=np.int64, count=len(skip))] = False
    rows = np.nonzero(keep)[0]
    starts += lt.op[rows].astype(np.int64).tolist()
    ends += _held_ends(lt, rows, func_end).tolist()
    sizes += lt.bytes[rows].astype(np.int64).tolist()
    copies = _heap_copies(lt, func_end)
    starts += copies[0]
    ends += copies[1]
    sizes += copies[2]
    return starts, ends, sizes


def _held_ends(lt: FunctionLifetimes, rows: np.ndarray, func_end: int) -> np.ndarray:
    """Where the input frees each of ``rows``: after its dealloc (its
    interval's end when later), else at the end of the function."""
    dealloc = lt.dealloc[rows].astype(np.int64)
    return np.where(dealloc >= 0, np.maximum(dealloc + 1, lt.end[rows].astype(np.int64)), func_end)


def held_span(lt: FunctionLifetimes, row: int) -> tuple[int, int]:
    """``[start, end)`` over which the input holds heap row ``row`` (as
    :func:`input_peak` counts it): from its allocation to its dealloc, else
    to the end of the function."""
    func_end = int(lt.graph.op_end[lt.func_op]) + 1
    end = _held_ends(lt, np.array([row], dtype=np.int64), func_end)
    return int(lt.op[row]), int(end[0])


def _heap_copies(lt: FunctionLifetimes, func_end: int) -> tuple[list[int], list[int], list[int]]:
    """(start, end, bytes) of the heap copies of the function (role flag
    ``HEAP_COPY``: ``bufferization.clone``, such as the copies of returned
    buffers memplan-buffer-deallocation makes): never rows, never pooled,
    but on the heap next to the pools. Each holds its bytes to its free in
    its block, else to the end of the function; dynamically sized ones are
    left out as the rows are."""
    g = lt.graph
    lo, hi = int(lt.func_op), int(g.op_end[lt.func_op]) + 1
    ops = np.flatnonzero(g.op_role[lo:hi] & int(K.Flag.HEAP_COPY)) + lo
    starts: list[int] = []
    ends: list[int] = []
    sizes: list[int] = []
    for op in ops.tolist():
        value = int(g.result_begin[op])
        size = static_bytes(g.types[g.value_type[value]])
        if size is None or size < 0:
            continue
        frees = [f for f in K.frees(g, value) if g.op_block[f] == g.op_block[op]]
        end = frees[-1] + 1 if frees else func_end
        starts.append(op)
        ends.append(end)
        sizes.append(int(size))
    return starts, ends, sizes


ROUNDING = 64
"""Every heap block counts as its size rounded up to this many bytes (what an
allocator hands out, and how the peaks of issue #11 were measured)."""


def _peak(starts: list[int], ends: list[int], sizes: list[int]) -> int:
    if not sizes:
        return 0
    blocks = [-(-b // ROUNDING) * ROUNDING if b > 0 else b for b in sizes]
    if sum(b for b in blocks if b > 0) >= 1 << 62:  # beyond int64 sums: exact Python integers
        events = sorted(
            [(e, 0, -b) for e, b in zip(ends, blocks) if b >= 0]
            + [(s, 1, b) for s, b in zip(starts, blocks) if b >= 0]
        )
        live = peak = 0
        for _, _, delta in events:
            live += delta
            peak = max(peak, live)
        return max(peak, max(blocks))
    return peak_live(
        np.array(starts, np.int64), np.array(ends, np.int64), np.array(blocks, np.int64)
    )


def dataflow_bound(lt: FunctionLifetimes) -> int:
    """Peak heap bytes with every statically sized heap buffer live only over
    its content segments (a branch group: from its members' first access to
    their last); 64-byte blocks, like the other peaks."""
    rows = np.nonzero(~lt.is_alloca & (lt.bytes >= 0))[0]
    group = lt.group_of()
    starts: list[int] = []
    ends: list[int] = []
    sizes: list[int] = []
    grouped: dict[int, list[int]] = {}
    for r in rows.tolist():
        if group[r] >= 0:
            grouped.setdefault(int(group[r]), []).append(r)
            continue
        for s, e in lt.segments(r):
            starts.append(s)
            ends.append(e)
            sizes.append(int(lt.bytes[r]))
    for members in grouped.values():
        segs = [seg for r in members for seg in lt.segments(r)]
        if segs:
            starts.append(min(s for s, _ in segs))
            ends.append(max(e for _, e in segs))
            sizes.append(max(int(lt.bytes[r]) for r in members))
    copies = _heap_copies(lt, int(lt.graph.op_end[lt.func_op]) + 1)
    return _peak(starts + copies[0], ends + copies[1], sizes + copies[2])


def input_peak(lt: FunctionLifetimes) -> int:
    """Peak heap bytes of the function as it is (upstream's peak)."""
    return _peak(*_heap_items(lt, set()))


def input_peak_held(lt: FunctionLifetimes, spans: Mapping[int, Optional[tuple[int, int]]]) -> int:
    """:func:`input_peak` with each heap row of ``spans`` (none in a branch
    group) held over its given ``[start, end)`` instead, or not at all
    (None): the peak of the input were those buffers held there."""
    starts, ends, sizes = _heap_items(lt, set(spans))
    for row, span in spans.items():
        if span is not None and span[0] < span[1]:
            starts.append(span[0])
            ends.append(span[1])
            sizes.append(int(lt.bytes[row]))
    return _peak(starts, ends, sizes)


def planned_items(lt: FunctionLifetimes, pools: Iterable[Pool]) -> tuple[list, list, list]:
    """(starts, ends, sizes) of the heap once ``pools`` replace their rows."""
    pools = list(pools)
    starts, ends, sizes = _heap_items(lt, {r for p in pools for r in p.rows})
    for p in pools:
        starts.append(p.start)
        ends.append(p.end)
        sizes.append(p.bytes)
    return starts, ends, sizes


def plan_peak(lt: FunctionLifetimes, pools: Iterable[Pool]) -> int:
    """Peak heap bytes once ``pools`` replace their rows."""
    return _peak(*planned_items(lt, pools))


def plan_excess(lt: FunctionLifetimes, pools: Iterable[Pool], limit: int) -> tuple[int, int]:
    """(peak, bytes above ``limit`` summed over program points) with ``pools``:
    the second figure tells two plans with the same peak apart."""
    starts, ends, sizes = planned_items(lt, pools)
    if sum(-(-b // ROUNDING) * ROUNDING for b in sizes if b > 0) >= 1 << 62:
        return _peak(starts, ends, sizes), 0  # beyond int64 sums: the peak alone, exactly
    size = np.array(sizes, np.int64)
    keep = size > 0
    if not keep.any():
        return 0, 0
    size = -(-size[keep] // ROUNDING) * ROUNDING
    start = np.array(starts, np.int64)[keep]
    end = np.array(ends, np.int64)[keep]
    keys = np.concatenate([2 * end, 2 * start + 1])
    order = np.argsort(keys, kind="stable")
    level = np.cumsum(np.concatenate([-size, size])[order])
    points = keys[order] // 2
    # Bytes live from each event to the next one, weighted by its length.
    width = np.diff(np.append(points, points[-1]))
    over = np.maximum(level - limit, 0)
    return int(max(level.max(), size.max())), int((over * np.maximum(width, 1)).sum())


def lower_bound_peak(lt: FunctionLifetimes) -> int:
    """Peak heap bytes with every poolable static buffer live from its
    allocation to its last use only, and the others as in the input."""
    rows = np.nonzero(lt.eligible & (lt.bytes >= 0) & ~lt.is_alloca)[0]
    starts, ends, sizes = _heap_items(lt, {int(r) for r in rows})
    group = lt.group_of()
    in_rows = set(rows.tolist())
    for grp in lt.groups:
        members = [r for r in grp.rows if r in in_rows]
        if members:  # from the first branch allocation, as in the input
            starts.append(min(int(lt.op[r]) for r in members))
            ends.append(int(grp.end))
            sizes.append(max(int(lt.bytes[r]) for r in members))
    for r in rows.tolist():
        if group[r] < 0:
            starts.append(int(lt.start[r]))
            ends.append(int(lt.end[r]))
            sizes.append(int(lt.bytes[r]))
    return _peak(starts, ends, sizes)


__all__ = [
    "ROUNDING",
    "Pool",
    "dataflow_bound",
    "plan_excess",
    "held_span",
    "input_peak",
    "input_peak_held",
    "plan_peak",
    "planned_items",
    "lower_bound_peak",
]
