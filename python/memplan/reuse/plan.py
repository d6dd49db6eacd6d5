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

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from memplan import _core, packing
from memplan.ir.graph import Graph
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live
from memplan.lifetimes.fit import Over, over_capacity
from memplan.lifetimes.symbolic import Poly, SymbolicSizes, dominates
from memplan.lifetimes.peaks import (
    ROUNDING,
    Pool,
    dynamic_dominated,
    input_peak,
    lower_bound_peak,
    plan_excess,
    plan_peak,
    planned_items,
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
        """The pool's members: static ones, then dynamic ones."""
        return [int(i) for i in self.static_members] + list(self.dynamic_members)


class PoolCapacityError(ValueError):
    """The buffers of one pool do not fit in the capacity.

    ``over`` says where the live bytes exceed it (no packing exists), or
    ``packing_error`` holds the smallest pool the packer found within its
    budget (when ``over`` is None)."""

    def __init__(self, scope_op: int, capacity: int, rows: list[list[int]], sizes: list[int],
                 over: Optional[Over] = None, packing_error: Optional[packing.CapacityError] = None):
        super().__init__(str(packing_error) if over is None else "over capacity")
        self.scope_op = scope_op
        """The op whose body the pool is for (a function, a parallel op)."""
        self.capacity = capacity
        self.rows = rows
        """The rows of each packed item (a branch group is one item)."""
        self.sizes = sizes
        """The bytes of each item."""
        self.over = over
        self.packing_error = packing_error


class PoolOverflow(ValueError):
    """The members of one pool need more bytes than an ``index`` holds."""

    def __init__(self, op: int, total: int):
        super().__init__(f"the pooled buffers need up to {total} bytes; memplan packs less than 2^62")
        self.op = op


def alloc_alignment(graph: Graph, op: int) -> int:
    """The ``alignment`` attribute of an allocation op (an integer), or 1."""
    value = graph.int_attribute(op, "alignment")
    return value if value is not None and value > 0 else 1


def _pool_alignment(lt: FunctionLifetimes, group: np.ndarray, alignment: int) -> int:
    """The pool's alignment: ``alignment`` or its members' largest."""
    return max([alignment] + [alloc_alignment(lt.graph, int(lt.op[i])) for i in group])


def _capacity_error(lt: FunctionLifetimes, static: np.ndarray, capacity: int, start: np.ndarray,
                    end: np.ndarray, size_items: np.ndarray, item: np.ndarray, align: int,
                    packing_error: Optional[packing.CapacityError] = None) -> PoolCapacityError:
    rows: list[list[int]] = [[] for _ in range(len(size_items))]
    for r, k in zip(static.tolist(), np.asarray(item).tolist()):
        rows[k].append(int(r))
    over = None if packing_error is not None else over_capacity(start, end, size_items, capacity, align)
    g = lt.graph
    scope_op = int(g.block_parent_op[int(lt.scope[static[0]])])
    return PoolCapacityError(scope_op, capacity, rows, [int(b) for b in size_items], over, packing_error)


def _check_fits(lt: FunctionLifetimes, group: np.ndarray, alignment: int, capacity: int) -> None:
    """Raises :class:`PoolCapacityError` when the static rows ``group`` (of
    one scope, not pooled) need more than ``capacity`` bytes at some point."""
    static = group[lt.bytes[group] >= 0]
    if not static.size:
        return
    align = _pool_alignment(lt, static, alignment)
    start, end, size_items, item = lt.items(static)
    if over_capacity(start, end, size_items, capacity, align) is not None:
        raise _capacity_error(lt, static, capacity, start, end, size_items, item, align)


def _pool_plan(
    lt: FunctionLifetimes, group: np.ndarray, algorithm: str, alignment: int,
    capacity: Optional[int] = None, budget: Optional[int] = None,
) -> Optional[PoolPlan]:
    """The pool of rows ``group`` (all in one scope), or None when it has no
    place to be freed in its block. With ``capacity``, its static region fits
    in that many bytes, or :class:`PoolCapacityError` is raised."""
    g = lt.graph
    scope = int(lt.scope[group[0]])
    align = _pool_alignment(lt, group, alignment)
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
        if capacity is not None and over_capacity(start, end, size_items, capacity, align):
            raise _capacity_error(lt, static, capacity, start, end, size_items, item, align)
        try:
            res = packing.pack(start, end, size_items, algorithm=algorithm, alignment=align,
                               capacity=capacity, budget=budget)
        except packing.CapacityError as err:
            raise _capacity_error(lt, static, capacity, start, end, size_items, item, align, err) from None
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


def _round(b: int) -> int:
    return -(-b // ROUNDING) * ROUNDING


def _chain_pools(lt: FunctionLifetimes, scope: int, units: list[_Unit], pools: list[PoolPlan],
                 target: int, pool_of) -> list[PoolPlan]:
    """Pools of buffers that follow one another in ``scope`` (each a chain:
    one offset, as large as its largest member), formed only where the heap
    with ``pools`` stays at or below ``target`` (C++: memplan/packing/PoolChains.h).
    Candidates are statically sized buffers allocated directly in the scope
    block, over the interval they hold on the heap when left alone."""
    g = lt.graph
    func_end = int(g.op_end[lt.func_op]) + 1
    chosen = [u for u in units if not u.dynamic and len(u.rows) == 1 and u.size > 0
              and int(g.op_block[lt.op[u.rows[0]]]) == scope]
    if len(chosen) < 2:
        return []
    rows = np.array([u.rows[0] for u in chosen], dtype=np.int64)
    dealloc = lt.dealloc[rows].astype(np.int64)
    start = lt.op[rows].astype(np.int64) - lt.func_op
    end = np.where(dealloc >= 0, np.maximum(dealloc + 1, lt.end[rows].astype(np.int64)), func_end) - lt.func_op
    size = -(-lt.bytes[rows].astype(np.int64) // ROUNDING) * ROUNDING
    heap_start, heap_end, heap_size = planned_items(lt, [as_pool(lt, p) for p in pools])
    keep = np.array(heap_size, dtype=np.int64) > 0
    hs = np.array(heap_start, dtype=np.int64)[keep] - lt.func_op
    he = np.array(heap_end, dtype=np.int64)[keep] - lt.func_op
    hb = np.array([_round(b) for b in np.array(heap_size, dtype=np.int64)[keep].tolist()], dtype=np.int64)
    chain = _core.chain_pools(hs, he, hb, start, end, size, func_end - lt.func_op, target)
    members: dict[int, list[_Unit]] = {}
    for u, c in zip(chosen, chain.tolist()):
        members.setdefault(c, []).append(u)
    out = []
    for group in members.values():
        if len(group) > 1:
            plan = pool_of(group)
            if plan is not None:
                out.append(plan)
    return out


def plan_function(
    lt: FunctionLifetimes, algorithm: str = "best", alignment: int = 64, min_members: int = 2,
    capacity: Optional[int] = None, budget: Optional[int] = None,
) -> FunctionPlan:
    """Pools for the eligible allocations of one function, chosen so that the
    heap peak of the whole function (pools and every buffer left on the heap,
    returned ones included) is never above the input's, and lowest with the
    fewest allocator calls.

    Per scope (function body, parallel body), in two steps, each checked
    against the heap of the whole function:

    1. one pool of every eligible buffer of the scope, packed by
       :mod:`memplan.packing` and held from its first member to its last use,
       kept when the peak, then the bytes above the lower bound summed over
       the program points, do not go up;
    2. otherwise, pools of buffers that follow one another (chains, see
       :func:`_chain_pools`), formed only where the heap stays at or below
       the peak the function has without them.

    Leaving everything alone remains the fallback, so the peak never goes
    up. Both steps cost O(n log n) in the buffers of the function.

    With ``capacity`` (bytes), the plan is for a memory of that size instead:
    per scope, one pool of every eligible statically sized buffer, packed in
    at most ``capacity`` bytes (the exact search gets ``budget`` steps), or
    :class:`PoolCapacityError`; buffers with dynamic sizes stay on the heap
    (their bytes are not known). A lone buffer is left alone, if it fits.
    """
    rows = np.nonzero(lt.eligible)[0]
    upstream = input_peak(lt)
    bound = lower_bound_peak(lt)
    heap_sites = int((~lt.is_alloca).sum())
    pools: list[PoolPlan] = []
    if capacity is not None:
        static = sorted(r for u in _units(lt, rows) if not u.dynamic for r in u.rows)
        pools = _plan_within(lt, np.array(static, dtype=np.int64), algorithm, alignment, min_members,
                             capacity, budget)
    elif rows.size:
        scopes = lt.scope[rows]
        order = np.argsort(scopes, kind="stable")
        rows, scopes = rows[order], scopes[order]
        bounds = np.flatnonzero(np.diff(scopes)) + 1

        def pool_of(members: list[_Unit]) -> Optional[PoolPlan]:
            if sum(len(u.rows) for u in members) < min_members:
                return None
            group = np.array(sorted(r for u in members for r in u.rows), dtype=np.int64)
            return _pool_plan(lt, group, algorithm, alignment)

        def score(candidate: list[PoolPlan]) -> Optional[tuple[int, int]]:
            as_pools = [as_pool(lt, p) for p in candidate]
            if not dynamic_dominated(lt, as_pools):
                return None
            return plan_excess(lt, as_pools, bound)

        current = score([])
        assert current is not None
        unpooled: list[tuple[int, list[_Unit]]] = []
        for group in np.split(rows, bounds):
            scope = int(lt.scope[group[0]])
            if len(group) < min_members:
                continue
            units = _units(lt, group)
            one = pool_of(units)
            trial = score(pools + [one]) if one is not None else None
            if trial is not None and trial <= current:
                pools.append(one)
                current = trial
            else:
                unpooled.append((scope, units))
        chained: list[PoolPlan] = []
        for scope, units in unpooled:
            chained += _chain_pools(lt, scope, units, pools + chained, current[0], pool_of)
        if chained:
            trial = score(pools + chained)
            if trial is not None and trial[0] <= current[0]:
                pools += chained
    peak = plan_peak(lt, [as_pool(lt, p) for p in pools])
    pooled = sum(len(p.members) for p in pools)
    return FunctionPlan(pools, upstream, peak, bound, heap_sites - pooled + len(pools))


def _plan_within(lt: FunctionLifetimes, rows: np.ndarray, algorithm: str, alignment: int,
                 min_members: int, capacity: int, budget: Optional[int]) -> list[PoolPlan]:
    """One pool per scope of the static ``rows``, each within ``capacity``."""
    pools = []
    scopes = lt.scope[rows]
    for scope in sorted(set(scopes.tolist())):
        group = rows[scopes == scope]
        if len(group) < min_members:
            _check_fits(lt, group, alignment, capacity)
            continue
        plan = _pool_plan(lt, group, algorithm, alignment, capacity, budget)
        if plan is not None:
            pools.append(plan)
    return pools


__all__ = ["FunctionPlan", "PoolCapacityError", "PoolOverflow", "PoolPlan", "alloc_alignment", "as_pool", "plan_function"]
