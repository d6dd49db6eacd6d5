"""Pool layouts: which allocations share a pool, and at which byte offsets.

One pool per scope block (a function body, or the body of a parallel op).
Eligible allocations nested in sequential region ops (``scf.for``, ``scf.if``,
``scf.while``, ...) are hoisted into the enclosing scope's pool: their live
interval lies inside one execution of their block, and pre-order program
points put every buffer that can be live at the same time in an overlapping
interval, so packing by interval is safe across iterations and branches.
Inside a parallel op each body instance gets its own pool.

Static buffers are packed by :func:`memplan.packing.pack`. Buffers with
dynamic (hoistable) sizes follow the static region in slots, laid out one
after the other with ``index`` arithmetic at the pool: buffers whose lives
do not overlap share a slot when their sizes compare whatever the dynamic
values (``4 * %n`` and ``8 * %n``: one is never smaller; see
:mod:`memplan.lifetimes.symbolic`), which then costs the larger, max(A, B),
not A + B.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from memplan import packing
from memplan.ir.graph import Graph
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live
from memplan.lifetimes.symbolic import Poly, SymbolicSizes, dominates
from memplan.lifetimes.peaks import (
    Pool,
    dynamic_dominated,
    input_peak,
    lower_bound_peak,
    plan_excess,
    plan_peak,
)

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
    """Rows of members with dynamic sizes."""
    dynamic_slots: list[list[int]] = field(default_factory=list)
    """The dynamic members by slot, in layout order after the static region;
    a slot's first member is its largest (the slot's size), the others live
    at other times and are never larger."""
    hoist: list[int] = field(default_factory=list)
    """Op ids (ascending) of the pure ops computing the dynamic sizes."""
    insert_before: int = -1
    """Op in the scope block the pool is allocated before."""
    dealloc_after: int = -1
    """Op in the scope block the pool is freed after."""

    @property
    def members(self) -> list[int]:
        return [int(i) for i in self.static_members] + list(self.dynamic_members)


class PoolOverflow(ValueError):
    """The members of one pool need more bytes than an ``index`` holds."""

    def __init__(self, op: int, total: int):
        super().__init__(f"the pooled buffers need up to {total} bytes; memplan packs less than 2^62")
        self.op = op


def alloc_alignment(graph: Graph, op: int) -> int:
    """The ``alignment`` attribute of an allocation op (an integer), or 1."""
    value = graph.int_attribute(op, "alignment")
    return value if value is not None and value > 0 else 1


_INFEASIBLE = (1 << 62, 1 << 62, 1 << 62)
_MAX_ROUNDS = 12
"""Improvement rounds per scope."""
_MAX_TRIALS = 32
"""Cuts and removals tried per pool and round."""


def _pool_plan(
    lt: FunctionLifetimes, group: np.ndarray, algorithm: str, alignment: int
) -> Optional[PoolPlan]:
    """The pool of rows ``group`` (all in one scope), or None when it has no
    place to be freed in its block."""
    g = lt.graph
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
        # The packer works in int64: its worst case (every item stacked)
        # must stay below its limit, checked here with Python integers.
        worst = sum(-(-int(b) // align) * align for b in size_items)
        if worst >= packing.SIZE_LIMIT:
            raise PoolOverflow(int(lt.op[static[0]]), worst)
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
    slots = _dynamic_slots(lt, dynamic)
    first = min(g.ancestor_in_block(scope, int(lt.op[i])) for i in group)
    last = max(g.ancestor_in_block(scope, int(lt.last_use[i])) for i in group)
    after = int(g.op_end[last]) + 1
    if first < 0 or after >= g.num_ops or g.op_block[after] != scope:
        return None  # no place to free the pool in its block: leave the IR alone
    return PoolPlan(
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
        dynamic_slots=slots,
        hoist=sorted(hoist),
        insert_before=int(first),
        dealloc_after=int(last),
    )


def _dynamic_slots(lt: FunctionLifetimes, rows: list[int]) -> list[list[int]]:
    """Slots for dynamic rows: a linear scan over their intervals; a row
    takes a slot whose members are dead when it starts and whose size
    compares with its own (one of the two is never smaller), else a new one.
    The largest member of each slot comes first."""
    if len(rows) < 2:
        return [[r] for r in rows]
    sizes = SymbolicSizes(lt.graph, lt.func_op, lambda v: f"%v{v}")
    by_row = {r: sizes.alloc_bytes(int(lt.op[r])) for r in rows}
    nonneg = frozenset(sizes.nonneg)
    slots: list[tuple[list[int], Poly, int]] = []  # (rows, size, free from)
    for r in sorted(rows, key=lambda x: (int(lt.start[x]), x)):
        size = by_row[r]
        for k, (members, biggest, free) in enumerate(slots):
            if free > int(lt.start[r]):
                continue
            if dominates(biggest, size, nonneg):
                slots[k] = (members + [r], biggest, int(lt.end[r]))
                break
            if dominates(size, biggest, nonneg):
                slots[k] = ([r] + members, size, int(lt.end[r]))
                break
        else:
            slots.append(([r], size, int(lt.end[r])))
    return [members for members, _, _ in slots]


def as_pool(lt: FunctionLifetimes, plan: PoolPlan) -> Pool:
    """What the heap peak sees of a pool plan: its dynamic bytes are its
    slots' largest members."""
    end = int(lt.graph.op_end[plan.dealloc_after]) + 1
    held = tuple(slot[0] for slot in plan.dynamic_slots) if plan.dynamic_slots else None
    return Pool(tuple(plan.members), plan.insert_before, end, plan.static_size, held)


