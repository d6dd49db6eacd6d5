"""Heap peaks per path: a plan may not raise the heap on any path.

A region that may not run (an ``scf.if`` branch, a loop that may run zero
times: a pooling scope of its own, see ``memplan/Lifetimes/Lifetimes.h``) is
a *node*; the function body is the root, and each node's parent is the node
of the op that holds it. A path through the function takes some nodes and
skips the others, always with their parents. On a path that takes node
``n``, the input's heap reaches at least its largest level over the points
of ``n`` and of its ancestors (counting only the buffers allocated in those
nodes: a buffer allocated in a skipped region does not exist); so a plan
whose heap at every point of ``n`` stays at or below that target never
raises the peak of any path through it. A buffer that outlives the region
it is allocated in (an *escape*: pools never are one, the buffers left
alone may be) exists after it on the paths that took the region only, and
the same on both sides; so each point of the plan must either hold no more
than the input at that point, both without escapes, or no more than the
target with the escapes live there added. Sufficient, not necessary.

Levels are 64-byte blocks (:data:`memplan.lifetimes.peaks.ROUNDING`). With
statically sized buffers they are numbers (numpy over the points); with
dynamic ones they are symbolic (:mod:`memplan.lifetimes.bounds`) and each
point of the plan must be proven at most the target for every size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from memplan import _core
from memplan.lifetimes import bounds as B
from memplan.lifetimes import roles as K


@dataclass(frozen=True)
class HeapItem:
    """A block on the heap over program points ``[start, end)``."""

    start: int
    end: int
    size: B.Bound
    """Its bytes, rounded to the heap's blocks."""
    node: int
    """The node where it is allocated (:class:`PathTree`)."""
    values: Optional[Callable[[np.ndarray], np.ndarray]] = None
    """Its exact bytes at given values of the one dynamic size, where
    ``size`` is only a bound from above for the values past a tail (a pool
    whose layout the run picks among several)."""


