"""Copies into subsets at the heap peak: what producers writing into their
consumer's buffer would save.

Upstream bufferization makes a ``tensor.pad`` a new buffer and a copy of
its source into the interior (a ``tensor.concat`` one copy per operand, a
``tensor.insert_slice`` a copy into a view of its destination), so at the
peak of most CNNs the source and its padded copy are live together.
:func:`subset_copies_at` names, at a program point, every buffer ``A`` live
there whose contents are copied into a view of another buffer ``B`` live
there, and die at that copy, where ``A``'s producers could have written
into ``B``'s view instead, as ``memplan-eliminate-subset-copies`` makes them
do on the tensor program, and where that lowers the heap peak. Both are
read from the buffers' contents (their content segments,
:meth:`~memplan.lifetimes.analysis.FunctionLifetimes.segments`, and the
ops' accesses), never from op names:

* the view must be free while they run: no op reads ``B`` from the first
  write of what the copy reads to the copy. A ``B`` that holds other
  contents then (a pool, or a buffer memplan-buffer-reuse gave to a value
  still read, such as the concat a DenseNet's 1x1 convolution reads while
  its output is padded into the concat's memory) cannot take the
  producers' writes;
* the bytes are how much :func:`~memplan.lifetimes.peaks.input_peak` drops
  with ``A`` no longer held for those contents (held only as long as its
  earlier contents need it) and ``B`` held from that first write on (a pad's
  buffer is allocated after its source is made: holding it earlier can
  cost more than ``A`` saves, and then nothing is named).

A copy is an op without regions with two buffer operands, one it only
reads and one it writes (the ops' memory effects: ``memref.copy``); views
are ``ViewLikeOpInterface`` ops. Reads the
:class:`~memplan.lifetimes.analysis.FunctionLifetimes` and its graph; never
touches the IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from memplan.ir.parse import location_prefix
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.peaks import held_span, input_peak, input_peak_held

#: OperandAccess bits of ``graph.operand_access`` (include/memplan/IR/OpRoles.h).
_READ, _WRITE = 1, 2


@dataclass(frozen=True)
class SubsetCopy:
    """A buffer live at a point that is copied into a view of another one
    live there, and is not read after the copy."""

    source: int
    """The row (allocation) copied."""
    target: int
    """The row holding the view it is copied into."""
    op: int
    """The copy (op id)."""
    location: str
    """The copy's ``file:line:col`` (upstream's bufferization gives it the
    location of the pad, concat or insert_slice it comes from)."""
    bytes: int
    """How much the function's heap peak drops (64-byte blocks) with the
    source computed in the target: at most the source's bytes."""


def _aliases(lt: FunctionLifetimes, row: int) -> list[int]:
    """Value ids of row ``row``'s buffer: its allocation's result and every
    view of it (ViewLikeOpInterface), transitively."""
    g = lt.graph
    out = [int(lt.value[row])]
    k = 0
    while k < len(out):
        v = out[k]
        k += 1
        for u in range(int(g.use_begin[v]), int(g.use_begin[v + 1])):
            op, operand = int(g.use_op[u]), int(g.use_operand[u])
            if int(g.view_source[op]) == operand:
                first = int(g.result_begin[op])
                out.extend(range(first, first + int(g.num_results[op])))
    return out


def _root(lt: FunctionLifetimes, value: int, rows_by_value: dict[int, int]) -> Optional[int]:
    """The row whose buffer ``value`` views, following view sources."""
    g = lt.graph
    for _ in range(64):
        if value in rows_by_value:
            return rows_by_value[value]
        op = int(g.value_op[value])
        if op < 0:  # a block argument
            return None
        source = int(g.view_source[op])
        if source < 0:
            return None
        value = int(g.operands[int(g.operand_begin[op]) + source])
    return None


def _copy_operands(lt: FunctionLifetimes, op: int) -> Optional[tuple[int, int]]:
    """(source value, target value) when op ``op`` is a copy: no regions,
    two operands, one only read and one written."""
    g = lt.graph
    if int(g.region_begin[op + 1]) != int(g.region_begin[op]):
        return None
    begin, end = int(g.operand_begin[op]), int(g.operand_begin[op + 1])
    if end - begin != 2:
        return None
    access = [int(g.operand_access[s]) for s in range(begin, end)]
    reads = [k for k in range(2) if access[k] == _READ]
    writes = [k for k in range(2) if access[k] & _WRITE]
    if len(reads) != 1 or len(writes) != 1:
        return None
    return int(g.operands[begin + reads[0]]), int(g.operands[begin + writes[0]])