@dataclass
class FunctionPlan:
    """The pools of one function and the heap peaks they give."""

    pools: list[PoolPlan]
    input_peak: int
    """Peak heap bytes of the function as it is (upstream's, after its pipeline)."""
    peak: int
    """Peak heap bytes with the pools."""
    lower_bound: int
    """No plan that leaves the other buffers alone has a lower peak."""
    heap_allocations: int
    """Allocation sites left on the heap (pools included)."""


@dataclass(frozen=True, eq=False)
class _Unit:
    """Rows that go into a pool together (a branch group is one unit)."""

    rows: tuple[int, ...]
    start: int
    end: int
    size: int
    dynamic: bool


def _units(lt: FunctionLifetimes, rows: np.ndarray) -> list[_Unit]:
    """The units of ``rows``, ordered by live-interval start."""
    group = lt.group_of()
    by_group: dict[int, list[int]] = {}
    singles = []
    for r, k in zip(rows.tolist(), group[rows].tolist()):
        if k < 0:
            singles.append(r)
        else:
            by_group.setdefault(k, []).append(r)
    units = [_Unit((r,), s, e, b, b < 0)
             for r, s, e, b in zip(singles, lt.start[singles].tolist(), lt.end[singles].tolist(),
                                   lt.bytes[singles].tolist())]
    for members in by_group.values():
        m = np.array(members, dtype=np.int64)
        units.append(_Unit(tuple(members), int(lt.start[m].min()), int(lt.end[m].max()),
                           int(lt.bytes[m].max()), bool((lt.bytes[m] < 0).any())))
    units.sort(key=lambda u: (u.start, u.rows[0]))
    return units


def _fixed_cuts(lt: FunctionLifetimes) -> list[int]:
    """Points where a buffer that stays on the heap (or has a dynamic size)
    starts or ends: a pool held across one of them adds its whole size to
    that buffer."""
    func_end = int(lt.graph.op_end[lt.func_op]) + 1
    fixed = ~lt.is_alloca & (lt.bytes != 0) & ~(lt.eligible & (lt.bytes > 0))
    dealloc = lt.dealloc[fixed].astype(np.int64)
    ends = np.where(dealloc >= 0, dealloc + 1, func_end)
    return sorted(set(lt.op[fixed].astype(np.int64).tolist()) | set(ends.tolist()))


def _segments(units: list[_Unit], cuts: list[int]) -> list[list[_Unit]]:
    """Units between consecutive cuts, one pool each; a unit live across a
    cut stays alone."""
    by_segment: dict[int, list[_Unit]] = {}
    for u in units:
        k = bisect.bisect_right(cuts, u.start)
        if k < len(cuts) and cuts[k] < u.end:
            continue  # crosses a cut
        by_segment.setdefault(k, []).append(u)
    return list(by_segment.values())