class PathTree:
    """The nodes of one function and the node of each of its points."""

    def __init__(self, graph, func_op: int, block_scopes: np.ndarray | None = None):
        g = graph
        self.func_op = func_op
        self.end = int(g.op_end[func_op]) + 1
        scopes = _core.block_scopes(g) if block_scopes is None else block_scopes
        ops = np.arange(func_op + 1, self.end)
        blocks = g.op_block[ops].astype(np.int64) if ops.size else np.zeros(0, np.int64)
        # Node ids: 0 the root, then one per scope block that is not the
        # function's entry, and one per block without a scope (treated as a
        # region that may not run: stricter, never wrong).
        self.parent: list[int] = [-1]
        self.lo: list[int] = [func_op]
        self.hi: list[int] = [self.end - 1]
        node_of_block: dict[int, int] = {}

        def node(block: int) -> int:
            found = node_of_block.get(block)
            if found is not None:
                return found
            parent_op = int(g.block_parent_op[block])
            scope = int(scopes[block])
            if scope >= 0 and scope != block:
                n = node(scope)
            elif parent_op == func_op and scope == block:
                n = 0
            else:
                up = 0 if parent_op == func_op else node(int(g.op_block[parent_op]))
                n = len(self.parent)
                self.parent.append(up)
                self.lo.append(-1)
                self.hi.append(-1)
            node_of_block[block] = n
            return n

        # (return_inverse: without it np.unique imports numpy.ma.)
        uniq, block_index = np.unique(blocks, return_inverse=True)
        mapping = np.array([node(int(b)) for b in uniq], dtype=np.int64)
        self.point_node = np.zeros(self.end - func_op, dtype=np.int64)
        if ops.size:
            self.point_node[1:] = mapping[block_index]
        # Each node's points form the range of its block's ops (nested ones
        # included): from its first op to the end of its last. One pass over
        # the points for all nodes (not one per node: quadratic).
        points = np.arange(self.point_node.size, dtype=np.int64)
        first = np.full(len(self.parent), self.point_node.size, dtype=np.int64)
        last = np.full(len(self.parent), -1, dtype=np.int64)
        np.minimum.at(first, self.point_node, points)
        np.maximum.at(last, self.point_node, points)
        for n in range(1, len(self.parent)):
            found = last[n] >= 0
            self.lo[n] = int(first[n]) + func_op if found else self.end
            self.hi[n] = int(g.op_end[int(last[n]) + func_op]) if found else self.end
        self._ancestors = [self._chain(n) for n in range(len(self.parent))]
        # Region ops that run exactly one of their regions on every execution
        # (exclusive regions, one always entered: scf.if with an else): a
        # path through their node takes one of the regions' nodes.
        self.choices: list[list[list[int]]] = [[] for _ in self.parent]
        one_of = int(K.EXCLUSIVE) | int(K.ONE_RUNS)
        roles = g.op_role[func_op + 1 : self.end]
        for op in np.nonzero((roles & one_of) == one_of)[0] + func_op + 1:
            op = int(op)
            regions = sorted({node(b) for b in self._region_blocks(g, op)})
            if len(regions) >= 2 and all(self.parent[r] == self.node_of(op) for r in regions):
                self.choices[self.node_of(op)].append(regions)

    @staticmethod
    def _region_blocks(g, op: int) -> list[int]:
        """The entry block of each region of ``op``."""
        out = []
        for r in range(int(g.region_begin[op]), int(g.region_begin[op + 1])):
            lo, hi = int(g.region_block_begin[r]), int(g.region_block_begin[r + 1])
            if lo < hi:
                out.append(int(g.region_blocks[lo]))
        return out

    def targets(self, most: list, maximum, minimum) -> list:
        """The target of each node from each node's own largest input level
        ``most`` (numbers or arrays, with their ``maximum`` and ``minimum``):
        its ancestors' levels, and, for every region op on the way that takes
        one of its regions on every path, the smallest of those regions'
        (each with its own such ops inside, recursively)."""
        count = len(self.parent)
        reach = list(most)
        for n in range(count - 1, -1, -1):  # children before their parents
            for regions in self.choices[n]:
                reach[n] = maximum(reach[n], _smallest([reach[r] for r in regions], minimum))
        out = []
        for n in range(count):
            t = most[n]
            for regions in self.choices[n]:
                t = maximum(t, _smallest([reach[r] for r in regions], minimum))
            child, a = n, self.parent[n]
            while a >= 0:
                t = maximum(t, most[a])
                for regions in self.choices[a]:
                    if child not in regions:
                        t = maximum(t, _smallest([reach[r] for r in regions], minimum))
                child, a = a, self.parent[a]
            out.append(t)
        return out

    def _chain(self, n: int) -> frozenset[int]:
        out = set()
        while n >= 0:
            out.add(n)
            n = self.parent[n]
        return frozenset(out)

    def node_of(self, op: int) -> int:
        """The node of program point (op id) ``op``."""
        return int(self.point_node[op - self.func_op])

    def ancestors(self, n: int) -> frozenset[int]:
        """``n`` and the nodes above it."""
        return self._ancestors[n]

    def escape(self, item: HeapItem) -> tuple[int, int]:
        """The part ``[lo, hi)`` of ``item``'s interval past its node's points
        (empty: ``lo >= hi``)."""
        if item.node == 0:
            return item.end, item.end
        return max(item.start, self.hi[item.node] + 1), item.end


class HeapArrays:
    """Items of constant sizes as arrays: the start, end, node and bytes of each
    (:class:`HeapItem`'s fields); their order does not matter to the levels."""

    def __init__(self, start: np.ndarray, end: np.ndarray, node: np.ndarray, size: np.ndarray):
        self.start, self.end, self.node, self.size = start, end, node, size

    @classmethod
    def of(cls, items: Sequence[HeapItem], sizes: Sequence[int]) -> "HeapArrays":
        """``items`` with their constant ``sizes`` (:func:`constant_sizes`)."""
        count = len(items)
        return cls(
            np.fromiter((it.start for it in items), np.int64, count),
            np.fromiter((it.end for it in items), np.int64, count),
            np.fromiter((it.node for it in items), np.int64, count),
            np.array(sizes, dtype=np.int64),
        )

    def __add__(self, other: "HeapArrays") -> "HeapArrays":
        return HeapArrays(
            *(np.concatenate([a, b]) for a, b in zip(self._fields(), other._fields()))
        )

    def take(self, keep: np.ndarray) -> "HeapArrays":
        """The items where ``keep`` holds."""
        return HeapArrays(*(a[keep] for a in self._fields()))

    def total(self) -> int:
        """The sum of the sizes (a Python integer: never wraps)."""
        return sum(self.size.tolist())

    def _fields(self) -> tuple[np.ndarray, ...]:
        return self.start, self.end, self.node, self.size


