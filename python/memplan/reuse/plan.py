"""Pool layouts: which allocations share a pool, and at which byte offsets.

One pool per scope block (a function body, or the body of a parallel op).
Eligible allocations nested in sequential region ops (``scf.for``, ``scf.if``,
``scf.while``, ...) are hoisted into the enclosing scope's pool: their live
interval lies inside one execution of their block, and pre-order program
points put every buffer that can be live at the same time in an overlapping
interval, so packing by interval is safe across iterations and branches.
Inside a parallel op each body instance gets its own pool.

Static buffers are packed by :func:`memplan.packing.pack`. Buffers with
dynamic (hoistable) sizes follow the static region in a bump layout: each
gets ``align(bytes)`` of its own, computed with ``index`` arithmetic at the
pool. That is correct but does not reuse bytes among dynamic buffers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from memplan import packing
from memplan.ir.graph import Graph
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live

_ALIGN_ATTR = re.compile(r"^\s*(\d+)")


@dataclass
class PoolPlan:
    """The layout of one pool."""

    scope_block: int
    alignment: int
    static_members: np.ndarray
    """Rows (of the FunctionLifetimes arrays) of statically sized members."""
    offsets: np.ndarray
    """Byte offset of each static member (int64)."""
    static_size: int
    """Bytes of the static region (the packed pool size)."""
    lower_bound: int
    """Peak live bytes of the static members: no pool can be smaller."""
    lower_bound_aligned: int
    """Tighter bound that counts the alignment padding of every offset."""
    algorithm: str
    merged_deallocs: list[int] = field(default_factory=list)
    """Deallocs of merged branch results (see memplan.lifetimes.branches) to erase."""
    dynamic_members: list[int] = field(default_factory=list)
    """Rows of members with dynamic sizes, in bump order after the static region."""
    hoist: list[int] = field(default_factory=list)
    """Op ids (ascending) of the pure ops computing the dynamic sizes."""
    insert_before: int = -1
    """Op in the scope block the pool is allocated before."""
    dealloc_after: int = -1
    """Op in the scope block the pool is freed after."""

    @property
    def members(self) -> list[int]:
        return [int(i) for i in self.static_members] + list(self.dynamic_members)


def alloc_alignment(graph: Graph, op: int) -> int:
    """The ``alignment`` attribute of an allocation op, or 1."""
    text = graph.attribute(op, "alignment")
    if not text:
        return 1
    m = _ALIGN_ATTR.match(text)
    return int(m.group(1)) if m else 1


def plan_function(
    lt: FunctionLifetimes, algorithm: str = "best", alignment: int = 64, min_members: int = 2
) -> list[PoolPlan]:
    """Pool plans for the eligible allocations of one function, one per scope."""
    g = lt.graph
    rows = np.nonzero(lt.eligible)[0]
    plans: list[PoolPlan] = []
    if rows.size == 0:
        return plans
    scopes = lt.scope[rows]
    order = np.argsort(scopes, kind="stable")
    rows, scopes = rows[order], scopes[order]
    bounds = np.flatnonzero(np.diff(scopes)) + 1
    for group in np.split(rows, bounds):
        if len(group) < min_members:
            continue
        scope = int(lt.scope[group[0]])
        align = alignment
        for i in group:
            a = alloc_alignment(g, int(lt.op[i]))
            if a > align:
                align = a
        static = group[lt.bytes[group] >= 0]
        dynamic = [int(i) for i in group[lt.bytes[group] < 0]]
        merged_deallocs: list[int] = []
        if static.size:
            start, end, size_items, item = lt.items(static)
            res = packing.pack(start, end, size_items, algorithm=algorithm, alignment=align)
            offsets = np.asarray(res.offsets, dtype=np.int64)[item]
            size, alg = int(res.pool_size), res.algorithm
            bound_aligned = int(res.lower_bound_aligned)
            bound = peak_live(start, end, size_items)
            if lt.groups:
                in_plan = set(static.tolist())
                merged_deallocs = [g_.dealloc for g_ in lt.groups if g_.rows[0] in in_plan]
        else:
            offsets, size, alg, bound, bound_aligned = np.zeros(0, np.int64), 0, algorithm, 0, 0
        hoist: set[int] = set()
        for i in dynamic:
            hoist.update(lt.dynamic_slices.get(i, ()))
        first = min(g.ancestor_in_block(scope, int(lt.op[i])) for i in group)
        last = max(g.ancestor_in_block(scope, int(lt.last_use[i])) for i in group)
        after = int(g.op_end[last]) + 1
        if first < 0 or after >= g.num_ops or g.op_block[after] != scope:
            continue  # no place to free the pool in its block: leave the IR alone
        plans.append(
            PoolPlan(
                scope_block=scope,
                alignment=align,
                static_members=static,
                offsets=offsets,
                static_size=size,
                lower_bound=bound,
                lower_bound_aligned=bound_aligned,
                algorithm=alg,
                merged_deallocs=merged_deallocs,
                dynamic_members=dynamic,
                hoist=sorted(hoist),
                insert_before=int(first),
                dealloc_after=int(last),
            )
        )
    return plans


__all__ = ["PoolPlan", "alloc_alignment", "plan_function"]