def plan_function(
    lt: FunctionLifetimes, algorithm: str = "best", alignment: int = 64, min_members: int = 2
) -> FunctionPlan:
    """Pools for the eligible allocations of one function, chosen so that the
    heap peak of the whole function (pools and every buffer left on the heap,
    returned ones included) is never above the input's, and lowest with the
    fewest allocator calls.

    Per scope (function body, parallel body) the search starts from one pool
    of every eligible buffer and the pools between the points where buffers
    that stay on the heap start or end, then improves the best by moves:
    cut a pool in two at a point in time (buffers live across the cut stay
    alone), or take one buffer out of its pool. Leaving everything alone is
    always a candidate, so the peak never goes up.
    """
    rows = np.nonzero(lt.eligible)[0]
    upstream = input_peak(lt)
    bound = lower_bound_peak(lt)
    heap_sites = int((~lt.is_alloca).sum())
    chosen: dict[int, list[PoolPlan]] = {}
    if rows.size:
        scopes = lt.scope[rows]
        order = np.argsort(scopes, kind="stable")
        rows, scopes = rows[order], scopes[order]
        bounds = np.flatnonzero(np.diff(scopes)) + 1
        cuts = _fixed_cuts(lt)
        cache: dict[tuple[int, ...], Optional[PoolPlan]] = {}

        def pool_of(members: list[_Unit]) -> Optional[PoolPlan]:
            if sum(len(u.rows) for u in members) < min_members:
                return None
            key = tuple(sorted(r for u in members for r in u.rows))
            if key not in cache:
                group = np.array(key, dtype=np.int64)
                cache[key] = _pool_plan(lt, group, algorithm, alignment)
            return cache[key]

        def score(groups: list[list[_Unit]], scope: int) -> tuple[int, int, int]:
            plans = [p for p in (pool_of(m) for m in groups) if p is not None]
            allp = [p for k, ps in chosen.items() if k != scope for p in ps] + plans
            pools = [as_pool(lt, p) for p in allp]
            if not dynamic_dominated(lt, pools):
                return _INFEASIBLE
            peak, excess = plan_excess(lt, pools, bound)
            pooled = sum(len(p.static_members) + len(p.dynamic_members) for p in allp)
            return peak, excess, heap_sites - pooled + len(allp)

        def starts_of(m: list[_Unit]) -> list[int]:
            return sorted({u.start for u in m})

        def cut(m: list[_Unit], c: int) -> list[list[_Unit]]:
            before = [u for u in m if u.end <= c]
            after = [u for u in m if u.start >= c]
            return [x for x in (before, after) if x]

        for group in np.split(rows, bounds):
            scope = int(lt.scope[group[0]])
            if len(group) < min_members:
                continue
            units = _units(lt, group)
            static_units = [u for u in units if not u.dynamic]
            starts: list[list[list[_Unit]]] = [[units]]
            if len(static_units) < len(units):
                starts.append([static_units])
            if cuts:
                starts += [_segments(us, cuts) for us in (units, static_units)]
            best_groups: list[list[_Unit]] = []
            best = score([], scope)
            for cand in starts:
                groups = cand
                sc = score(groups, scope)
                # Improve by moves while the score goes down.
                for _ in range(_MAX_ROUNDS):
                    if sc[0] <= bound and sc[1] == 0:
                        break
                    move = None
                    for gi, m in enumerate(groups):
                        options = [cut(m, c) for c in starts_of(m)[1:]][:_MAX_TRIALS]
                        if len(m) > 1:
                            big = sorted(range(len(m)), key=lambda k: -m[k].size)
                            options += [[m[:k] + m[k + 1:]] for k in big[:_MAX_TRIALS]]
                        for parts in options:
                            trial = groups[:gi] + parts + groups[gi + 1:]
                            tsc = score(trial, scope)
                            if tsc < sc and (move is None or tsc < move[0]):
                                move = (tsc, trial)
                    if move is None:
                        break
                    sc, groups = move
                if sc < best:
                    best, best_groups = sc, groups
                if best[0] <= bound and best[1] == 0 and len(best_groups) <= 1:
                    break  # at the lower bound with one pool: nothing to gain
            chosen[scope] = [p for p in (pool_of(m) for m in best_groups) if p is not None]
    pools = [p for ps in chosen.values() for p in ps]
    peak = plan_peak(lt, [as_pool(lt, p) for p in pools])
    pooled = sum(len(p.members) for p in pools)
    return FunctionPlan(pools, upstream, peak, bound, heap_sites - pooled + len(pools))


__all__ = ["FunctionPlan", "PoolOverflow", "PoolPlan", "alloc_alignment", "as_pool", "plan_function"]