def _numeric_levels(tree: PathTree, items: HeapArrays, exclude_escapes: bool) -> np.ndarray:
    """Bytes live at each point of the function (relative to its op)."""
    n = tree.end - tree.func_op
    delta = np.zeros(n + 1, dtype=np.int64)
    keep = items.size > 0
    z, start, end = items.size[keep], items.start[keep], items.end[keep]
    s, e = start - tree.func_op, np.minimum(end, tree.end) - tree.func_op
    live = s < e
    np.add.at(delta, s[live], z[live])
    np.subtract.at(delta, e[live], z[live])
    if exclude_escapes:
        # The part of each interval past its node's points (tree.escape):
        # none in the root.
        node = items.node[keep]
        last = np.array(tree.hi, dtype=np.int64)[node]
        lo = np.where(node == 0, end, np.maximum(start, last + 1)) - tree.func_op
        out = lo < e
        np.subtract.at(delta, lo[out], z[out])
        np.add.at(delta, e[out], z[out])
    return np.cumsum(delta)[:n]


def _smallest(values: list, minimum):
    out = values[0]
    for v in values[1:]:
        out = minimum(out, v)
    return out


def _node_targets(tree: PathTree, level_in: np.ndarray) -> np.ndarray:
    """The target of each node (:meth:`PathTree.targets`)."""
    most = np.zeros(len(tree.parent), dtype=np.int64)
    np.maximum.at(most, tree.point_node, level_in)
    return np.array(tree.targets([int(m) for m in most], max, min), dtype=np.int64)


def constant_sizes(items: Sequence[HeapItem]) -> list[Optional[int]]:
    """The bytes of each item where they are one number for every size
    (its size constant, no ``values``), else None."""
    known: dict[int, Optional[int]] = {}  # by id: items share their sizes
    out = []
    for it in items:
        if it.values is not None:
            out.append(None)
            continue
        z = known.get(id(it.size), known)
        if z is known:
            z = known[id(it.size)] = B.constant_value(it.size)
        out.append(z)
    return out


class NumericHeap:
    """The input's levels at each point and each point's target, every size
    constant: the check of :func:`numeric_ok` for any number of plans."""

    def __init__(self, tree: PathTree, before: HeapArrays):
        self.tree = tree
        self.level = _numeric_levels(tree, before, exclude_escapes=True)
        self.target = _node_targets(tree, self.level)[tree.point_node]

    def ok(self, after: HeapArrays) -> bool:
        """Whether the plan ``after`` never raises the heap on any path."""
        level_plan = _numeric_levels(self.tree, after, exclude_escapes=True)
        escapes = _numeric_levels(self.tree, after, exclude_escapes=False) - level_plan
        ok = (level_plan <= self.level) | (level_plan + escapes <= self.target)
        return bool(ok.all())


def numeric_ok(tree: PathTree, before: Sequence[HeapItem], after: Sequence[HeapItem]) -> bool:
    """Whether the plan ``after`` never raises the heap of the input
    ``before`` on any path, every size constant."""
    heap = NumericHeap(tree, HeapArrays.of(before, constant_sizes(before)))
    return heap.ok(HeapArrays.of(after, constant_sizes(after)))


def _key_points(tree: PathTree, items: Sequence[HeapItem]) -> list[int]:
    """Points where a level or a node may change."""
    points = {tree.func_op}
    for it in items:
        points.add(it.start)
        if it.end < tree.end:
            points.add(it.end)
        lo, _ = tree.escape(it)
        if lo < tree.end:
            points.add(lo)
    changes = np.nonzero(np.diff(tree.point_node))[0] + 1 + tree.func_op
    points.update(int(p) for p in changes)
    return sorted(points)


def _all_sums(items: Sequence[HeapItem], env: dict[str, int]) -> Optional[int]:
    """Every sum of every item's size added, at ``env`` (None: a leaf has no
    value there). Sums have no negative part, so each level, target or plan
    bound of the items (sums of one sum per item, or covers of those: their
    parts are at most this total's, part by part) is at most this."""
    return B.total(s for it in items for s in it.size).evaluate(env)


