"""Buffer lifetime analysis: live intervals, aliases and pooling eligibility.

:func:`analyze_function` takes an extracted graph and a function op id and
returns a :class:`FunctionLifetimes` of plain numpy arrays, one entry per
allocation of the function (nested ones included): an op whose memory
effects allocate its one result, a memref, on the heap (``memref.alloc``) or
in the automatic allocation scope (``memref.alloca``).
It never touches the IR, so other passes (buffer reuse, transient storage)
reuse it as is.

Program points are the graph's pre-order op ids. A buffer is live over
``[start, end)``: from its allocation to one past the last op, lifted to the
allocation's block, that uses it or any alias of it (views, casts,
``to_tensor``, values carried through ``scf`` regions). A use inside a region
keeps the buffer live across the whole region op, so a buffer used in a loop
is live for the entire loop, and the two branches of an ``scf.if`` have
disjoint intervals. A buffer that cannot be pooled stays live until its
dealloc (or the end of its block): that is when its memory really returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from mlir import ir

from memplan import _core
from memplan.ir.graph import (
    Graph,
    extract_graph,
    function_ids,
    qualified_function_name,
    value_namer,
)
from memplan.ir.parse import location_prefix
from memplan.lifetimes import reasons as R
from memplan.lifetimes import roles as K
from memplan.lifetimes.branches import BranchGroup, find_branch_groups
from memplan.lifetimes.sizes import (
    INDEX_MAX,
    canonical_size_value,
    dynamic_size_values,
    element_bytes,
    element_reason,
    hoistable_slice,
    size_expression,
    static_bytes,
)


@dataclass(frozen=True)
class Allocation:
    """One allocation of a function, as the report shows it."""

    index: int
    """Row in the :class:`FunctionLifetimes` arrays."""
    op: int
    """Graph op id of the allocation."""
    kind: str
    """``alloc`` or ``alloca``."""
    name: str
    """SSA name (``%alloc_0``) or ``%v<id>`` without an AsmState."""
    location: str
    """``file:line:col`` of the allocation."""
    type: str
    bytes: Optional[int]
    """Static byte size; None when dynamic."""
    size: str
    """Byte size as text: a number, or an expression over the dynamic sizes."""
    start: int
    """First live program point, relative to the function op."""
    end: int
    """One past the last live program point, relative to the function op."""
    reason: Optional[str]
    """Why it is not pooled (the reason that takes precedence); None if eligible."""
    reasons: tuple[str, ...]
    """Every reason that applies."""
    group: Optional[int] = None
    """Index of its branch group in ``FunctionLifetimes.groups``, if any."""

    @property
    def eligible(self) -> bool:
        """The allocation can be pooled (no reason against it)."""
        return self.reason is None


@dataclass
class FunctionLifetimes:
    """Lifetimes of every allocation of one function, as parallel arrays."""

    graph: Graph
    func_op: int
    name: str
    op: np.ndarray
    """Op id of each allocation (int32, ascending)."""
    value: np.ndarray
    """Its result value id."""
    start: np.ndarray
    """Live interval start (global pre-order op id)."""
    end: np.ndarray
    """Live interval end, exclusive."""
    last_use: np.ndarray
    """Last live op id before any extension to the dealloc."""
    dealloc: np.ndarray
    """The ``memref.dealloc`` of the allocation in its block, or -1."""
    scope: np.ndarray
    """The block its pool lives in, or -1: the function entry or a parallel
    body, hoisting out of regions that run on every execution of their op
    (an scf.if branch or a loop that may not run is a scope of its own)."""
    hoist_scope: np.ndarray
    """The block it hoists to through every sequential region (function
    entry or parallel body), or -1: where caller-provided storage holds it."""
    reasons: np.ndarray
    """Bit mask over :data:`memplan.lifetimes.reasons.REASONS`; 0 = eligible."""
    bytes: np.ndarray
    """Static byte size (int64), -1 when dynamic."""
    is_alloca: np.ndarray
    """True for rows allocated in the automatic allocation scope (``memref.alloca``)."""
    dynamic_slices: dict[int, list[int]] = field(default_factory=dict)
    """For eligible dynamic allocations: the ops to hoist before the pool."""
    size_values: dict[int, list[int]] = field(default_factory=dict)
    """For eligible dynamic allocations: the value of each dynamic size, as
    the pool computes it (:func:`~memplan.lifetimes.sizes.canonical_size_value`
    of the allocation's operand)."""
    groups: list[BranchGroup] = field(default_factory=list)
    """Branch groups: allocations of exclusive branches pooled as one buffer."""
    seg_begin: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int32))
    """Content segments, CSR over rows: row ``i`` needs its bytes over
    ``[seg_start[j], seg_end[j])`` for ``j`` in ``seg_begin[i]:seg_begin[i+1]``
    (see :meth:`segments`)."""
    seg_start: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    seg_end: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    def segments(self, i: int) -> list[tuple[int, int]]:
        """Where row ``i``'s contents are needed, as ``[start, end)`` program
        points in order: from its first read or write to the last access
        before the next op that overwrites the whole buffer without reading
        it, and so on (a buffer whose uses are not all understood: one
        segment, from its first access to the end of its interval). Empty
        for a buffer that is never read or written."""
        lo, hi = int(self.seg_begin[i]), int(self.seg_begin[i + 1])
        return list(zip(self.seg_start[lo:hi].tolist(), self.seg_end[lo:hi].tolist()))

    def group_of(self) -> np.ndarray:
        """Group index of each row, -1 outside any group."""
        out = np.full(len(self.op), -1, dtype=np.int32)
        for k, grp in enumerate(self.groups):
            out[list(grp.rows)] = k
        return out

    def items(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What a pool packs for ``rows``: one item per row, except one per branch
        group (sized by its largest member).

        Returns ``(start, end, bytes, item)`` where the first three describe the
        items and ``item[j]`` is the item of ``rows[j]``.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if not self.groups:
            return (
                self.start[rows].astype(np.int64),
                self.end[rows].astype(np.int64),
                self.bytes[rows].astype(np.int64),
                np.arange(len(rows)),
            )
        group = self.group_of()[rows]
        # Rows outside groups are their own key; a group's key is its first row.
        first_row = np.array([min(g.rows) for g in self.groups], dtype=np.int64)
        keys = np.where(group < 0, rows, first_row[np.maximum(group, 0)])
        uniq, item = np.unique(keys, return_inverse=True)
        size = np.zeros(len(uniq), dtype=np.int64)
        np.maximum.at(size, item, self.bytes[rows].astype(np.int64))
        return self.start[uniq].astype(np.int64), self.end[uniq].astype(np.int64), size, item

    @property
    def num_points(self) -> int:
        """Program points of the function: its op count."""
        return int(self.graph.op_end[self.func_op]) - self.func_op + 1

    @property
    def eligible(self) -> np.ndarray:
        """Boolean mask of poolable allocations."""
        return self.reasons == 0

    def __len__(self) -> int:
        return len(self.op)

    @property
    def total_alloc_bytes(self) -> int:
        """Sum of the static sizes of all allocations (allocas included)."""
        b = self.bytes
        return sum(int(x) for x in b[b >= 0])  # exact: an int64 sum can wrap

    @property
    def peak_live_bytes(self) -> int:
        """Most bytes of statically sized allocations live at one program point."""
        start, end, size, _ = self.items(np.nonzero(self.bytes >= 0)[0])
        return _peak(start, end, size)

    @property
    def eligible_peak_bytes(self) -> int:
        """Peak live bytes of the poolable static allocations: a pool's lower bound."""
        start, end, size, _ = self.items(np.nonzero(self.eligible & (self.bytes >= 0))[0])
        return _peak(start, end, size)

    @property
    def num_dynamic(self) -> int:
        """How many allocations have a dynamic size."""
        return int((self.bytes < 0).sum())

    def reason(self, i: int) -> Optional[str]:
        """The primary reason row ``i`` cannot be pooled, or ``None``."""
        return R.primary(int(self.reasons[i]))

    def reason_detail(self, i: int) -> Optional[str]:
        """The primary reason of row ``i``, with the element type or size
        that caused it where the name alone does not say."""
        reason = self.reason(i)
        info = self.graph.types[self.graph.value_type[self.value[i]]]
        if reason == "unsupported-element-type":
            return f"{reason} ({element_reason(info)})"
        if reason == "async-not-awaited":
            return (
                f"{reason} (used by asynchronous work that no op of its block waits for: its token "
                "is not awaited there, or escapes where memplan cannot follow it)"
            )
        if reason == "size-overflow":
            return (
                f"{reason} ({info.text} needs {static_bytes(info)} bytes, "
                "more than a 64-bit index holds)"
            )
        return reason

    def reason_counts(self) -> dict[str, int]:
        """Rejections per primary reason (each allocation counted once)."""
        counts: dict[str, int] = {}
        masks = self.reasons[self.reasons != 0]
        if masks.size:
            lowest = masks & -masks
            for bit_value, n in zip(*np.unique(lowest, return_counts=True)):
                name = R.REASONS[int(bit_value).bit_length() - 1]
                counts[name] = int(n)
        return {r: counts[r] for r in R.REASONS if r in counts}

    def allocations(self, names: bool = True) -> list[Allocation]:
        """One record per allocation. ``names`` prints SSA names (needs the live IR)."""
        g = self.graph
        namer = value_namer(g, self.func_op) if names else (lambda v: f"%v{v}")
        group = self.group_of()
        out = []
        for i in range(len(self.op)):
            op = int(self.op[i])
            mask = int(self.reasons[i])
            b = int(self.bytes[i])
            out.append(
                Allocation(
                    index=i,
                    op=op,
                    kind="alloca" if self.is_alloca[i] else "alloc",
                    name=namer(int(self.value[i])),
                    location=location_prefix(g.location(op)),
                    type=g.types[g.value_type[self.value[i]]].text,
                    bytes=b if b >= 0 else None,
                    size=size_expression(g, op, namer),
                    start=int(self.start[i]) - self.func_op,
                    end=int(self.end[i]) - self.func_op,
                    reason=R.primary(mask),
                    reasons=tuple(R.names(mask)),
                    group=int(group[i]) if group[i] >= 0 else None,
                )
            )
        return out


def peak_live(start: np.ndarray, end: np.ndarray, size: np.ndarray) -> int:
    """Most bytes live at one point over intervals [start, end) (negative sizes skipped).

    Never below the largest buffer: a buffer with an empty interval still
    needs its bytes. O(n log n) with numpy.
    """
    keep = np.asarray(size) >= 0
    start, end, size = (np.asarray(a)[keep].astype(np.int64) for a in (start, end, size))
    if not size.size:
        return 0
    # Events sorted by point; at one point ends (key 2p) come before starts (2p+1).
    keys = np.concatenate([2 * end, 2 * start + 1])
    deltas = np.concatenate([-size, size])
    order = np.argsort(keys, kind="stable")
    return int(max(np.cumsum(deltas[order]).max(), size.max()))


_peak = peak_live


class _TypeTables:
    """Per-type arrays for a graph (types are interned, so these are small)."""

    def __init__(self, graph: Graph):
        types = graph.types
        exact = [static_bytes(t) for t in types]
        #: Bytes of each statically shaped memref type at its data-layout size;
        #: -1 when dynamic, not modeled, or more than an ``index`` holds.
        self.static_bytes = np.array(
            [-1 if b is None or b > INDEX_MAX else b for b in exact], dtype=np.int64
        )
        self.overflow = np.array([b is not None and b > INDEX_MAX for b in exact], dtype=bool)
        self.elem_ok = np.array([element_bytes(t) > 0 for t in types], dtype=bool)


#: The columns of ``_core.analyze_lifetimes`` that :class:`FunctionLifetimes`
#: keeps under their own name (after the corrections
#: :meth:`LifetimeAnalysis.function` makes to them in place).
_KERNEL_COLUMNS = (
    "start",
    "end",
    "last_use",
    "dealloc",
    "scope",
    "hoist_scope",
    "seg_begin",
    "seg_start",
    "seg_end",
)


class LifetimeAnalysis:
    """The analysis of one extracted graph; call :meth:`function` per func op."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.types = _TypeTables(graph)
        # Allocations from their memory effects (analysis/OpRoles.h): an op that
        # allocates its one result, a memref, on the heap or in the automatic
        # allocation scope.
        kind = graph.op_role & 0xFF
        self.is_alloc = ((kind == K.ALLOC) | (kind == K.ALLOCA)) & (graph.num_results == 1)
        results = graph.result_begin[np.nonzero(self.is_alloc)[0]]
        memref_types = np.array([t.is_memref for t in graph.types], dtype=bool)
        self.is_alloc[self.is_alloc] = memref_types[graph.value_type[results]]
        self.is_alloca_op = kind == K.ALLOCA

    def function(self, func_op: int) -> FunctionLifetimes:
        """Lifetimes of the allocations in ``func_op`` (a ``func.func`` op id)."""
        g = self.graph
        lo, hi = func_op, int(g.op_end[func_op]) + 1
        ops = (np.nonzero(self.is_alloc[lo:hi])[0] + lo).astype(np.int32)
        roots = np.ascontiguousarray(g.result_begin[ops], dtype=np.int32)
        t = _core.analyze_lifetimes(g, roots)
        value_types = g.value_type[roots]
        size = self.types.static_bytes[value_types]
        reasons = t["reasons"].astype(np.int64)
        is_alloca = self.is_alloca_op[ops]
        bad_elem = ~self.types.elem_ok[value_types] & ~is_alloca
        reasons[bad_elem] |= R.bit("unsupported-element-type")
        reasons[self.types.overflow[value_types]] |= R.bit("size-overflow")
        slices: dict[int, list[int]] = {}
        size_values: dict[int, list[int]] = {}
        for i in np.nonzero((size < 0) & (reasons == 0))[0]:
            # A size read as a dimension of another allocation is that
            # allocation's size operand (hoistable where the dimension is not).
            values = [canonical_size_value(g, v) for v in dynamic_size_values(g, int(ops[i]))]
            sl = hoistable_slice(g, int(t["scope"][i]), values)
            if sl is None:
                reasons[i] |= R.bit("dynamic-size-not-hoistable")
            else:
                slices[int(i)] = sl
                size_values[int(i)] = values
        start, end, last_use = t["start"], t["end"], t["last_use"]
        late = (reasons >= R.bit("unsupported-element-type")) & (t["dealloc"] >= 0)
        if late.any():  # rejected here: live until freed, as the kernel does
            end[late] = np.maximum(end[late], t["dealloc"][late] + 1)
        groups = find_branch_groups(g, ops, reasons, size, t["scope"])
        scope = t["scope"]
        for grp in groups:
            rows = list(grp.rows)
            reasons[rows] = 0
            scope[rows] = grp.scope
            start[rows] = grp.start
            end[rows] = grp.end
            last_use[rows] = grp.end - 1
        return FunctionLifetimes(
            graph=g,
            func_op=func_op,
            name=qualified_function_name(g, func_op),
            op=ops,
            value=roots,
            reasons=reasons,
            bytes=size,
            is_alloca=is_alloca,
            dynamic_slices=slices,
            size_values=size_values,
            groups=groups,
            **{column: t[column] for column in _KERNEL_COLUMNS},
        )


def analyze_function(graph: Graph, func_op: int) -> FunctionLifetimes:
    """Lifetimes of the allocations of function op ``func_op`` of ``graph``."""
    return LifetimeAnalysis(graph).function(func_op)


def analyze_module(module: ir.Operation | ir.Module) -> list[FunctionLifetimes]:
    """Extract ``module`` and analyze each of its ``func.func`` ops, those of
    nested modules included."""
    graph = extract_graph(module)
    analysis = LifetimeAnalysis(graph)
    return [analysis.function(f) for f in function_ids(graph, nested=True)]


__all__ = [
    "Allocation",
    "FunctionLifetimes",
    "LifetimeAnalysis",
    "analyze_function",
    "analyze_module",
]
