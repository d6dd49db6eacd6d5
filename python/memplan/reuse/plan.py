"""Pool layouts: which allocations share a pool, and at which byte offsets.

One pool per scope block (a function body, or the body of a parallel op).
Eligible allocations nested in sequential region ops (``scf.for``, ``scf.if``,
``scf.while``, ...) are hoisted into the enclosing scope's pool: their live
interval lies inside one execution of their block, and pre-order program
points put every buffer that can be live at the same time in an overlapping
interval, so packing by interval is safe across iterations and branches.
Inside a parallel op each body instance gets its own pool.

Static buffers are packed by :func:`memplan.reuse.packing.pack`. A pool with
dynamically sized members (sizes hoistable to the pool) is a
:class:`Layout`: an order of its members, below or above each other where
their lives overlap, taken from a packing of their sizes at a sample value
of the dynamic sizes; each member's offset is the largest end of the members
directly below it, computed at run time (``index`` arithmetic over the
sizes), so no two members live at once share a byte whatever the sizes are.
The plan's heap is then checked on every path for every size
(:mod:`memplan.lifetimes.paths`, :mod:`memplan.lifetimes.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph
from memplan.lifetimes import bounds as B
from memplan.lifetimes import symbolic
from memplan.lifetimes.analysis import FunctionLifetimes, peak_live
from memplan.lifetimes.fit import Over, over_capacity
from memplan.lifetimes.paths import (
    NUMERIC_LIMIT,
    HeapArrays,
    HeapCheck,
    HeapItem,
    NumericHeap,
    PathTree,
    constant_sizes,
)
from memplan.lifetimes.peaks import (
    ROUNDING,
    Pool,
    input_peak,
    lower_bound_peak,
    plan_excess,
    plan_peak,
    planned_items,
)
from memplan.reuse import packing


class Layout:
    """Where the members of a pool with dynamically sized members lie.

    Items (a row, or the rows of a branch group) in order: every item lies
    above the items listed in ``below`` (those it overlaps in time,
    directly: the others are below those), so its offset is the largest of
    their offsets plus their slots, 0 without any; its slot is its bytes
    rounded up to the pool's alignment. No two items live at once share a
    byte, whatever the sizes."""

    def __init__(self, items: list[tuple[int, ...]], below: list[list[int]], slots: list[B.Bound]):
        self.items = items
        """Rows of each item, in an order where every item comes after those below it."""
        self.below = below
        """Items (indices into ``items``) directly below each item."""
        self.slots = slots
        """Bytes of each item, rounded up to the pool's alignment."""
        self._bounds: Optional[tuple[list[B.Bound], list[B.Bound], B.Bound]] = None

    def _compute(self) -> tuple[list[B.Bound], list[B.Bound], B.Bound]:
        if self._bounds is None:
            offsets: list[B.Bound] = []
            for direct in self.below:
                offsets.append(
                    B.maximum(*(B.add(offsets[i], self.slots[i]) for i in direct))
                    if direct
                    else B.ZERO
                )
            ends = [B.add(o, z) for o, z in zip(offsets, self.slots)]
            size = B.maximum(*(ends[j] for j in self.sinks)) if ends else B.ZERO
            self._bounds = (offsets, ends, size)
        return self._bounds

    @property
    def sinks(self) -> list[int]:
        """Items with none above them: the pool ends at the largest of their ends."""
        above = {i for b in self.below for i in b}
        return [j for j in range(len(self.items)) if j not in above]

    @property
    def offsets(self) -> list[B.Bound]:
        """Offset of each item (a bound of it: exact, or above it where the
        expression was too large to keep, see :func:`memplan.lifetimes.bounds.is_exact`)."""
        return self._compute()[0]

    @property
    def ends(self) -> list[B.Bound]:
        """Offset plus slot of each item, the same way."""
        return self._compute()[1]

    @property
    def size(self) -> B.Bound:
        """Bytes of the pool (a bound of them, as ``offsets``)."""
        return self._compute()[2]

    def bytes_at(self, values: B.Values) -> np.ndarray:
        """The pool's exact bytes at each value of the one dynamic size."""
        ends: list[np.ndarray] = []
        for k, direct in enumerate(self.below):
            off = values.full(0)
            for i in direct:
                off = np.maximum(off, ends[i])
            ends.append(off + values.bound(self.slots[k]))
        out = values.full(0)
        for j in self.sinks:
            out = np.maximum(out, ends[j])
        return out