def _sum_of(items: Sequence[HeapItem]) -> B.Sum:
    """The sum of the items' first sums (:func:`memplan.lifetimes.bounds.total`)."""
    return B.total(it.size[0] for it in items)


class _Spans:
    """Items' intervals as arrays, to find the ones live at a point without
    a Python loop over them all."""

    def __init__(self, tree: PathTree, items: Sequence[HeapItem]):
        self.items = list(items)
        count = len(self.items)
        self.start = np.fromiter((it.start for it in self.items), np.int64, count)
        self.end = np.fromiter((it.end for it in self.items), np.int64, count)
        escapes = [tree.escape(it) for it in self.items]
        self.lo = np.fromiter((lo for lo, _ in escapes), np.int64, count)
        self.hi = np.fromiter((hi for _, hi in escapes), np.int64, count)

    def sweep(self, points: Sequence[int]) -> list[tuple[B.Sum, list[HeapItem], B.Sum]]:
        """At each of the ascending ``points``, what :meth:`split` gives, as
        the sum of the live items of one sum and no ``values`` (not
        escapes), the other ones (in their order), and the sum of the
        escapes (the first sum of each): the sums kept as the items come
        and go, not made anew at each point."""
        events: list[tuple[int, int, int, int]] = []  # (point, sign, escape?, item)
        for i, (s, e, lo, hi) in enumerate(
            zip(self.start.tolist(), self.end.tolist(), self.lo.tolist(), self.hi.tolist())
        ):
            lo, hi = max(s, lo), min(e, hi)
            spans = [(s, lo, 0), (lo, hi, 1), (hi, e, 0)] if lo < hi else [(s, e, 0)]
            for a, b, kind in spans:
                if a < b:
                    events += [(a, 1, kind, i), (b, -1, kind, i)]
        events.sort()
        single, escapes = B.Running(), B.Running()
        multi: set[int] = set()
        live: list[HeapItem] = []
        out = []
        k = 0
        for p in points:
            changed = False
            while k < len(events) and events[k][0] <= p:
                _, sign, kind, i = events[k]
                it = self.items[i]
                if kind:
                    escapes.change(it.size[0], sign)
                elif len(it.size) == 1 and it.values is None:
                    single.change(it.size[0], sign)
                elif sign > 0:
                    multi.add(i)
                    changed = True
                else:
                    multi.discard(i)
                    changed = True
                k += 1
            if changed:  # points between changes share one list
                live = [self.items[i] for i in sorted(multi)]
            out.append((single.value(), live, escapes.value()))
        return out

    def split(self, p: int) -> tuple[list[HeapItem], list[HeapItem]]:
        """The items live at ``p`` (in their order): allocated in the node's
        ancestors, and escapes (:meth:`PathTree.escape`)."""
        live = np.flatnonzero((self.start <= p) & (p < self.end))
        out = (self.lo[live] <= p) & (p < self.hi[live])
        return (
            [self.items[i] for i in live[~out].tolist()],
            [self.items[i] for i in live[out].tolist()],
        )


@dataclass
class _Point:
    """One key point of a plan: what the input holds there and what the plan does."""

    point: int
    node: int
    here: B.Sum
    """The input's level (buffers of the node's ancestors)."""
    single: B.Sum
    """The plan's items of one sum live there (escapes aside)."""
    multi: list[HeapItem]
    """The plan's items of several sums (pools) live there."""
    escapes: B.Sum
    """The plan's escapes live there."""
    plans: dict[tuple[int, int], B.Bound] = field(default_factory=dict, repr=False, compare=False)
    """Made plan bounds, shared by the points of one plan: by the ids of
    ``multi`` and ``single`` (points between changes share both objects)."""
    _plan: Optional[B.Bound] = field(default=None, repr=False, compare=False)

    def plan(self) -> B.Bound:
        """A bound of the plan's level without the escapes (made once)."""
        if self._plan is None:
            key = (id(self.multi), id(self.single))
            found = self.plans.get(key)
            if found is None:
                out: B.Bound = self.multi[0].size if self.multi else B.ZERO
                for it in self.multi[1:]:
                    out = B.add(out, it.size, limit=64)
                found = self.plans[key] = tuple(s + self.single for s in out)
            self._plan = found
        return self._plan


