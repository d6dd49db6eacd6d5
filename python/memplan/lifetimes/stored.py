"""What a function stores at its heap peak that it need not, and the floor in any order.

Both read :class:`~memplan.lifetimes.analysis.FunctionLifetimes` and the
graph's buffer accesses (``Graph.operand_access``, the buffer roles); they
never touch the IR. The buffers are the function's heap allocations with the
values that alias them (views and casts): on pooled IR a pool is one buffer.

* :class:`BlockFloors`, :func:`floor_at`: the floor of the heap at an op in
  any op order: the bytes of the buffers the op touches (its operands and
  results), plus the buffers whose contents must cross it whatever the
  order: written by an op it depends on and read by an op that depends on
  it (dependences through the contents of buffers, read after write: a
  rewrite may rename everything else). The highest floor of a block is a
  peak no order of its ops goes below.
* :func:`stored_at_peak`: findings at the peak, each a buffer live there that
  a rewrite could leave out, with the bytes that would save there. Each
  kind of finding is one function registered with :func:`finder`; this
  module registers ``cheap to recompute`` (contents written from constants
  and scalars, then only read: computing them again before their next read
  frees the buffer at the peak; ``memplan-recompute-cheap-values`` does it at
  tensor level) and ``permuted copy`` (contents written by a transpose or a
  broadcast of another buffer, then only read: its readers could read the
  source through their indexing maps; ``memplan-fold-transposes`` does it at
  tensor level) and ``subset copy`` (contents read last by a copy into a view
  of another buffer live at the peak: a pad, concat or insert_slice; its
  producers could write into that view, which nothing reads while they run,
  and the heap peak drops by the bytes named;
  ``memplan-eliminate-subset-copies`` does it at tensor level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from memplan import _core
from memplan.ir.graph import entry_block
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.contents import PeakSite, Site, _site, peak_site
from memplan.lifetimes.peaks import ROUNDING
from memplan.lifetimes.subset_copies import subset_copies_at

K = _core.LifetimeRole
_READ, _WRITE, _FULL = 1, 2, 4
#: Roles through which a buffer's value flows to another value of it.
_ALIASING = (int(K.ALIAS),)
#: Roles that only access a buffer or free it.
_ACCESSING = (int(K.ACCESS), int(K.STORE), int(K.DEALLOC))


def _blocks(nbytes: int) -> int:
    return -(-int(nbytes) // ROUNDING) * ROUNDING


@dataclass
class Buffer:
    """A heap allocation (a row) or a memref argument, with its aliases and accesses."""

    row: int
    """Row of the FunctionLifetimes arrays; -1 for an argument."""
    bytes: int
    """Heap bytes (64-byte blocks); 0 for an argument or a dynamic size."""
    values: set[int] = field(default_factory=set)
    accesses: list[tuple[int, int]] = field(default_factory=list)
    """(op, access bits) in program order."""
    understood: bool = True
    """Every use is an access, a free or an alias the closure follows."""


class BufferAccesses:
    """The buffers of one function and what each op does with them."""

    def __init__(self, lt: FunctionLifetimes):
        self.lt = lt
        g = self.graph = lt.graph
        self.kind = g.op_role & 0xFF
        self.memref = np.array([t.is_memref for t in g.types], dtype=bool)
        self.buffers: list[Buffer] = []
        self.of_value: dict[int, int] = {}
        heap = ~lt.is_alloca & (lt.bytes > 0)
        for r in range(len(lt)):
            self._add(Buffer(r, _blocks(lt.bytes[r]) if heap[r] else 0), int(lt.value[r]))
        block = entry_block(g, lt.func_op)
        begin = int(g.block_arg_begin[block])
        for v in range(begin, begin + int(g.block_num_args[block])):
            if self.memref[g.value_type[v]]:
                self._add(Buffer(-1, 0), v)

    def _add(self, buffer: Buffer, root: int) -> None:
        g = self.graph
        index = len(self.buffers)
        work = [root]
        touches: dict[int, int] = {}
        while work:
            v = work.pop()
            if v in buffer.values:
                continue
            buffer.values.add(v)
            self.of_value.setdefault(v, index)
            for u in range(int(g.use_begin[v]), int(g.use_begin[v + 1])):
                op, k = int(g.use_op[u]), int(g.use_operand[u])
                kind = int(self.kind[op])
                if kind in _ALIASING or int(g.view_source[op]) == k:
                    first = int(g.result_begin[op])
                    work += [
                        r
                        for r in range(first, first + int(g.num_results[op]))
                        if self.memref[g.value_type[r]]
                    ]
                elif kind not in _ACCESSING:
                    buffer.understood = False
                if kind != int(K.DEALLOC):
                    slot = int(g.operand_begin[op]) + k
                    touches[op] = touches.get(op, 0) | int(g.operand_access[slot])
        buffer.accesses = sorted(touches.items())
        self.buffers.append(buffer)

    def touched_by(self, op: int) -> set[int]:
        """Buffers an op or an op nested in it uses."""
        g = self.graph
        out = set()
        for o in range(op, int(g.op_end[op]) + 1):
            for s in range(int(g.operand_begin[o]), int(g.operand_begin[o + 1])):
                b = self.of_value.get(int(g.operands[s]))
                if b is not None:
                    out.add(b)
            first = int(g.result_begin[o])
            for r in range(first, first + int(g.num_results[o])):
                b = self.of_value.get(r)
                if b is not None:
                    out.add(b)
        return out


@dataclass(frozen=True)
class Floor:
    """The floor of the heap at one op, in any op order."""

    at: Site
    touched: tuple[int, ...]
    """Rows the op touches."""
    crossing: tuple[int, ...]
    """Rows whose contents must cross it."""
    touched_bytes: int
    crossing_bytes: int

    @property
    def bytes(self) -> int:
        return self.touched_bytes + self.crossing_bytes


def _block_ops(g, block: int) -> list[int]:
    """The ops of ``block`` in order."""
    ops = []
    o = int(g.block_first_op[block])
    while 0 <= o < g.num_ops and int(g.op_block[o]) == block:
        ops.append(o)
        o = int(g.op_end[o]) + 1
    return ops


def _bits(mask: int, n: int) -> np.ndarray:
    """A Python int's low ``n`` bits as a bool array."""
    raw = np.frombuffer(mask.to_bytes((n + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n].astype(bool)


class BlockFloors:
    """The floor of the heap at every op of one block, in any order of its
    ops that keeps the dataflow through buffer contents (a write, then the
    reads of what it wrote; a partial write after the write it keeps).

    At an op, the buffers it (or an op nested in it) touches must be live,
    and so must every buffer written by an op it depends on and read by an
    op that depends on it: whatever the order, those contents cross it.
    Dependences are sets of ops as bits of Python ints, one per op."""

    def __init__(
        self, lt: FunctionLifetimes, block: int, accesses: Optional[BufferAccesses] = None
    ):
        acc = self.accesses = accesses or BufferAccesses(lt)
        g = lt.graph
        self.lt = lt
        self.ops = _block_ops(g, block)
        index = {o: i for i, o in enumerate(self.ops)}
        n = len(self.ops)
        preds: list[set[int]] = [set() for _ in range(n)]
        pairs: list[list[tuple[int, int]]] = []
        for buffer in acc.buffers:
            mine = []
            writer = -1
            for o, bits in buffer.accesses:
                at = index.get(g.ancestor_in_block(block, o), -1)
                if at < 0:
                    continue
                if bits & _READ and 0 <= writer != at:
                    preds[at].add(writer)
                    mine.append((writer, at))
                if bits & _WRITE:
                    if not bits & _FULL and 0 <= writer != at:  # keeps the rest
                        preds[at].add(writer)
                    writer = at
            pairs.append(mine)
        succs: list[set[int]] = [set() for _ in range(n)]
        for i, ps in enumerate(preds):
            for p in ps:
                succs[p].add(i)
        before = [0] * n
        for i in range(n):
            m = 0
            for p in preds[i]:
                m |= before[p] | (1 << p)
            before[i] = m
        after = [0] * n
        for i in range(n - 1, -1, -1):
            m = 0
            for s in succs[i]:
                m |= after[s] | (1 << s)
            after[i] = m
        self.touched = [acc.touched_by(o) for o in self.ops]
        size = np.array([b.bytes for b in acc.buffers], dtype=np.int64)
        self.touched_bytes = np.array(
            [int(size[list(t)].sum()) if t else 0 for t in self.touched], dtype=np.int64
        )
        self.crossing_bytes = np.zeros(n, dtype=np.int64)
        self._crossed: dict[int, np.ndarray] = {}
        for b, mine in enumerate(pairs):
            if size[b] <= 0 or not mine:
                continue
            crossed = 0
            for w, r in mine:
                crossed |= after[w] & before[r]
            if not crossed:
                continue
            mask = _bits(crossed, n)
            for i in np.nonzero(mask)[0].tolist():
                if b in self.touched[i]:
                    mask[i] = False
            self._crossed[b] = mask
            self.crossing_bytes += np.where(mask, size[b], 0)

    def at(self, i: int) -> Floor:
        """The floor at the ``i``-th op of the block."""
        acc = self.accesses
        crossing = [b for b, mask in self._crossed.items() if mask[i]]
        rows = lambda bs: tuple(sorted(acc.buffers[b].row for b in bs if acc.buffers[b].bytes > 0))  # noqa: E731
        return Floor(
            _site(self.lt, self.ops[i]),
            rows(self.touched[i]),
            rows(crossing),
            int(self.touched_bytes[i]),
            int(self.crossing_bytes[i]),
        )

    def highest(self) -> Floor:
        """The highest floor of the block: no order of its ops keeps the
        heap below it."""
        total = self.touched_bytes + self.crossing_bytes
        kind = self.accesses.kind
        allocating = np.array(
            [int(kind[o]) in (int(K.ALLOC), int(K.ALLOCA)) for o in self.ops], dtype=bool
        )
        # Among the highest, an op that accesses memory rather than the
        # allocation before it.
        return self.at(int(np.lexsort((allocating, -total))[0]))


def floor_at(lt: FunctionLifetimes, op: int, accesses: Optional[BufferAccesses] = None) -> Floor:
    """The floor of the heap at ``op`` (a global op id of ``lt``'s function)
    in any order of the ops of its block that keeps the dataflow through
    buffer contents."""
    floors = BlockFloors(lt, int(lt.graph.op_block[op]), accesses)
    return floors.at(floors.ops.index(op))


def op_at_peak(lt: FunctionLifetimes, point: int, accesses: Optional[BufferAccesses] = None) -> int:
    """The op the heap peaks for: the first op from ``point`` (a global op
    id; the peak's point is usually the allocation that reaches it) that
    reads or writes a buffer, in the block of ``point``; ``point`` itself
    when none does."""
    acc = accesses or BufferAccesses(lt)
    g = lt.graph
    block = int(g.op_block[point])
    first_access: dict[int, int] = {}
    for buffer in acc.buffers:
        for o, bits in buffer.accesses:
            at = g.ancestor_in_block(block, o)
            if at >= point and bits & (_READ | _WRITE):
                first_access[at] = 1
    return min(first_access, default=point)


@dataclass(frozen=True)
class Stored:
    """A buffer live at the peak that a rewrite could leave out there."""

    row: int
    kind: str
    """What would leave it out: ``cheap to recompute``, ..."""
    saves: int
    """Heap bytes the rewrite would save at the peak."""
    why: str
    source: Site
    """The op that computed what it holds (the copy, the fill, ...)."""


@dataclass(frozen=True)
class PeakContext:
    """What a finder sees: the function, its peak, its buffers."""

    lt: FunctionLifetimes
    peak: PeakSite
    op: int
    """Global op id of the op at the peak (:func:`op_at_peak`)."""
    accesses: BufferAccesses

    def live_buffers(self) -> list[int]:
        """Buffers (indices into ``accesses.buffers``) live at the peak."""
        acc = self.accesses
        rows = set(self.peak.live)
        return [b for b, buffer in enumerate(acc.buffers) if buffer.row in rows]


Finder = Callable[[PeakContext], list[Stored]]
#: Kind -> finder, in registration order; add one with :func:`finder`.
FINDERS: dict[str, Finder] = {}


def finder(kind: str) -> Callable[[Finder], Finder]:
    """Registers a function that finds buffers of ``kind`` stored at the
    peak (``PeakContext -> list[Stored]``): the report prints what it finds
    under that kind."""

    def register(fn: Finder) -> Finder:
        FINDERS[kind] = fn
        return fn

    return register


def stored_at_peak(
    lt: FunctionLifetimes, accesses: Optional[BufferAccesses] = None
) -> list[Stored]:
    """Every finder's findings at the function's heap peak, most bytes saved first."""
    peak = peak_site(lt)
    if peak is None:
        return []
    acc = accesses or BufferAccesses(lt)
    ctx = PeakContext(lt, peak, op_at_peak(lt, peak.at.point + lt.func_op, acc), acc)
    out = [s for fn in FINDERS.values() for s in fn(ctx)]
    return sorted(out, key=lambda s: -s.saves)


def _constant_memory(acc: BufferAccesses, v: int) -> bool:
    """A memref defined by an op without operands, effects or regions that
    does not allocate (``memref.get_global``)."""
    g = acc.graph
    op = int(g.value_op[v])
    return (
        op >= 0
        and int(g.operand_begin[op + 1]) == int(g.operand_begin[op])
        and bool(g.op_purity[op] & _core.OpPurity.EFFECT_FREE)
        and int(acc.kind[op]) not in (int(K.ALLOC), int(K.ALLOCA))
    )


def _reads_only_constants(acc: BufferAccesses, writer: int, buffer: Buffer) -> bool:
    """Whether ``writer`` (and the ops nested in it) reads nothing but
    scalars, constant memory and, never, the buffer it writes."""
    g = acc.graph
    end = int(g.op_end[writer])
    for o in range(writer, end + 1):
        for s in range(int(g.operand_begin[o]), int(g.operand_begin[o + 1])):
            v = int(g.operands[s])
            if not acc.memref[g.value_type[v]]:
                continue
            if v in buffer.values:
                if int(g.operand_access[s]) & _READ:
                    return False
                continue
            defined_inside = writer < int(g.value_op[v]) <= end if g.value_op[v] >= 0 else False
            if not defined_inside and not _constant_memory(acc, v):
                return False
    return True


@finder("cheap to recompute")
def cheap_to_recompute(ctx: PeakContext) -> list[Stored]:
    """Buffers live at the peak, not touched by the op there, whose contents
    were written whole by an op reading only constants and scalars and only
    read since: computed again before their next read, they would not be
    held at the peak."""
    lt, acc, op = ctx.lt, ctx.accesses, ctx.op
    g = lt.graph
    touched = acc.touched_by(op)
    out = []
    for b in ctx.live_buffers():
        buffer = acc.buffers[b]
        if b in touched or not buffer.understood or buffer.bytes <= 0:
            continue
        segment = next(((s, e) for s, e in lt.segments(buffer.row) if s <= op < e), None)
        if segment is None:
            continue
        start = segment[0]
        bits = dict(buffer.accesses)
        if not bits.get(start, 0) & _FULL or bits[start] & _READ:
            continue
        between = [
            (o, x)
            for o, x in buffer.accesses
            if start < o < op and not start <= o <= g.op_end[start]
        ]
        if any(x & _WRITE for _, x in between):
            continue
        if not _reads_only_constants(acc, start, buffer):
            continue
        nxt = next((o for o, _ in buffer.accesses if o > g.op_end[op]), None)
        if nxt is None:
            continue
        source = _site(lt, start)
        out.append(
            Stored(
                buffer.row,
                "cheap to recompute",
                buffer.bytes,
                f"written whole by {source.op} ({source.location}) from constants and scalars, "
                f"read next by {_site(lt, nxt).op} ({_site(lt, nxt).location})",
                source,
            )
        )
    return out


def _layout_source(acc: BufferAccesses, copy: int) -> Optional[int]:
    """The memref value that layout copy ``copy`` reads (its only operand
    read and not written), or None."""
    g = acc.graph
    for s in range(int(g.operand_begin[copy]), int(g.operand_begin[copy + 1])):
        v = int(g.operands[s])
        if int(g.operand_access[s]) == _READ and acc.memref[g.value_type[v]]:
            return v
    return None


@finder("permuted copy")
def permuted_copies(ctx: PeakContext) -> list[Stored]:
    """Buffers live at the peak that only transposes and broadcasts write
    (``_core.OpInterface.PERMUTED_COPY``, from LinalgOp: plain copies are not
    listed; one such copy per layer where an importer shares the
    destination), every other use reading them through an index: a
    structured op (``STRUCTURED``: LinalgOp) or a load (``READS_ONLY``).
    Those readers could read each copy's source through their indexing maps
    or indices instead, and the buffer would not be stored at all; a copy
    that a memref.copy (an insert_slice of the tensor program) reads is not
    listed. That saves its bytes where the source is held at the peak
    anyway (a function argument, constant memory, a buffer live there), else
    what the copy holds beyond its source, which would then have to live
    on."""
    lt, acc, op = ctx.lt, ctx.accesses, ctx.op
    g = lt.graph
    permuted = int(_core.OpInterface.PERMUTED_COPY)
    structured = int(_core.OpInterface.STRUCTURED)
    reads_only = int(_core.OpPurity.READS_ONLY)

    def reads_through_an_index(o: int) -> bool:
        """A reader that could take the source with the copy's map composed
        in: a structured op (its indexing maps) or a load (its indices)."""
        return bool(int(g.op_interfaces[o]) & structured or int(g.op_purity[o]) & reads_only)

    live = set(ctx.live_buffers())
    out = []
    for b in sorted(live):
        buffer = acc.buffers[b]
        if not buffer.understood or buffer.bytes <= 0:
            continue
        writers = [o for o, x in buffer.accesses if x & _WRITE]
        if not writers or any(not int(g.op_interfaces[o]) & permuted for o in writers):
            continue
        if not all(reads_through_an_index(o) for o, x in buffer.accesses if not x & _WRITE):
            continue
        # The copy whose contents it holds at the peak, else the next one.
        writer = max((o for o in writers if o <= op), default=writers[0])
        source = _layout_source(acc, writer)
        if source is None:
            continue
        of = acc.of_value.get(source)
        if of is None:  # not a buffer of the function: held only if constant
            held, source_bytes = _constant_memory(acc, source), 0
        else:
            held, source_bytes = of in live or acc.buffers[of].row < 0, acc.buffers[of].bytes
        saves = buffer.bytes if held else buffer.bytes - source_bytes
        if saves <= 0 or (of is None and not held):
            continue
        site = _site(lt, writer)
        kept = "held at the peak anyway" if held else "which would live on instead"
        out.append(
            Stored(
                buffer.row,
                "permuted copy",
                saves,
                f"written by {site.op} ({site.location}) from a source {kept};"
                " its readers could read the source through their indexing maps",
                site,
            )
        )
    return out


@finder("subset copy")
def subset_copies(ctx: PeakContext) -> list[Stored]:
    """Buffers live at the peak whose last read is a copy into a view of
    another buffer live there (a pad, concat or insert_slice as upstream
    bufferizes it: :func:`~memplan.lifetimes.subset_copies.subset_copies_at`):
    had their producers written into that view, as
    ``memplan-eliminate-subset-copies`` makes them do at tensor level, they
    would not be held at the peak. Named only where nothing reads the view's
    buffer while they run; saves what the heap peak drops with that buffer
    held from their first write on."""
    lt, peak = ctx.lt, ctx.peak
    out = []
    for copy in subset_copies_at(lt, peak.at.point + lt.func_op, peak.live):
        site = _site(lt, copy.op)
        out.append(
            Stored(
                copy.source,
                "subset copy",
                copy.bytes,
                f"read last by {site.op} ({site.location}) into a view of another buffer live"
                " at the peak; its producers could write into that view (nothing reads that"
                " buffer while they run; held from their first write, the peak drops by"
                f" {copy.bytes} B)",
                site,
            )
        )
    return out


__all__ = [
    "BlockFloors",
    "BufferAccesses",
    "FINDERS",
    "Floor",
    "PeakContext",
    "Stored",
    "cheap_to_recompute",
    "finder",
    "floor_at",
    "op_at_peak",
    "permuted_copies",
    "stored_at_peak",
    "subset_copies",
]