@dataclass
class PoolPlan:
    """The layout of one pool."""

    scope_block: int
    alignment: int
    static_members: np.ndarray
    """Rows (of the FunctionLifetimes arrays) of statically sized members."""
    offsets: np.ndarray
    """Byte offset of each static member (int64) when there is no ``layout``."""
    static_size: int
    """Bytes of the static region (the packed pool size); with a
    ``layout``, the pool's bytes when every dynamic size is 0."""
    lower_bound: int
    """Peak live bytes of the static members: no pool can be smaller."""
    lower_bound_aligned: int
    """Tighter bound that counts the alignment padding of every offset."""
    algorithm: str
    merged_deallocs: list[int] = field(default_factory=list)
    """Deallocs of merged branch results (see memplan.lifetimes.branches) to erase."""
    dynamic_members: list[int] = field(default_factory=list)
    """Rows of members with dynamic sizes."""
    layouts: list[Layout] = field(default_factory=list)
    """With dynamic members: every member's place (static ones included),
    one layout or several, of which the run takes the one with the smallest
    pool; the last one bounds the pool for the sizes past the checks'
    values (see :meth:`memplan.lifetimes.paths.HeapCheck.choose`)."""
    leaf: Optional[str] = None
    """With several layouts: the one dynamic size the choice depends on."""
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

    @property
    def size(self) -> B.Bound:
        """A bound of the pool's bytes, for every value of the dynamic sizes
        (with several layouts: for the values past the checks')."""
        return self.layouts[-1].size if self.layouts else B.constant(self.static_size)

    def bytes_at(self, values: B.Values) -> np.ndarray:
        """The pool's exact bytes at each value of its one dynamic size: its
        smallest layout's."""
        if not self.layouts:
            return values.full(self.static_size)
        out = self.layouts[0].bytes_at(values)
        for layout in self.layouts[1:]:
            out = np.minimum(out, layout.bytes_at(values))
        return out


class PoolCapacityError(ValueError):
    """The buffers of one pool do not fit in the capacity.

    ``over`` says where the live bytes exceed it (no packing exists), or
    ``packing_error`` holds the smallest pool the packer found within its
    budget (when ``over`` is None)."""

    def __init__(
        self,
        scope_op: int,
        capacity: int,
        rows: list[list[int]],
        sizes: list[int],
        over: Optional[Over] = None,
        packing_error: Optional[packing.CapacityError] = None,
    ):
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
        super().__init__(
            f"the pooled buffers need up to {total} bytes; memplan packs less than 2^62"
        )
        self.op = op


def alloc_alignment(graph: Graph, op: int) -> int:
    """The ``alignment`` attribute of an allocation op (an integer), or 1."""
    value = graph.int_attribute(op, "alignment")
    return value if value is not None and value > 0 else 1


def _pool_alignment(lt: FunctionLifetimes, group: np.ndarray, alignment: int) -> int:
    """The pool's alignment: ``alignment`` or its members' largest."""
    return max([alignment] + [alloc_alignment(lt.graph, int(lt.op[i])) for i in group])


def _capacity_error(
    lt: FunctionLifetimes,
    static: np.ndarray,
    capacity: int,
    start: np.ndarray,
    end: np.ndarray,
    size_items: np.ndarray,
    item: np.ndarray,
    align: int,
    packing_error: Optional[packing.CapacityError] = None,
) -> PoolCapacityError:
    rows: list[list[int]] = [[] for _ in range(len(size_items))]
    for r, k in zip(static.tolist(), np.asarray(item).tolist()):
        rows[k].append(int(r))
    over = (
        None
        if packing_error is not None
        else over_capacity(start, end, size_items, capacity, align)
    )
    g = lt.graph
    scope_op = int(g.block_parent_op[int(lt.scope[static[0]])])
    return PoolCapacityError(
        scope_op, capacity, rows, [int(b) for b in size_items], over, packing_error
    )


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


def _placement(lt: FunctionLifetimes, group: np.ndarray) -> Optional[tuple[int, int]]:
    """(op the pool is allocated before, op it is freed after) in the scope
    block of rows ``group``; None when it has no place to be freed there."""
    g = lt.graph
    scope = int(lt.scope[group[0]])
    first = min(g.ancestor_in_block(scope, int(lt.op[i])) for i in group)
    last = max(g.ancestor_in_block(scope, int(lt.last_use[i])) for i in group)
    after = int(g.op_end[last]) + 1
    if first < 0 or after >= g.num_ops or g.op_block[after] != scope:
        return None
    return int(first), int(last)