def _accesses(lt: FunctionLifetimes, values: Sequence[int]) -> list[tuple[int, int, int]]:
    """(op, access bits, value) of every use of ``values`` that is neither a
    view (its uses are its own) nor a free."""
    g = lt.graph
    out = []
    for v in values:
        for u in range(int(g.use_begin[v]), int(g.use_begin[v + 1])):
            op, operand = int(g.use_op[u]), int(g.use_operand[u])
            if int(g.view_source[op]) == operand or K.kind(g, op) == K.DEALLOC:
                continue
            out.append((op, int(g.operand_access[int(g.operand_begin[op]) + operand]), v))
    return out


def _same_memory(lt: FunctionLifetimes, value: int) -> set[int]:
    """The values that reach the memory ``value`` names: the view sources it
    is made from, up to its allocation, and every view of it. Views of the
    same allocation made otherwise (a pool's other slots) are not in it."""
    g = lt.graph
    out = {value}
    v = value
    for _ in range(64):
        op = int(g.value_op[v])
        if op < 0 or int(g.view_source[op]) < 0:
            break
        v = int(g.operands[int(g.operand_begin[op]) + int(g.view_source[op])])
        out.add(v)
    work = [value]
    while work:
        v = work.pop()
        for u in range(int(g.use_begin[v]), int(g.use_begin[v + 1])):
            op, operand = int(g.use_op[u]), int(g.use_operand[u])
            if int(g.view_source[op]) == operand:
                first = int(g.result_begin[op])
                for r in range(first, first + int(g.num_results[op])):
                    if r not in out:
                        out.add(r)
                        work.append(r)
    return out


def _peak_drop(lt: FunctionLifetimes, row: int, to: int, op: int, source: int, peak: int) -> int:
    """How much the heap peak ``peak`` drops when the contents of row ``row``
    that copy ``op`` reads (through value ``source``) are made in row ``to``
    instead; 0 when ``to``'s memory is not free while they are made."""
    segment = next(((s, e) for s, e in lt.segments(row) if s <= op < e), None)
    if segment is None:
        return 0
    mine = _same_memory(lt, source)
    window = [(o, x, v) for o, x, v in _accesses(lt, _aliases(lt, row)) if segment[0] <= o < op]
    # The contents copied start at the first access through the copied
    # memory; other contents of the row (another slot of a pool) are held
    # until their last access.
    first = min((o for o, _, v in window if v in mine), default=segment[0])
    others = [o for o, _, v in window if v not in mine]
    if others:
        kept: Optional[tuple[int, int]] = (int(lt.op[row]), max(others) + 1)
    else:
        earlier = [e for s, e in lt.segments(row) if e <= segment[0]]
        kept = (int(lt.op[row]), max(earlier)) if earlier else None
    # The producers write the target's memory from their first write to the
    # copy: nothing may read it then (it holds other contents).
    if any(first <= o < op and x & _READ for o, x, _ in _accesses(lt, _aliases(lt, to))):
        return 0
    start, end = held_span(lt, to)
    return peak - input_peak_held(lt, {row: kept, to: (min(start, first), end)})


def subset_copies_at(lt: FunctionLifetimes, point: int, live: Sequence[int]) -> list[SubsetCopy]:
    """The copies into subsets of rows ``live`` at op ``point`` (an op id of
    the graph, not relative to the function):
    each live row copied into a view (not the whole) of another live row,
    whose last read is that copy, whose producers could write into that view
    (nothing reads it while they run) and where that lowers the heap peak;
    most bytes first."""
    g = lt.graph
    live_set = set(int(r) for r in live)
    rows_by_value = {int(lt.value[r]): int(r) for r in range(len(lt))}
    grouped = set(int(r) for r in np.flatnonzero(lt.group_of() >= 0))
    peak: Optional[int] = None
    found = []
    for row in live_set:
        values = _aliases(lt, row)
        value_set = set(values)
        copies, last = [], -1
        for op, _, _ in _accesses(lt, values):
            last = max(last, op)
            pair = _copy_operands(lt, op)
            if pair is not None and pair[0] in value_set:
                copies.append((op, pair))
        for op, (source, target) in copies:
            if op != last or op < point:
                continue
            to = _root(lt, target, rows_by_value)
            if to is None or to == row or to not in live_set or target == int(lt.value[to]):
                continue
            if row in grouped or to in grouped:  # held as one with another buffer
                continue
            if peak is None:
                peak = input_peak(lt)
            saves = _peak_drop(lt, row, to, op, source, peak)
            if saves <= 0:
                continue
            found.append(SubsetCopy(row, to, op, location_prefix(g.location(op)), saves))
    return sorted(found, key=lambda c: (-c.bytes, c.op))


__all__ = ["SubsetCopy", "subset_copies_at"]
