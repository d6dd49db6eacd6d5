"""Incremental RaW conflict checks: the part that makes memplan near n log n.

Upstream checks every (read, write) pair of the alias sets touched by a
decision, again and again as the sets grow. Two facts make that unnecessary:

1. Within one function's analysis the pair predicate (upstream's inner loop
   of ``hasReadAfterWriteInterference``) is static: it depends on the IR, on
   op semantics and on equivalence classes, which only change after the
   decisions are made.
2. Every pair that is inside one alias set has been checked, without a
   conflict, when the set was formed or when the write joined it (the
   consistency check covers the sets formed before the analysis).

So a new decision only needs the *new* pairs: reads of one set against
writes of another set being merged, and every read against the new write.
Among those, most pairs are ruled out by op order alone: for a read whose
definitions all sit in the read's own block, only writes in that block
between the first definition and the read can conflict. Reads and writes are
kept per alias set, per block, sorted by position, so those windows are found
by bisection.
"""

from __future__ import annotations

import bisect
import os

_INF = 1 << 62
VERIFY = bool(os.environ.get("MEMPLAN_INPLACE_VERIFY"))


class _SetData:
    __slots__ = ("reads_b", "reads_x", "writes_b", "nreads", "nwrites")

    def __init__(self):
        self.reads_b: dict[int, list] = {}  # block -> sorted [(lo, rop, r)]
        self.reads_x: list[int] = []  # reads whose definitions leave the block
        self.writes_b: dict[int, list] = {}  # block -> sorted [(wop, w)]
        self.nreads = 0
        self.nwrites = 0

    def size(self) -> int:
        return self.nreads + self.nwrites


class Index:
    """Per alias set: its reads and in-place writes, indexed by block order."""

    def __init__(self, an, values: list[int]):
        self.an = an
        self.data: dict[int, _SetData] = {}
        self._elig: dict[int, object] = {}
        find = an.alias.find
        for v in values:
            root = find(v)
            for r in self.value_reads(v):
                self._add_read(self._get(root), r)
            for u in range(an.use_begin[v], an.use_begin[v + 1]):
                o = an.use_opnd[u]
                if an.inplace[o] and an.write(o):
                    self._add_write(self._get(root), o)

    def _get(self, root: int) -> _SetData:
        d = self.data.get(root)
        if d is None:
            d = self.data[root] = _SetData()
        return d

    def value_reads(self, v: int) -> list[int]:
        """getAliasingReads restricted to the uses of one value."""
        an = self.an
        out = []
        for u in range(an.use_begin[v], an.use_begin[v + 1]):
            o = an.use_opnd[u]
            s = an.sem[an.opnd_op[o]]
            if s.read[o]:
                out.append(o)
            elif not s.write[o] and any(an.is_value_read(val) for (val, _, _) in an.aliasing_values(o)):
                out.append(o)
        return out

    def eligibility(self, r: int):
        """None: the read has no definitions (never conflicts). ("x",): check
        against every write. (block, lo): its definitions are ops of the read's
        block at or after position ``lo`` (-1: a block argument)."""
        e = self._elig.get(r, 0)
        if e != 0:
            return e
        an = self.an
        defs = an.definitions(r)
        if not defs:
            e = None
        else:
            rop = an.opnd_op[r]
            block = an.op_block[rop]
            lo = _INF
            for d in defs:
                dop = an.value_op[d]
                if dop >= 0:
                    if an.op_block[dop] != block:
                        lo = None
                        break
                    lo = min(lo, dop)
                else:
                    if an.value_block[d] != block:
                        lo = None
                        break
                    lo = -1
            e = ("x",) if lo is None else (block, lo)
        self._elig[r] = e
        return e

    def _add_read(self, d: _SetData, r: int) -> None:
        e = self.eligibility(r)
        if e is None:
            return
        d.nreads += 1
        if len(e) == 1:
            d.reads_x.append(r)
        else:
            bisect.insort(d.reads_b.setdefault(e[0], []), (e[1], self.an.opnd_op[r], r))

    def _add_write(self, d: _SetData, w: int) -> None:
        d.nwrites += 1
        wop = self.an.opnd_op[w]
        bisect.insort(d.writes_b.setdefault(self.an.op_block[wop], []), (wop, w))

    # ------------------------------------------------------------ updates
    def add_write(self, root: int, w: int) -> None:
        self._add_write(self._get(root), w)

    def merge(self, root: int, gone: int) -> None:
        a = self.data.pop(root, None)
        b = self.data.pop(gone, None)
        if a is None or b is None:
            keep = a or b
            if keep is not None:
                self.data[root] = keep
            return
        if b.size() > a.size():
            a, b = b, a
        for block, lst in b.reads_b.items():
            dst = a.reads_b.setdefault(block, [])
            for item in lst:
                bisect.insort(dst, item)
        a.reads_x.extend(b.reads_x)
        for block, lst in b.writes_b.items():
            dst = a.writes_b.setdefault(block, [])
            for item in lst:
                bisect.insort(dst, item)
        a.nreads += b.nreads
        a.nwrites += b.nwrites
        self.data[root] = a

    # ------------------------------------------------------------ queries
    @staticmethod
    def all_reads(d: _SetData):
        for lst in d.reads_b.values():
            for (_, _, r) in lst:
                yield r
        yield from d.reads_x

    @staticmethod
    def all_writes(d: _SetData):
        for lst in d.writes_b.values():
            for (_, w) in lst:
                yield w

    def writes_for_read(self, d: _SetData, r: int):
        e = self.eligibility(r)
        if e is None:
            return
        if len(e) == 1:
            yield from self.all_writes(d)
            return
        block, lo = e
        rop = self.an.opnd_op[r]
        for b, lst in d.writes_b.items():
            if b != block:
                for (_, w) in lst:
                    yield w
                continue
            i = bisect.bisect_left(lst, (lo, -1))
            j = bisect.bisect_right(lst, (rop, _INF))
            for k in range(i, j):
                yield lst[k][1]

    def reads_for_write(self, d: _SetData, w: int):
        wop = self.an.opnd_op[w]
        block = self.an.op_block[wop]
        for b, lst in d.reads_b.items():
            if b != block:
                for (_, _, r) in lst:
                    yield r
                continue
            j = bisect.bisect_right(lst, (wop, _INF, _INF))
            for k in range(j):
                lo, rop, r = lst[k]
                if rop >= wop:
                    yield r
        yield from d.reads_x

    def check(self, o: int, roots: list[int], new_write):
        """First conflicting (read, write, definition) among the new pairs."""
        an = self.an
        empty = _SetData()
        sets = [self.data.get(rt, empty) for rt in roots]
        n = len(sets)
        for i in range(n):
            ri = sets[i]
            if ri.nreads == 0:
                continue
            for j in range(n):
                if i == j:
                    continue
                wj = sets[j]
                if wj.nwrites == 0:
                    continue
                if ri.nreads <= wj.nwrites:
                    for r in self.all_reads(ri):
                        defs = an.definitions(r)
                        for w in self.writes_for_read(wj, r):
                            dd = an.pair_conflict(r, w, defs)
                            if dd is not None:
                                return r, w, dd
                else:
                    for w in self.all_writes(wj):
                        for r in self.reads_for_write(ri, w):
                            dd = an.pair_conflict(r, w, an.definitions(r))
                            if dd is not None:
                                return r, w, dd
        if new_write is not None:
            for d in sets:
                for r in self.reads_for_write(d, new_write):
                    defs = an.definitions(r)
                    if not defs:
                        continue
                    dd = an.pair_conflict(r, new_write, defs)
                    if dd is not None:
                        return r, new_write, dd
        return None