def _pool_plan(
    lt: FunctionLifetimes,
    group: np.ndarray,
    algorithm: str,
    alignment: int,
    capacity: Optional[int] = None,
    budget: Optional[int] = None,
) -> Optional[PoolPlan]:
    """The pool of the statically sized rows ``group`` (all in one scope),
    or None when it has no place to be freed in its block. With
    ``capacity``, it fits in that many bytes, or
    :class:`PoolCapacityError` is raised."""
    scope = int(lt.scope[group[0]])
    align = _pool_alignment(lt, group, alignment)
    static = group[lt.bytes[group] >= 0]
    assert static.size == group.size, "dynamic members are laid out by _dynamic_plans"
    start, end, size_items, item = lt.items(static)
    # The packer works in int64: its worst case (every item stacked)
    # must stay below its limit, checked here with Python integers.
    worst = sum(-(-int(b) // align) * align for b in size_items)
    if worst >= packing.SIZE_LIMIT:
        raise PoolOverflow(int(lt.op[static[0]]), worst)
    if capacity is not None and over_capacity(start, end, size_items, capacity, align):
        raise _capacity_error(lt, static, capacity, start, end, size_items, item, align)
    try:
        res = packing.pack(
            start,
            end,
            size_items,
            algorithm=algorithm,
            alignment=align,
            capacity=capacity,
            budget=budget,
        )
    except packing.CapacityError as err:
        raise _capacity_error(
            lt, static, capacity, start, end, size_items, item, align, err
        ) from None
    offsets = np.asarray(res.offsets, dtype=np.int64)[item]
    merged_deallocs: list[int] = []
    if lt.groups:
        in_plan = set(static.tolist())
        merged_deallocs = [g_.dealloc for g_ in lt.groups if g_.rows[0] in in_plan]
    where = _placement(lt, group)
    if where is None:
        return None  # no place to free the pool in its block: leave the IR alone
    return PoolPlan(
        scope_block=scope,
        alignment=align,
        static_members=static,
        offsets=offsets,
        static_size=int(res.pool_size),
        lower_bound=peak_live(start, end, size_items),
        lower_bound_aligned=int(res.lower_bound_aligned),
        algorithm=res.algorithm,
        merged_deallocs=merged_deallocs,
        insert_before=where[0],
        dealloc_after=where[1],
    )


class _Sizes:
    """Byte sizes of one function's rows as polynomials over the dynamic
    sizes (:class:`memplan.lifetimes.symbolic.SymbolicSizes`), and the
    function's heap as :class:`~memplan.lifetimes.paths.HeapItem` s."""

    def __init__(self, lt: FunctionLifetimes):
        self.lt = lt
        g = lt.graph
        self.dynamic = bool(((lt.bytes < 0) & ~lt.is_alloca).any())
        sym = symbolic.SymbolicSizes(g, lt.func_op, lambda v: f"%v{v}") if self.dynamic else None
        self.polys: list[symbolic.Poly] = [
            symbolic.const(int(b)) if b >= 0 or sym is None else sym.alloc_bytes(int(op))
            for b, op in zip(lt.bytes.tolist(), lt.op.tolist())
        ]
        self.tree = PathTree(g, lt.func_op)
        self._blocks: dict[int, B.Bound] = {}
        self._slots: dict[tuple[tuple[int, ...], int], B.Bound] = {}
        # The heap buffers of no branch group (the same item in every plan
        # that leaves one alone): their rows, and start, end, node and bytes.
        func_end = int(g.op_end[lt.func_op]) + 1
        self._rows = np.flatnonzero(~lt.is_alloca & (lt.group_of() < 0))
        op = lt.op[self._rows].astype(np.int64)
        dealloc = lt.dealloc[self._rows].astype(np.int64)
        self._fields = (
            op,
            np.where(dealloc >= 0, np.maximum(dealloc + 1, lt.end[self._rows]), func_end),
            self.tree.point_node[op - self.tree.func_op],
            lt.bytes[self._rows].astype(np.int64),
        )
        self._singles: Optional[list[tuple[int, HeapItem]]] = None
        self._input: Optional[list[HeapItem]] = None
        self._check: Optional[HeapCheck] = None
        self._static = self._static_heap()
        self._numeric: Optional[NumericHeap] = None
        self._before_total = 0
        self.leaves = (
            sorted(set().union(*(symbolic.leaves(p) for p in self.polys))) if self.dynamic else []
        )

    @property
    def input(self) -> list[HeapItem]:
        """The heap of the function as it is."""
        if self._input is None:
            self._input = self.heap_items(set())
        return self._input

    @property
    def check(self) -> HeapCheck:
        """Plans against :attr:`input`."""
        if self._check is None:
            self._check = HeapCheck(self.tree, self.input)
        return self._check

    def block(self, rows) -> B.Bound:
        """Heap bytes of the largest of ``rows`` (one buffer), 64-byte blocks."""
        polys = [self.polys[r] for r in rows]
        if all(len(p) <= 1 and () in p or not p for p in polys):
            return self._constant_block(max(p.get((), 0) for p in polys))
        return B.maximum(*(B.aligned(p, ROUNDING) for p in polys))

    def slot(self, rows: tuple[int, ...], align: int) -> B.Bound:
        """Bytes of the largest of ``rows`` rounded up to ``align``: a pool
        item's slot (:class:`Layout`), made once for all layouts."""
        found = self._slots.get((rows, align))
        if found is None:
            found = B.maximum(*(B.aligned(self.polys[r], align) for r in rows))
            self._slots[(rows, align)] = found
        return found

    def _constant_block(self, size: int) -> B.Bound:
        """Heap bytes of a buffer of ``size`` bytes (one bound per size)."""
        found = self._blocks.get(size)
        if found is None:
            found = self._blocks[size] = B.aligned(symbolic.const(size), ROUNDING)
        return found

    def _single_items(self) -> list[tuple[int, HeapItem]]:
        """Each heap buffer of no branch group with its item (made once)."""
        if self._singles is None:
            fields = zip(self._rows.tolist(), *(a.tolist() for a in self._fields))
            self._singles = [
                # A static size is its polynomial's constant (symbolic.const).
                (r, HeapItem(o, e, self._constant_block(b) if b >= 0 else self.block([r]), n))
                for r, o, e, n, b in fields
            ]
        return self._singles

    def _group_items(self, skip: set[int]) -> list[HeapItem]:
        """Each branch group as one buffer from its region op, but the rows
        in ``skip``."""
        lt, tree = self.lt, self.tree
        func_end = int(lt.graph.op_end[lt.func_op]) + 1
        items = []
        for grp in lt.groups:
            rows = [r for r in grp.rows if r not in skip]
            if rows:
                items.append(
                    HeapItem(
                        min(int(lt.op[r]) for r in rows),
                        grp.dealloc + 1 if grp.dealloc >= 0 else func_end,
                        self.block(rows),
                        tree.node_of(grp.region_op),
                    )
                )
        return items

    def heap_items(self, skip: set[int]) -> list[HeapItem]:
        """The heap of the function as it is, but the rows in ``skip``: each
        buffer from its allocation to its dealloc (to the end without one),
        a branch group as one buffer from its region op."""
        items = self._group_items(skip)
        items += [it for r, it in self._single_items() if r not in skip]
        return items

    def _static_heap(self) -> Optional[HeapArrays]:
        """With every size static, the buffers of no branch group as arrays
        of their heap blocks (:meth:`_static_ok`); else None."""
        op, end, node, size = self._fields
        if self.dynamic or size.size and not (0 <= size.min() and size.max() < 1 << 61):
            return None
        # Their blocks' bytes (_constant_block), in int64: below 2^61, no wrap.
        return HeapArrays(op, end, node, -(-size // ROUNDING) * ROUNDING)

    def _static_ok(self, pools: list[PoolPlan]) -> Optional[bool]:
        """:meth:`HeapCheck.ok` of :meth:`plan_items` where it compares
        levels numerically, with the buffers of no group as arrays, not
        items (made for every plan, their cost was most of the check's);
        None where it would not."""
        skip = {r for p in pools for r in p.members}
        others = self._group_items(skip) + [self.pool_item(p) for p in pools]
        sizes = constant_sizes(others)
        if any(z is None for z in sizes):
            return None
        if self._numeric is None:
            groups = self._group_items(set())
            group_sizes = constant_sizes(groups)
            if any(z is None for z in group_sizes):
                return None
            before = self._static + HeapArrays.of(groups, group_sizes)
            self._numeric, self._before_total = NumericHeap(self.tree, before), before.total()
        left = ~np.isin(self._rows, np.fromiter(skip, np.int64, len(skip)))
        after = self._static.take(left) + HeapArrays.of(others, sizes)
        if self._before_total + after.total() >= NUMERIC_LIMIT:
            return None
        return self._numeric.ok(after)

    def plan_items(self, pools: list[PoolPlan]) -> list[HeapItem]:
        """The heap with ``pools`` in place of their members."""
        items = self.heap_items({r for p in pools for r in p.members})
        items += [self.pool_item(p) for p in pools]
        return items

    def pool_item(self, p: PoolPlan) -> HeapItem:
        """The heap block of pool ``p``."""
        size = p.size
        pad = ROUNDING - 1 if p.alignment % ROUNDING else 0  # a heap block holds it rounded up
        values = None
        if len(p.layouts) > 1:

            def values(x: np.ndarray, p: PoolPlan = p) -> np.ndarray:
                return p.bytes_at(B.Values(p.leaf, int(x[-1]), exact=x.dtype == object)) + pad

        if pad:
            size = B.add(size, B.constant(pad))
        return HeapItem(
            p.insert_before,
            int(self.lt.graph.op_end[p.dealloc_after]) + 1,
            size,
            self.tree.node_of(p.insert_before),
            values,
        )

    def ok(self, pools: list[PoolPlan]) -> bool:
        """Whether ``pools`` never raise the heap on any path, for any size."""
        if self._static is not None:
            found = self._static_ok(pools)
            if found is not None:
                return found
        return self.check.ok(self.plan_items(pools))


def _layout(
    lt: FunctionLifetimes,
    sizes: _Sizes,
    units: list["_Unit"],
    align: int,
    order_key: Callable[[int], tuple],
) -> Layout:
    """The layout of ``units`` with each item above the items it overlaps
    in time that come before it in ``order_key`` order."""
    n = len(units)
    order = sorted(range(n), key=order_key)
    units = [units[i] for i in order]
    start = np.array([u.start for u in units], dtype=np.int64)
    end = np.array([u.end for u in units], dtype=np.int64)
    overlap = (start[:, None] < end[None, :]) & (start[None, :] < end[:, None])
    slots = [sizes.slot(u.rows, align) for u in units]
    reach: list[int] = []  # bit i: item i lies below, directly or not
    below: list[list[int]] = []
    # Row j's earlier overlapping items, ascending (one nonzero for all rows).
    rows, cols = np.nonzero(np.tril(overlap, -1))
    bounds = np.searchsorted(rows, np.arange(n + 1)).tolist()
    cols = cols.tolist()
    for j in range(n):
        preds = cols[bounds[j] : bounds[j + 1]]
        reached = 0
        for i in preds:
            reached |= reach[i]
        below.append([i for i in preds if not (reached >> i) & 1])
        for i in preds:
            reached |= 1 << i
        reach.append(reached)
    return Layout([u.rows for u in units], below, slots)


SAMPLES = tuple(1 << k for k in range(0, 17, 2))
"""Values given to every dynamic size when packing a pool with dynamic
members: each gives an order of the members (a layout)."""


def _dynamic_plans(
    lt: FunctionLifetimes,
    sizes: _Sizes,
    group: np.ndarray,
    units: list["_Unit"],
    alignment: int,
    pools: list[PoolPlan],
) -> list[PoolPlan]:
    """Candidate pools of the rows ``group`` (one scope, some dynamically
    sized) next to the accepted ``pools``, best first; none when the pool
    has no place in its block.

    Each sample value of the dynamic sizes (:data:`SAMPLES`) gives two
    layouts, the order of a packing at that value, and the same with the
    static members below the dynamic ones. With a single dynamic size the
    run chooses: the pool keeps the fewest layouts whose smallest is within
    the heap's bounds at every size (:meth:`HeapCheck.choose`), the one of
    the largest sample always. Otherwise each layout is a candidate, the
    smallest at the samples first."""
    where = _placement(lt, group)
    if where is None:
        return []
    align = _pool_alignment(lt, group, alignment)
    leaves = sorted(set().union(*(symbolic.leaves(sizes.polys[r]) for r in group.tolist())))
    start = np.array([u.start for u in units], dtype=np.int64)
    end = np.array([u.end for u in units], dtype=np.int64)
    is_static = [not u.dynamic for u in units]

    def at(value: int) -> np.ndarray:
        env = {leaf: value for leaf in leaves}
        return np.array(
            [max(symbolic.evaluate(sizes.polys[r], env) for r in u.rows) for u in units],
            dtype=np.int64,
        )

    layouts: dict[tuple, tuple[bool, int, Layout]] = {}  # order -> (static first, sample, layout)
    for value in SAMPLES:
        size = at(value)
        if sum(-(-int(b) // align) * align for b in size.tolist()) >= packing.SIZE_LIMIT:
            continue
        offsets = np.asarray(
            packing.pack(start, end, size, algorithm="best", alignment=align, budget=0).offsets
        )
        for first in (True, False):

            def key(i: int, o: np.ndarray = offsets, first: bool = first) -> tuple:
                return ((not is_static[i]) if first else False, int(o[i]), i)

            order = tuple(sorted(range(len(units)), key=key))
            if order in layouts:  # the same order again: kept with the largest sample
                layouts[order] = (first, value, layouts[order][2])
            else:
                layouts[order] = (first, value, _layout(lt, sizes, units, align, key))

    static = group[lt.bytes[group] >= 0]
    dynamic = [int(i) for i in group[lt.bytes[group] < 0]]
    hoist: set[int] = set()
    for i in dynamic:
        hoist.update(lt.dynamic_slices.get(i, ()))
    merged = []
    if lt.groups:
        in_plan = set(static.tolist())
        merged = [g_.dealloc for g_ in lt.groups if g_.rows[0] in in_plan]
    s_start, s_end, s_size, _ = lt.items(static)
    bound = peak_live(s_start, s_end, s_size) if static.size else 0

    def plan_of(chosen: list[Layout]) -> PoolPlan:
        return PoolPlan(
            scope_block=int(lt.scope[group[0]]),
            alignment=align,
            static_members=static,
            offsets=np.zeros(len(static), np.int64),
            static_size=int(B.evaluate(chosen[-1].size, {leaf: 0 for leaf in leaves})),
            lower_bound=bound,
            lower_bound_aligned=bound,
            algorithm=f"ordered by {len(chosen)} packing(s) at sample sizes",
            merged_deallocs=merged,
            dynamic_members=dynamic,
            layouts=chosen,
            leaf=leaves[0] if len(leaves) == 1 else None,
            hoist=sorted(hoist),
            insert_before=where[0],
            dealloc_after=where[1],
        )

    # Largest sample last; at one sample, the static members first after the others.
    entries = sorted(layouts.values(), key=lambda e: (e[1], e[0]))
    if len(leaves) == 1 and sizes.leaves == leaves:  # one dynamic size in the whole function
        candidates = [layout for _, _, layout in entries]
        for last in (len(candidates) - 1, len(candidates) - 2):
            # The layout bounding the pool past the checked values: the
            # largest sample's, its static members first where that is proven.
            if last < 0 or entries[last][1] != entries[-1][1]:
                break
            order = [c for k, c in enumerate(candidates) if k != last] + [candidates[last]]
            found = _chosen_layouts(
                sizes,
                pools,
                order,
                leaves[0],
                plan_of,
                lambda value: _layout(
                    lt, sizes, units, align, _packed_order(start, end, at(value), align)
                ),
            )
            if found:
                return found
        return []

    def cost(entry: tuple[bool, int, Layout]) -> tuple:
        first, _, layout = entry
        at_samples = tuple(B.evaluate(layout.size, {leaf: v for leaf in leaves}) for v in SAMPLES)
        return at_samples + (not first,)

    return [plan_of([layout]) for _, _, layout in sorted(entries, key=cost)]


def _packed_order(
    start: np.ndarray, end: np.ndarray, size: np.ndarray, align: int
) -> Callable[[int], tuple]:
    """The order of a packing of the items (heuristics only): by offset."""
    offsets = np.asarray(
        packing.pack(start, end, size, algorithm="best", alignment=align, budget=0).offsets
    )
    return lambda i: (int(offsets[i]), i)


MAX_LAYOUTS = 4
"""The most layouts a pool keeps for the run to choose from."""


def _chosen_layouts(
    sizes: _Sizes,
    pools: list[PoolPlan],
    candidates: list[Layout],
    leaf: str,
    plan_of: Callable[[list[Layout]], PoolPlan],
    layout_at: Callable[[int], Layout],
    rounds: int = 12,
) -> list[PoolPlan]:
    """The pool with one dynamic size ``leaf`` whose run picks the smallest
    of the fewest layouts that keep the heap within bounds at every value
    (:meth:`HeapCheck.room`), the last candidate (of the largest sample,
    bounding the pool past the checked values) always among them; where no
    candidate fits at some value, a packing at that value adds one. An empty
    list when no choice fits."""
    probe = plan_of([candidates[-1]])
    after = sizes.plan_items(pools + [probe])
    room = sizes.check.room(after, after[-1], leaf)
    if room is None:
        return []
    values = B.Values(leaf, len(room) - 1, exact=room.dtype == object)
    fits = [layout.bytes_at(values) <= room for layout in candidates]
    for _ in range(rounds):
        missing = ~np.logical_or.reduce(fits)
        if not missing.any():
            break
        extra = layout_at(int(np.nonzero(missing)[0][0]))
        fit = extra.bytes_at(values) <= room
        if not (fit & missing).any():
            return []
        candidates = candidates[:-1] + [extra, candidates[-1]]
        fits = fits[:-1] + [fit, fits[-1]]
    kept = [len(candidates) - 1]
    covered = fits[-1].copy()
    while not covered.all():
        gains = [int((f & ~covered).sum()) for f in fits]
        best = int(np.argmax(gains))
        if gains[best] == 0 or len(kept) == MAX_LAYOUTS:
            return []
        kept.append(best)
        covered |= fits[best]
    return [plan_of([candidates[k] for k in sorted(kept)])]


WINDOW_DEPTH = 2
"""How many times a pool with dynamic members that does not fit is cut in
two in time (at most 2^WINDOW_DEPTH pools)."""


def _cuts(units: list["_Unit"], sizes: _Sizes) -> list[tuple[list["_Unit"], list["_Unit"]]]:
    """Splits of ``units`` (ordered by start) into those before and after a
    point, where the fewest bytes (at a sample size) of the ones before
    still live, closest to the middle first."""
    n = len(units)
    if n < 2:
        return []
    env = {leaf: SAMPLES[len(SAMPLES) // 2] for leaf in sizes.leaves}
    weight = [max(symbolic.evaluate(sizes.polys[r], env) or 0 for r in u.rows) for u in units]
    scored = []
    for k in range(1, n):
        at = units[k].start
        crossing = sum(w for u, w in zip(units[:k], weight) if u.end > at)
        scored.append((crossing, abs(2 * k - n), k))
    return [(units[:k], units[k:]) for _, _, k in sorted(scored)]


def as_pool(lt: FunctionLifetimes, plan: PoolPlan) -> Pool:
    """What the static heap peak sees of a pool plan: its bytes when every
    dynamic size is 0."""
    end = int(lt.graph.op_end[plan.dealloc_after]) + 1
    return Pool(tuple(plan.members), plan.insert_before, end, plan.static_size)


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
    units = [
        _Unit((r,), s, e, b, b < 0)
        for r, s, e, b in zip(
            singles,
            lt.start[singles].tolist(),
            lt.end[singles].tolist(),
            lt.bytes[singles].tolist(),
        )
    ]
    for members in by_group.values():
        m = np.array(members, dtype=np.int64)
        units.append(
            _Unit(
                tuple(members),
                int(lt.start[m].min()),
                int(lt.end[m].max()),
                int(lt.bytes[m].max()),
                bool((lt.bytes[m] < 0).any()),
            )
        )
    units.sort(key=lambda u: (u.start, u.rows[0]))
    return units


def _round(b: int) -> int:
    return -(-b // ROUNDING) * ROUNDING


def _chain_pools(
    lt: FunctionLifetimes,
    scope: int,
    units: list[_Unit],
    pools: list[PoolPlan],
    target: int,
    pool_of,
) -> list[PoolPlan]:
    """Pools of buffers that follow one another in ``scope`` (each a chain:
    one offset, as large as its largest member), formed only where the heap
    with ``pools`` stays at or below ``target`` (C++: memplan/Reuse/PoolChains.h).
    Candidates are statically sized buffers allocated directly in the scope
    block, over the interval they hold on the heap when left alone."""
    g = lt.graph
    func_end = int(g.op_end[lt.func_op]) + 1
    chosen = [
        u
        for u in units
        if not u.dynamic
        and len(u.rows) == 1
        and u.size > 0
        and int(g.op_block[lt.op[u.rows[0]]]) == scope
    ]
    if len(chosen) < 2:
        return []
    rows = np.array([u.rows[0] for u in chosen], dtype=np.int64)
    dealloc = lt.dealloc[rows].astype(np.int64)
    start = lt.op[rows].astype(np.int64) - lt.func_op
    end = (
        np.where(dealloc >= 0, np.maximum(dealloc + 1, lt.end[rows].astype(np.int64)), func_end)
        - lt.func_op
    )
    size = -(-lt.bytes[rows].astype(np.int64) // ROUNDING) * ROUNDING
    heap_start, heap_end, heap_size = planned_items(lt, [as_pool(lt, p) for p in pools])
    keep = np.array(heap_size, dtype=np.int64) > 0
    hs = np.array(heap_start, dtype=np.int64)[keep] - lt.func_op
    he = np.array(heap_end, dtype=np.int64)[keep] - lt.func_op
    hb = np.array(
        [_round(b) for b in np.array(heap_size, dtype=np.int64)[keep].tolist()], dtype=np.int64
    )
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
    lt: FunctionLifetimes,
    algorithm: str = "best",
    alignment: int = 64,
    min_members: int = 2,
    capacity: Optional[int] = None,
    budget: Optional[int] = None,
) -> FunctionPlan:
    """Pools for the eligible allocations of one function, chosen so that the
    heap peak of the whole function (pools and every buffer left on the heap,
    returned ones included) is never above the input's, and lowest with the
    fewest allocator calls.

    Per scope (function body, parallel body), in two steps, each checked
    against the heap of the whole function on every path
    (:mod:`memplan.lifetimes.paths`: a branch that is not taken, a loop
    that runs zero times), for every value of the dynamic sizes:

    1. one pool of every eligible buffer of the scope, held from its first
       member to its last use: packed by :mod:`memplan.reuse.packing`, or laid
       out over the dynamic sizes (:class:`Layout`, one candidate per
       sample value; else the static members alone); kept when the peak,
       then the bytes above the lower bound summed over the program points,
       do not go up;
    2. otherwise, pools of statically sized buffers that follow one another
       (chains, see :func:`_chain_pools`), formed only where the heap stays
       at or below the peak the function has without them.

    Leaving everything alone remains the fallback, so the peak never goes
    up. Without dynamic sizes both steps cost O(n log n) in the buffers of
    the function.

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
        pools = _plan_within(
            lt,
            np.array(static, dtype=np.int64),
            algorithm,
            alignment,
            min_members,
            capacity,
            budget,
        )
    elif rows.size:
        sizes = _Sizes(lt)
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
            if not sizes.ok(candidate):
                return None
            return plan_excess(lt, [as_pool(lt, p) for p in candidate], bound)

        current = score([])
        assert current is not None, "the input's own heap is its own bound"

        def accept(one: Optional[PoolPlan]) -> bool:
            nonlocal current
            if one is None or len(one.members) < min_members:
                return False
            trial = score(pools + [one])
            # With dynamic members the static figures are those of sizes 0:
            # the paths' check decides, the peak at 0 only agrees.
            if trial is None or not (
                trial <= current or bool(one.layouts) and trial[0] <= current[0]
            ):
                return False
            pools.append(one)
            current = trial
            return True

        def place(units: list[_Unit], depth: int) -> list[_Unit]:
            """Pools of ``units`` (some dynamically sized): one pool, else
            two of the units before and after a cut in time, each placed the
            same way (``depth`` times at most). Returns the units left out."""
            if sum(len(u.rows) for u in units) < min_members:
                return units
            group = np.array(sorted(r for u in units for r in u.rows), dtype=np.int64)
            plans = _dynamic_plans(lt, sizes, group, units, alignment, pools)
            if any(accept(one) for one in plans):
                return []
            if depth > 0:
                for left, right in _cuts(units, sizes)[:2]:
                    placed = len(pools)
                    rest = place(left, depth - 1) + place(right, depth - 1)
                    if len(pools) > placed:
                        return rest
            return units

        unpooled: list[tuple[int, list[_Unit]]] = []
        for group in np.split(rows, bounds):
            scope = int(lt.scope[group[0]])
            if len(group) < min_members:
                continue
            units = _units(lt, group)
            if not any(u.dynamic for u in units):
                if not accept(pool_of(units)):
                    unpooled.append((scope, units))
                continue
            rest = place(units, WINDOW_DEPTH)
            if rest:
                # The statically sized ones alone, else in chains.
                static = [u for u in rest if not u.dynamic]
                if not accept(pool_of(static)):
                    unpooled.append((scope, static))
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


def _plan_within(
    lt: FunctionLifetimes,
    rows: np.ndarray,
    algorithm: str,
    alignment: int,
    min_members: int,
    capacity: int,
    budget: Optional[int],
) -> list[PoolPlan]:
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


__all__ = [
    "FunctionPlan",
    "PoolCapacityError",
    "PoolOverflow",
    "PoolPlan",
    "alloc_alignment",
    "as_pool",
    "plan_function",
]