NUMERIC_LIMIT = 1 << 62
"""The input's and a plan's bytes summed stay below it for the levels to be
int64 (:class:`NumericHeap`); symbolic otherwise."""


class HeapCheck:
    """Compares plans with the input heap ``before`` of one function."""

    def __init__(self, tree: PathTree, before: Sequence[HeapItem]):
        self.tree = tree
        self.before = list(before)
        self._before_sizes = constant_sizes(self.before)
        self.constant = all(z is not None for z in self._before_sizes)
        self._numeric: Optional[NumericHeap] = None
        self._targets: dict[int, B.Bound] = {}
        self._inputs: Optional[dict[int, B.Bound]] = None
        self._spans: Optional[_Spans] = None
        self._levels: dict[int, B.Sum] = {}
        self._distinct_levels: dict[B.Sum, B.Sum] = {}

    def _level(self, p: int) -> B.Sum:
        """The input's level at ``p`` (its buffers allocated in the node's
        ancestors live there), made once per point for all plans."""
        found = self._levels.get(p)
        if found is None:
            if self._spans is None:
                self._spans = _Spans(self.tree, self.before)
            own_in, _ = self._spans.split(p)
            level = _sum_of(own_in)  # one object per value: points share it
            found = self._levels[p] = self._distinct_levels.setdefault(level, level)
        return found

    def _points(self, after: Sequence[HeapItem]) -> list[_Point]:
        out = []
        points = _key_points(self.tree, self.before + list(after))
        swept = _Spans(self.tree, after).sweep(points)
        plans: dict[tuple[int, int], B.Bound] = {}
        nodes = self.tree.point_node[np.asarray(points, dtype=np.int64) - self.tree.func_op]
        for p, node, (single, multi, escapes) in zip(points, nodes.tolist(), swept):
            out.append(_Point(p, node, self._level(p), single, multi, escapes, plans))
        return out

    def target(self, n: int) -> B.Bound:
        """The input's largest level over the points of ``n`` and its ancestors."""
        if self._inputs is None:
            by_node: dict[int, set[B.Sum]] = {}
            for p in _key_points(self.tree, self.before):
                by_node.setdefault(self.tree.node_of(p), set()).add(self._level(p))
            self._inputs = {k: B.prune(v, limit=1 << 30) for k, v in by_node.items()}
        if n not in self._targets:
            sums = (s for a in self.tree.ancestors(n) for s in self._inputs.get(a, ()))
            self._targets[n] = B.prune(sums, limit=1 << 30)
        return self._targets[n]

    def ok(self, after: Sequence[HeapItem]) -> bool:
        """Whether the plan ``after`` never raises the heap on any path, for
        every value of the dynamic sizes (proven): numerically when every
        size is constant, over the values of a single dynamic size one by
        one up to where bounds take over, by domination otherwise."""
        items = self.before + list(after)
        sizes = constant_sizes(after)
        if self.constant and all(z is not None for z in sizes):
            # int64 levels where no sum can wrap; exact Python integers otherwise.
            if sum(self._before_sizes) + sum(sizes) < NUMERIC_LIMIT:
                if self._numeric is None:
                    before = HeapArrays.of(self.before, self._before_sizes)
                    self._numeric = NumericHeap(self.tree, before)
                return self._numeric.ok(HeapArrays.of(after, sizes))
        leaves = set()
        for it in items:
            leaves |= B.leaves(it.size)
        points = self._points(after)
        if len(leaves) == 1:
            (leaf,) = leaves
            return self._scan(after, points, leaf) is not None
        for pt in points:
            for f in pt.plan():
                if B.sum_dominates(pt.here, f):
                    continue
                if not B.below_max(f + pt.escapes, self.target(pt.node)):
                    return False
        return True

    def _tail(self, points: list[_Point], leaf: str) -> Optional[int]:
        """A value of ``leaf`` past which every point of the plan is proven
        within bounds (at most the input there, or the target with the
        escapes), or None."""
        top = 0
        seen: set = set()
        for pt in points:
            for f in pt.plan():
                key = (pt.node, pt.here, f, pt.escapes)
                if key in seen or B.sum_dominates(pt.here, f):
                    continue
                seen.add(key)
                with_escapes = f + pt.escapes
                pairs = [(pt.here, f)] + [(t, with_escapes) for t in self.target(pt.node)]
                best = None
                for match in (False, True):  # matching atoms costs more: only where needed
                    for x, y in pairs:
                        n = B.tail_from(x, y, leaf, match)
                        if n is not None and (best is None or n < best):
                            best = n
                        if best == 0:
                            break
                    if best is not None and best <= top:
                        break
                if best is None:
                    return None
                top = max(top, best)
        return top

    def _scan(
        self,
        after: Sequence[HeapItem],
        points: list[_Point],
        leaf: str,
        free: Optional[HeapItem] = None,
        limit: int = B.SCAN_LIMIT,
    ) -> Optional[np.ndarray]:
        """With one dynamic size ``leaf``: each point of the plan within
        bounds for every value up to the tail (:meth:`_tail`), evaluated
        exactly, and beyond by bounds. None when some value is not; else,
        for ``free`` (a pool among the plan's items, its size left out),
        the most it may hold at each value up to the tail (an empty array
        without one)."""
        top = self._tail(points, leaf)
        if top is None or top > limit:
            return None
        # Every level grows with the size: int64 where the largest fits.
        at_top = {leaf: top}
        biggest = _all_sums(self.before + list(after), at_top)
        if biggest is None or biggest >= 1 << 60:
            nodes = {pt.node for pt in points}
            biggest = max(
                [B.evaluate(self.target(n), at_top) or 0 for n in nodes]
                + [
                    (B.evaluate(pt.plan(), at_top) or 0) + (pt.escapes.evaluate(at_top) or 0)
                    for pt in points
                ]
                + [0]
            )
        values = B.Values(leaf, top, exact=biggest >= 1 << 60)
        slack = None if free is None else values.full(1 << 62)
        # Points that hold the same objects give the same vectors: once each.
        distinct = {
            (pt.node, id(pt.here), id(pt.single), id(pt.multi), id(pt.escapes)): pt for pt in points
        }
        most = [values.full(0) for _ in self.tree.parent]
        for node, here_sum in {
            (pt.node, id(pt.here)): (pt.node, pt.here) for pt in points
        }.values():
            most[node] = np.maximum(most[node], values.sum(here_sum))
        targets = self.tree.targets(most, np.maximum, np.minimum)
        vectors: dict[int, np.ndarray] = {}
        for pt in distinct.values():
            own = values.sum(pt.single)
            holds_free = False
            for it in pt.multi:
                if it is free:
                    holds_free = True
                    continue
                if id(it) not in vectors:
                    vectors[id(it)] = (
                        it.values(values.x) if it.values is not None else values.bound(it.size)
                    )
                own = own + vectors[id(it)]
            here = values.sum(pt.here)
            room = np.maximum(here - own, targets[pt.node] - own - values.sum(pt.escapes))
            if holds_free:
                slack = np.minimum(slack, room)
            elif (room < 0).any():
                return None
        return slack if slack is not None else np.zeros(0, dtype=np.int64)

    def room(self, after: Sequence[HeapItem], free: HeapItem, leaf: str) -> Optional[np.ndarray]:
        """For a pool ``free`` among ``after`` (its size a bound from above
        for the values of the one dynamic size ``leaf`` past a tail): the
        most bytes it may hold at each value ``0..tail`` so that the plan is
        within bounds on every path (past the tail, its size bound is
        proven), or None when the plan is not within bounds whatever it
        holds."""
        return self._scan(after, self._points(after), leaf, free)


def plan_ok(tree: PathTree, before: Sequence[HeapItem], after: Sequence[HeapItem]) -> bool:
    """Whether ``after`` never raises the heap of ``before`` on any path
    (:meth:`HeapCheck.ok`)."""
    return HeapCheck(tree, before).ok(after)


__all__ = [
    "NUMERIC_LIMIT",
    "HeapArrays",
    "HeapCheck",
    "HeapItem",
    "NumericHeap",
    "PathTree",
    "constant_sizes",
    "numeric_ok",
    "plan_ok",
]
