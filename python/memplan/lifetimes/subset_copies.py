"""Copies into subsets at the heap peak: what producers writing into their
consumer's buffer would save.

Upstream bufferization makes a ``tensor.pad`` a new buffer and a copy of
its source into the interior (a ``tensor.concat`` one copy per operand, a
``tensor.insert_slice`` a copy into a view of its destination), so at the
peak of most CNNs the source and its padded copy are live together.
:func:`subset_copies_at` names, at a program point, every buffer ``A`` live
there whose contents are copied into a view of another buffer ``B`` live
there, and die at that copy: had ``A``'s producers written into ``B``'s
view, as ``memplan-eliminate-subset-copies`` makes them do on the tensor
program, ``A`` would not be held there (its bytes, in 64-byte blocks, are
what the rewrite frees at that point). A copy is an op without regions with
two buffer operands, one it only reads and one it writes (the ops' memory
effects: ``memref.copy``); views are ``ViewLikeOpInterface`` ops. Reads the
:class:`~memplan.lifetimes.analysis.FunctionLifetimes` and its graph; never
touches the IR.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from memplan.ir.parse import location_prefix
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes
from memplan.lifetimes.peaks import ROUNDING

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
    """The source's bytes in 64-byte heap blocks: what computing it in the
    target frees at that point."""


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


def subset_copies_at(lt: FunctionLifetimes, point: int, live: Sequence[int]) -> list[SubsetCopy]:
    """The copies into subsets of rows ``live`` at op ``point`` (an op id of
    the graph, not relative to the function):
    each live row copied into a view (not the whole) of another live row,
    whose last read is that copy, largest first."""
    g = lt.graph
    live_set = set(int(r) for r in live)
    rows_by_value = {int(lt.value[r]): int(r) for r in range(len(lt))}
    found = []
    for row in live_set:
        values = _aliases(lt, row)
        value_set = set(values)
        copies, last = [], -1
        for v in values:
            for u in range(int(g.use_begin[v]), int(g.use_begin[v + 1])):
                op, operand = int(g.use_op[u]), int(g.use_operand[u])
                if int(g.view_source[op]) == operand or K.kind(g, op) == K.DEALLOC:
                    continue  # a view's uses are its own; a free reads nothing
                last = max(last, op)
                pair = _copy_operands(lt, op)
                if pair is not None and pair[0] in value_set:
                    copies.append((op, pair[1]))
        for op, target in copies:
            if op != last or op < point:
                continue
            to = _root(lt, target, rows_by_value)
            if to is None or to == row or to not in live_set or target == int(lt.value[to]):
                continue
            found.append(
                SubsetCopy(
                    row,
                    to,
                    op,
                    location_prefix(g.location(op)),
                    -(-int(lt.bytes[row]) // ROUNDING) * ROUNDING,
                )
            )
    return sorted(found, key=lambda c: (-c.bytes, c.op))


__all__ = ["SubsetCopy", "subset_copies_at"]
