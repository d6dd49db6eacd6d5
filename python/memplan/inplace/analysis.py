"""memplan's One-Shot-style in-place analysis.

The analysis makes the same decisions as upstream One-Shot Analysis
(``mlir/lib/Dialect/Bufferization/Transforms/OneShotAnalysis.cpp`` and
``OneShotModuleBufferize.cpp``, MLIR 22): same analysis order, same alias and
equivalence sets (union-find, with upstream's member order), same RaW rules.
It works on the compact graph of the IR bridge and keeps, per alias set, the
number of in-place writes and of non-writable members, so the common
questions ("is anything in these sets written in place?") cost O(1) instead of
a walk over every use of every alias; that walk is what makes upstream
super-linear on long chains and shared reads.

Everything the analysis does not model exactly raises
:class:`~memplan.inplace.semantics.Unsupported` with the op it stopped at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from mlir import ir

from memplan.ir.graph import extract_graph, operation
from memplan.inplace.incremental import VERIFY, Index
from memplan.inplace.semantics import (
    EQUIV,
    UNKNOWN,
    OpSem,
    Unsupported,
)

# Upstream's annotation counters are function-static, i.e. per process.
_COUNTERS = {"C": 0, "W": 0}

HEURISTICS = ("bottom-up", "top-down", "bottom-up-from-terminators", "fuzzer", "min-copy-bytes")


@dataclass
class Options:
    bufferize_function_boundaries: bool = False
    allow_unknown_ops: bool = False
    allow_return_allocs_from_loops: bool = False
    analysis_heuristic: str = "bottom-up"
    analysis_fuzzer_seed: int = 0
    test_analysis_only: bool = False
    print_conflicts: bool = False
    dump_alias_sets: bool = False
    check_parallel_regions: bool = True
    dialect_filter: tuple = ()
    no_analysis_func_filter: tuple = ()
    #: Record every conflict found (for the explanation API), not just decide.
    record: bool = True
    #: Check only the new (read, write) pairs of a decision (see incremental.py).
    incremental: bool = True


@dataclass
class Conflict:
    """A read-after-write conflict that forced an operand out of place."""

    operand: int  # the operand decided out of place
    read: int  # operand id of the read
    write: int  # operand id of the conflicting write
    definition: int  # value id of the definition


@dataclass
class NonWritable:
    operand: int
    value: int


class AnalysisError(Exception):
    """The analysis failed the way upstream fails (its diagnostic, at an op)."""

    def __init__(self, op: int, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class UnionFind:
    """llvm::EquivalenceClasses with upstream's member order (leader list first)."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.next = [-1] * n
        self.tail = list(range(n))

    def find(self, v: int) -> int:
        parent = self.parent
        root = v
        while parent[root] != root:
            root = parent[root]
        while parent[v] != root:
            parent[v], v = root, parent[v]
        return root

    def union(self, a: int, b: int) -> tuple[int, int]:
        """Merge b's class into a's; returns (new root, absorbed root or -1)."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra, -1
        self.next[self.tail[ra]] = rb
        self.tail[ra] = self.tail[rb]
        self.parent[rb] = ra
        return ra, rb

    def members(self, v: int):
        m = self.find(v)
        nxt = self.next
        while m != -1:
            yield m
            m = nxt[m]


class Analysis:
    """One-Shot analysis of a module (all functions), decisions per tensor operand."""

    def __init__(self, module: ir.Operation, options: Options):
        self.module = module
        self.opts = options
        g = self.graph = extract_graph(module)
        self.num_ops = g.num_ops
        self.names = list(g.names)
        self.op_name = [self.names[i] for i in g.op_name.tolist()]
        self.op_parent = g.op_parent.tolist()
        self.op_block = g.op_block.tolist()
        self.op_end = g.op_end.tolist()
        self.op_depth = g.op_depth.tolist()
        self.ob = g.operand_begin.tolist()
        self.operands = g.operands.tolist()
        self.rb = g.result_begin.tolist()
        self.nres = g.num_results.tolist()
        self.region_begin = g.region_begin.tolist()
        self.region_op = g.region_op.tolist()
        self.region_block_begin = g.region_block_begin.tolist()
        self.region_blocks = g.region_blocks.tolist()
        self.block_region = g.block_region.tolist()
        self.block_parent = g.block_parent_op.tolist()
        self.block_arg_begin = g.block_arg_begin.tolist()
        self.block_nargs = g.block_num_args.tolist()
        self.value_op = g.value_op.tolist()
        self.value_block = g.value_block.tolist()
        self.value_index = g.value_index.tolist()
        types = g.types
        tensor_type = [t.is_tensor for t in types]
        vt = g.value_type
        self.value_type = vt.tolist()
        self.types = types
        self.is_tensor = [tensor_type[t] for t in self.value_type]
        nv = g.num_values
        # operand id -> owning op
        counts = np.diff(g.operand_begin)
        self.opnd_op = np.repeat(np.arange(g.num_ops, dtype=np.int32), counts).tolist()
        # uses as operand ids, per value
        ub = g.use_begin
        self.use_begin = ub.tolist()
        self.use_opnd = (g.operand_begin[g.use_op] + g.use_operand).tolist()
        self.nvalues = nv
        # Tensor operands per op (operand ids), computed once.
        ist = np.array(self.is_tensor + [False], dtype=bool)
        opnds = g.operands
        tmask = ist[np.where(opnds >= 0, opnds, nv)]
        tids = np.nonzero(tmask)[0]
        owners = np.asarray(self.opnd_op, dtype=np.int64)[tids] if len(tids) else np.zeros(0, np.int64)
        starts = np.searchsorted(owners, np.arange(g.num_ops + 1))
        tl = tids.tolist()
        st = starts.tolist()
        self._topnds = [tl[st[i]:st[i + 1]] for i in range(g.num_ops)]
        # Ops that touch tensors at all (operands, results or block arguments).
        touched = np.zeros(g.num_ops, dtype=bool)
        touched[owners] = True
        vop = g.value_op
        tv = ist[:nv]
        res_owner = vop[(vop >= 0) & tv]
        touched[res_owner] = True
        arg_blocks = g.value_block[(vop < 0) & tv]
        if len(arg_blocks):
            touched[g.block_parent_op[arg_blocks]] = True
        self.touches_tensors = touched.tolist()

        self.sem: list[Optional[OpSem]] = [None] * g.num_ops
        self.inplace = bytearray(len(self.operands))
        self.decided = bytearray(len(self.operands))
        self.alias = UnionFind(nv)
        self.equiv = UnionFind(nv)
        self.n_inplace_writes = [0] * nv
        self.n_nonwritable = [0] * nv
        self._defs_cache: dict[int, list[int]] = {}
        self._read_cache: dict[int, bool] = {}
        self._subset_cache: dict[tuple[int, int], bool] = {}
        self._rep_region_cache: dict[int, int] = {}
        self.conflicts: dict[int, Conflict] = {}
        self.nonwritable_hits: dict[int, list[int]] = {}
        self.annotations: list[tuple[int, str]] = []  # (op, unit attr name)
        self.errors: list[tuple[int, str]] = []
        self.func_state: dict[int, dict] = {}  # func op -> boundary facts
        self.symbol_funcs: dict[str, int] = {}
        self.has_parallel = False
        self.index = None  # incremental.Index during a scope's decisions
        #: values whose result_bufferizes_to_write is being computed; a set
        #: only when the module has multi-block regions (see there)
        self.rbw_active: Optional[set] = None
        # Unstructured control flow (filled lazily, multi-block regions only).
        self._block_term: Optional[list[int]] = None
        self._py_block_ids: dict[int, dict] = {}
        self._block_succs: dict[int, list[int]] = {}
        self._dom_trees: dict[int, tuple] = {}
        #: function-like op -> named in no-analysis-func-filter?
        self.filtered_funcs: dict[int, bool] = {}
        self._py_ops: dict[int, ir.Operation] = {}

    # ------------------------------------------------------------------ IR
    def pyop(self, op: int) -> ir.Operation:
        o = self._py_ops.get(op)
        if o is None:
            o = operation(self.graph, op)
            self._py_ops[op] = o
        return o

    def dialect(self, op: int) -> str:
        return self.op_name[op].split(".", 1)[0]

    def tensor_operands(self, op: int) -> list[int]:
        return self._topnds[op]

    def results(self, op: int) -> range:
        return range(self.rb[op], self.rb[op] + self.nres[op])

    def tensor_results(self, op: int) -> list[int]:
        b = self.rb[op]
        n = self.nres[op]
        if n == 0:
            return []
        ist = self.is_tensor
        return [v for v in range(b, b + n) if ist[v]]

    def region_blocks_of(self, r: int) -> list[int]:
        return self.region_blocks[self.region_block_begin[r] : self.region_block_begin[r + 1]]

    def regions_of(self, op: int) -> range:
        return range(self.region_begin[op], self.region_begin[op + 1])

    def block_args(self, b: int) -> range:
        return range(self.block_arg_begin[b], self.block_arg_begin[b] + self.block_nargs[b])

    def entry_block(self, op: int, region_index: int = 0) -> int:
        r = self.region_begin[op] + region_index
        blocks = self.region_blocks_of(r)
        return blocks[0] if blocks else -1

    def terminator(self, block: int) -> int:
        """Last op of a block (the terminator), or -1."""
        parent = self.block_parent[block]
        last = -1
        for op in range(parent + 1, self.op_end[parent] + 1):
            if self.op_block[op] == block:
                last = op
        return last

    def owner(self, v: int) -> int:
        op = self.value_op[v]
        return op if op >= 0 else self.block_parent[self.value_block[v]]

    def value_region(self, v: int) -> int:
        op = self.value_op[v]
        if op >= 0:
            b = self.op_block[op]
            return self.block_region[b] if b >= 0 else -1
        return self.block_region[self.value_block[v]]

    def op_region(self, op: int) -> int:
        b = self.op_block[op]
        return self.block_region[b] if b >= 0 else -1

    def is_ancestor(self, a: int, b: int) -> bool:
        return a <= b <= self.op_end[a]

    def is_proper_ancestor(self, a: int, b: int) -> bool:
        return a < b <= self.op_end[a]

    def ancestor_in_block(self, block: int, op: int) -> int:
        ob, parent = self.op_block, self.op_parent
        while op >= 0 and ob[op] != block:
            op = parent[op]
        return op

    def properly_dominates(self, a: int, b: int) -> bool:
        blk = self.op_block[a]
        if a == b or blk < 0:
            return False
        bb = self.ancestor_in_block(blk, b)
        if bb < 0:
            if self.is_multi_block(self.block_region[blk]):
                return self._cfg_properly_dominates(blk, b)
            return False
        if bb == a:
            return True
        if self.block_parent[blk] == 0 and self.op_name[0] == "builtin.module":
            return True  # graph region: no SSA dominance
        return a < bb

    def happens_before(self, a: int, b: int) -> bool:
        while a >= 0:
            if self.is_proper_ancestor(a, b):
                return False
            if self.properly_dominates(a, b):
                return True
            a = self.op_parent[a]
        return False

    # ------------------------------------------------------------ semantics
    def read(self, o: int) -> bool:
        return self.sem[self.opnd_op[o]].read[o]

    def write(self, o: int) -> bool:
        return self.sem[self.opnd_op[o]].write[o]

    def aliasing_values(self, o: int) -> list:
        s = self.sem[self.opnd_op[o]]
        f = s.dyn_alias.get(o)
        if f is not None:
            return f(self)
        return s.alias.get(o, ())

    def aliasing_opoperands(self, v: int) -> list:
        op = self.owner(v)
        s = self.sem[op]
        if s is None or not s.bufferizable:
            if self.value_op[v] < 0:
                b = self.value_block[v]
                if self.region_blocks_of(self.block_region[b])[0] != b:
                    return []
            return [(o, UNKNOWN, False) for o in self.tensor_operands(op)]
        if v in s.value_alias_operands:
            return s.value_alias_operands[v]
        out = []
        for o in self.tensor_operands(op):
            for (val, rel, definite) in self.aliasing_values(o):
                if val == v:
                    out.append((o, rel, definite))
        return out

    def bufferizable_value(self, v: int) -> bool:
        s = self.sem[self.owner(v)]
        return s is not None and s.bufferizable

    def result_bufferizes_to_write(self, v: int) -> bool:
        """AnalysisState::bufferizesToMemoryWrite(Value)."""
        op = self.value_op[v]
        if op < 0:
            return True
        s = self.sem[op]
        if s is None or not s.bufferizable:
            return True
        w = s.result_write.get(v)
        if w is not None:
            return w
        aliases = self.aliasing_opoperands(v)
        if not aliases:
            return True
        if any(self.write(o) for (o, _, _) in aliases):
            return True

        def inside(x: int) -> bool:
            return self.is_ancestor(op, self.owner(x)) and self.result_bufferizes_to_write(x)

        active = self.rbw_active
        if active is not None:
            # Only with unstructured control flow can the reverse use-def
            # chain of a result loop back to the result itself (through block
            # arguments); upstream then recurses until its stack overflows.
            if v in active:
                raise AnalysisError(op, f"'{self.op_name[op]}' op: upstream One-Shot Analysis recurses "
                                        "without end (stack overflow) asking whether this result "
                                        "bufferizes to a memory write: its reverse use-def chain loops "
                                        "back to it through block arguments")
            active.add(v)
        try:
            for (o, _, _) in aliases:
                if self.find_in_chain(o, inside, include_leaves=False):
                    return True
            return False
        finally:
            if active is not None:
                active.discard(v)

    def is_writable(self, v: int) -> bool:
        s = self.sem[self.owner(v)]
        if s is None or not s.bufferizable:
            return False
        return s.writable.get(v, True)

    def alias_only(self, o: int) -> bool:
        s = self.sem[self.opnd_op[o]]
        if not s.bufferizable:
            return False
        return not s.read[o] and not s.write[o] and len(self.aliasing_values(o)) != 0

    def is_value_read(self, v: int) -> bool:
        r = self._read_cache.get(v)
        if r is not None:
            return r
        work = [self.use_opnd[u] for u in range(self.use_begin[v], self.use_begin[v + 1])]
        visited = set()
        result = False
        while work:
            o = work.pop()
            if o in visited:
                continue
            visited.add(o)
            if self.alias_only(o):
                for (a, _, _) in self.aliasing_values(o):
                    work.extend(self.use_opnd[u] for u in range(self.use_begin[a], self.use_begin[a + 1]))
            if self.read(o):
                result = True
                break
        self._read_cache[v] = result
        return result

    def find_in_chain(
        self,
        start: int,
        cond: Callable[[int], bool],
        include_leaves: bool = True,
        equivalent_only: bool = False,
        inplace_only: bool = False,
        same_type_or_casts: bool = False,
    ) -> list[int]:
        """AnalysisState::findValueInReverseUseDefChain from operand ``start``."""
        visited = set()
        result: dict[int, None] = {}
        working: dict[int, None] = {self.operands[start]: None}
        while working:
            value = working.popitem()[0]  # SetVector::pop_back_val
            if value in visited:
                if include_leaves:
                    result[value] = None
                continue
            visited.add(value)
            if cond(value):
                result[value] = None
                continue
            if not self.bufferizable_value(value):
                if include_leaves:
                    result[value] = None
                continue
            aliases = self.aliasing_opoperands(value)
            if not aliases:
                if include_leaves:
                    result[value] = None
                continue
            for (o, rel, _) in aliases:
                if equivalent_only and rel != EQUIV:
                    if include_leaves:
                        result[value] = None
                    continue
                if inplace_only and not self.inplace[o]:
                    if include_leaves:
                        result[value] = None
                    continue
                if same_type_or_casts:
                    src = self.operands[o]
                    vop = self.value_op[value]
                    is_cast = vop >= 0 and self.sem[vop] is not None and self.sem[vop].is_cast
                    if self.value_type[src] != self.value_type[value] and not is_cast:
                        if include_leaves:
                            result[value] = None
                        continue
                x = self.operands[o]
                if x not in working:
                    working[x] = None
        return list(result)

    def definitions(self, o: int) -> list[int]:
        v = self.operands[o]
        d = self._defs_cache.get(v)
        if d is None:
            d = self.find_in_chain(o, self.result_bufferizes_to_write, include_leaves=False)
            self._defs_cache[v] = d
        return d

    # ------------------------------------------------------------- regions
    def _repetitive_region_from(self, r: int) -> int:
        while r >= 0:
            op = self.region_op[r]
            s = self.sem[op]
            if s is not None and s.bufferizable and (r - self.region_begin[op]) in s.repetitive_regions:
                return r
            r = self.op_region(op)
        return -1

    def repetitive_region_of_op(self, op: int) -> int:
        return self._repetitive_region_from(self.op_region(op))

    def repetitive_region_of_value(self, v: int) -> int:
        return self._repetitive_region_from(self.value_region(v))

    def next_repetitive_region(self, r: int) -> int:
        return self._repetitive_region_from(self.op_region(self.region_op[r]))

    def parallel_region(self, r: int) -> int:
        while r >= 0:
            op = self.region_op[r]
            s = self.sem[op]
            if s is not None and s.bufferizable and (r - self.region_begin[op]) in s.parallel_regions:
                return r
            r = self.op_region(op)
        return -1

    def mutually_exclusive(self, a: int, b: int) -> bool:
        p = self.op_parent[a]
        while p >= 0:
            s = self.sem[p]
            if s is not None and s.region_branch:
                if self.is_proper_ancestor(p, b):
                    ra = self._region_index_containing(p, a)
                    rb = self._region_index_containing(p, b)
                    if ra == rb:
                        return False
                    name = self.op_name[p]
                    if name in ("scf.if", "scf.index_switch", "affine.if"):
                        return True
                    return False
            p = self.op_parent[p]
        return False

    def _region_index_containing(self, p: int, op: int) -> int:
        while self.op_parent[op] != p:
            op = self.op_parent[op]
        return self.op_region(op) - self.region_begin[p]

    def can_use_dominance(self, r: int, w: int, defs: list[int]) -> bool:
        rop = self.opnd_op[r]
        for d in defs:
            r_read = self.repetitive_region_of_op(rop)
            r_def = self.repetitive_region_of_value(d)
            if r_read == r_def:
                continue
            if r_read < 0:
                raise Unsupported(rop, "read outside of the repetitive region of its definition")
            while True:
                nxt = self.next_repetitive_region(r_read)
                if nxt == r_def:
                    break
                if nxt < 0:
                    raise Unsupported(rop, "unexpected repetitive region nesting")
                r_read = nxt
            if self.is_ancestor(self.region_op[r_read], self.opnd_op[w]):
                return False
        region = self.op_region(rop)
        if region >= 0 and self.is_multi_block(region):
            return self._can_use_dominance_blocks(rop, self.opnd_op[w], defs)
        return True

    # ------------------------------------------- unstructured control flow
    def is_multi_block(self, r: int) -> bool:
        return self.region_block_begin[r + 1] - self.region_block_begin[r] > 1

    def block_terminator(self, block: int) -> int:
        """Last op of ``block`` (-1 if empty), from a table built once."""
        term = self._block_term
        if term is None:
            term = [-1] * len(self.block_region)
            ob = self.op_block
            for op in range(self.num_ops):
                if ob[op] >= 0:
                    term[ob[op]] = op
            self._block_term = term
        return term[block]

    def block_of_py(self, r: int, pyblock) -> int:
        """Graph block id of a Python ``ir.Block`` of region ``r``."""
        cache = self._py_block_ids
        ids = cache.get(r)
        if ids is None:
            owner = self.region_op[r]
            region = self.pyop(owner).regions[r - self.region_begin[owner]]
            ids = {b: i for b, i in zip(region.blocks, self.region_blocks_of(r))}
            cache[r] = ids
        return ids[pyblock]

    def block_successors(self, block: int) -> list[int]:
        """Successor blocks of ``block`` (its terminator's successors, in order)."""
        cache = self._block_succs
        succs = cache.get(block)
        if succs is None:
            term = self.block_terminator(block)
            r = self.block_region[block]
            succs = [] if term < 0 else [self.block_of_py(r, b) for b in self.pyop(term).successors]
            cache[block] = succs
        return succs

    def block_predecessor_blocks(self, block: int) -> list[int]:
        """Predecessor blocks in upstream's use-list order (``Block::getUsers``),
        one entry per successor use (a cond_br to the block twice: twice)."""
        r = self.block_region[block]
        owner = self.region_op[r]
        region = self.pyop(owner).regions[r - self.region_begin[owner]]
        pyblock = list(region.blocks)[self.region_blocks_of(r).index(block)]
        return [self.block_of_py(r, p) for p in pyblock.predecessors]

    def _dom_tree(self, r: int):
        """Immediate dominators of the blocks of region ``r`` reachable from
        its entry (Cooper, Harvey, Kennedy), as {block: idom}, and the blocks'
        reverse post-order numbers."""
        cache = self._dom_trees
        t = cache.get(r)
        if t is not None:
            return t
        entry = self.region_blocks_of(r)[0]
        order, seen = [], {entry}
        stack = [(entry, iter(self.block_successors(entry)))]
        while stack:
            b, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                order.append(b)
            elif nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, iter(self.block_successors(nxt))))
        order.reverse()
        rpo = {b: i for i, b in enumerate(order)}
        preds: dict[int, list[int]] = {b: [] for b in order}
        for b in order:
            for sb in self.block_successors(b):
                preds[sb].append(b)
        idom = {entry: entry}
        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                new = None
                for p in preds[b]:
                    if p not in idom:
                        continue
                    if new is None:
                        new = p
                        continue
                    x, y = p, new
                    while x != y:
                        while rpo[x] > rpo[y]:
                            x = idom[x]
                        while rpo[y] > rpo[x]:
                            y = idom[y]
                    new = x
                if idom.get(b) != new:
                    idom[b] = new
                    changed = True
        t = cache[r] = (idom, rpo)
        return t

    def block_properly_dominates(self, a: int, b: int) -> bool:
        """DominanceInfo::properlyDominates for two blocks of one region (as
        LLVM's DomTree: an unreachable block is dominated by every block)."""
        if a == b:
            return False
        idom, _ = self._dom_tree(self.block_region[a])
        if b not in idom:
            return True
        if a not in idom:
            return False
        entry = self.region_blocks_of(self.block_region[a])[0]
        while b != entry:
            b = idom[b]
            if b == a:
                return True
        return False

    def _cfg_properly_dominates(self, blk: int, b: int) -> bool:
        """An op of block ``blk`` (of a multi-block region) properly dominates
        op ``b`` of another block: ``b``'s ancestor in that region sits in a
        block that ``blk`` properly dominates."""
        r = self.block_region[blk]
        p = b
        while p >= 0 and self.op_region(p) != r:
            p = self.op_parent[p]
        if p < 0:
            return False
        return self.block_properly_dominates(blk, self.op_block[p])

    def cfg_reachable(self, src: int, dst: int, avoid: int) -> bool:
        """Upstream's isReachable(from, to, {except}): a path of at least one
        edge from ``src`` to ``dst`` that does not enter ``avoid``."""
        visited = set()
        work = list(self.block_successors(src))
        while work:
            nxt = work.pop()
            if nxt == avoid:
                continue
            if nxt == dst:
                return True
            if nxt in visited:
                continue
            visited.add(nxt)
            work.extend(self.block_successors(nxt))
        return False

    def _can_use_dominance_blocks(self, rop: int, wop: int, defs: list[int]) -> bool:
        """canUseOpDominanceDueToBlocks: no dominance argument when READ and
        WRITE lie on a CFG cycle (of their common region) avoiding DEF's block."""
        if self.op_region(rop) != self.op_region(wop):
            return True
        rb, wb = self.op_block[rop], self.op_block[wop]
        for d in defs:
            dop = self.value_op[d]
            db = self.op_block[dop] if dop >= 0 else self.value_block[d]
            if self.cfg_reachable(rb, wb, db) and self.cfg_reachable(wb, rb, db):
                return False
        return True

    # ------------------------------------------------------------ subsets
    def equivalent(self, a: int, b: int) -> bool:
        return self.equiv.find(a) == self.equiv.find(b)

    def is_equivalent_subset(self, insert_op: int, candidate: int) -> bool:
        if self.op_name[insert_op] == "bufferization.materialize_in_destination":
            # The "subset" is the whole destination: any equivalent value.
            return self.equivalent(candidate, self.operands[self.sem[insert_op].subset_insert[1]])
        eop = self.value_op[candidate]
        if eop < 0 or self.op_name[eop] != "tensor.extract_slice":
            return False
        src = self.operands[self.ob[eop]]
        dest = self.operands[self.sem[insert_op].subset_insert[1]]
        if not self.equivalent(src, dest):
            return False
        return self.slice_key(eop) == self.slice_key(insert_op)

    def slice_key(self, op: int):
        s = self.sem[op]
        key = getattr(s, "_slice_key", None)
        if key is None:
            key = _slice_key(self, op)
            s._slice_key = key
        return key

    def matches_insert_destination(self, o: int, insert_op: int) -> bool:
        def matching(v: int) -> bool:
            return self.value_op[v] >= 0 and self.is_equivalent_subset(insert_op, v)

        chain = self.find_in_chain(o, matching)
        return all(matching(v) for v in chain)

    def non_conflicting_subsets(self, r: int, w: int) -> bool:
        key = (r, w)
        c = self._subset_cache.get(key)
        if c is None:
            c = self._non_conflicting_subsets(r, w)
            self._subset_cache[key] = c
        return c

    def _non_conflicting_subsets(self, r: int, w: int) -> bool:
        rop, wop = self.opnd_op[r], self.opnd_op[w]
        s = self.sem[rop]
        if s is not None and s.bufferizable and s.subset_insert is not None:
            src, dest = s.subset_insert
            if r == dest and self.matches_insert_destination(w, rop):
                return True
            if r == src and w == dest and self.matches_insert_destination(r, rop):
                return True
        s = self.sem[wop]
        if s is not None and s.bufferizable and s.subset_insert is not None:
            src, dest = s.subset_insert
            if w == dest and self.equivalent(self.operands[r], self.operands[src]) and \
                    self.matches_insert_destination(src, wop):
                return True
        return False

    def equivalent_in_chain(self, start: int, other: int) -> bool:
        return bool(self.find_in_chain(
            start, lambda v: v == other, include_leaves=False,
            equivalent_only=True, same_type_or_casts=True))

    # --------------------------------------------------------- conflicts
    def _aliasing_reads(self, res: dict, root_value: int) -> None:
        use_begin, use_opnd = self.use_begin, self.use_opnd
        sems, opnd_op = self.sem, self.opnd_op
        for a in self.alias.members(root_value):
            for u in range(use_begin[a], use_begin[a + 1]):
                o = use_opnd[u]
                s = sems[opnd_op[o]]
                if s.read[o]:
                    res[o] = None
                    continue
                if not s.write[o]:
                    if any(self.is_value_read(val) for (val, _, _) in self.aliasing_values(o)):
                        res[o] = None

    def _aliasing_inplace_writes(self, res: dict, root_value: int) -> None:
        use_begin, use_opnd = self.use_begin, self.use_opnd
        inplace, sems, opnd_op = self.inplace, self.sem, self.opnd_op
        for a in self.alias.members(root_value):
            for u in range(use_begin[a], use_begin[a + 1]):
                o = use_opnd[u]
                if inplace[o] and sems[opnd_op[o]].write[o]:
                    res[o] = None

    def _has_inplace_writes(self, values: list[int]) -> bool:
        niw, find = self.n_inplace_writes, self.alias.find
        return any(niw[find(v)] for v in values)

    def would_create_raw(self, o: int, consistency_only: bool = False) -> bool:
        v = self.operands[o]
        aliases = [a for (a, _, _) in self.aliasing_values(o)]
        writes_operand = not consistency_only and self.write(o)
        if not writes_operand and not self._has_inplace_writes([v] + aliases):
            return False  # no writes at all: no RaW conflict is possible
        if self.index is not None and not consistency_only and not (
                self.opts.check_parallel_regions and self.has_parallel):
            fast = self._incremental_raw(o, v, aliases, writes_operand)
            if not VERIFY:
                return fast
            saved = self.opts.print_conflicts, self.opts.record
            self.opts.print_conflicts, self.opts.record = False, False
            try:
                slow = self._full_raw(o, v, aliases, writes_operand)
            finally:
                self.opts.print_conflicts, self.opts.record = saved
            if slow != fast:
                raise AssertionError(f"incremental check disagrees on operand {o}: {fast} vs {slow}")
            return fast
        return self._full_raw(o, v, aliases, writes_operand)

    def _incremental_raw(self, o: int, v: int, aliases: list[int], writes_operand: bool) -> bool:
        find = self.alias.find
        roots: list[int] = []
        for x in [v] + aliases:
            rt = find(x)
            if rt not in roots:
                roots.append(rt)
        if len(roots) == 1 and not writes_operand:
            return False
        hit = self.index.check(o, roots, o if writes_operand else None)
        if hit is None:
            return False
        self._report_conflict(o, *hit)
        return True

    def _full_raw(self, o: int, v: int, aliases: list[int], writes_operand: bool) -> bool:
        reads: dict = {}
        writes: dict = {}
        self._aliasing_reads(reads, v)
        self._aliasing_inplace_writes(writes, v)
        for a in aliases:
            self._aliasing_reads(reads, a)
            self._aliasing_inplace_writes(writes, a)
        if writes_operand:
            writes[o] = None
        return self.has_raw(o, sorted(reads), sorted(writes))

    def has_raw(self, decided: int, reads: list[int], writes: list[int]) -> bool:
        opnd_op = self.opnd_op
        if self.opts.check_parallel_regions and reads and self.has_parallel:
            for w in writes:
                defs = self.find_in_chain(w, self.result_bufferizes_to_write)
                wr = self.parallel_region(self.op_region(opnd_op[w]))
                for d in defs:
                    if self.parallel_region(self.value_region(d)) != wr:
                        return True
        for r in reads:
            defs = self.definitions(r)
            if not defs:
                continue
            for w in writes:
                d = self.pair_conflict(r, w, defs)
                if d is not None:
                    self._report_conflict(decided, r, w, d)
                    return True
        return False

    def pair_conflict(self, r: int, w: int, defs: list[int]):
        """The definition through which write ``w`` conflicts with read ``r``
        (upstream's inner loop of hasReadAfterWriteInterference), or None."""
        opnd_op = self.opnd_op
        rop, wop = opnd_op[r], opnd_op[w]
        if self.can_use_dominance(r, w, defs):
            if self.happens_before(rop, wop):
                return None
            if r == w:
                return None
            if self.mutually_exclusive(rop, wop):
                return None
            if rop == wop:
                s = self.sem[rop]
                if s.bufferizable and s.elementwise is not None and s.elementwise(self, (r, w)):
                    if self.equivalent_in_chain(r, self.operands[w]) or \
                            self.equivalent_in_chain(w, self.operands[r]):
                        return None
        # The definition loop runs before the (costlier) subset check: both
        # only rule conflicts out, so the order changes nothing but cost; the
        # definition reported is the first one that is not ruled out, as
        # upstream's.
        found = None
        for d in defs:
            dop = self.value_op[d]
            if dop >= 0:
                if self.happens_before(wop, dop):
                    continue
                if self.is_proper_ancestor(dop, wop):
                    continue
            else:
                if self.ancestor_in_block(self.value_block[d], wop) < 0:
                    continue
            al = self.aliasing_values(w)
            if len(al) == 1 and al[0][0] == d:
                continue
            found = d
            break
        if found is None or self.non_conflicting_subsets(r, w):
            return None
        return found

    def _report_conflict(self, decided: int, r: int, w: int, d: int) -> None:
        if self.opts.record:
            self.conflicts[decided] = Conflict(decided, r, w, d)
        if self.opts.print_conflicts:
            i = _COUNTERS["C"]
            _COUNTERS["C"] += 1
            wop, rop = self.opnd_op[w], self.opnd_op[r]
            self.annotations.append((wop, f"C_{i}[CONFL-WRITE: {w - self.ob[wop]}]"))
            self.annotations.append((rop, f"C_{i}[READ: {r - self.ob[rop]}]"))
            dop = self.value_op[d]
            if dop >= 0:
                self.annotations.append((dop, f"C_{i}[DEF: result {self.value_index[d]}]"))
            else:
                self.annotations.append(
                    (self.block_parent[self.value_block[d]], f"C_{i}[DEF: bbArg {self.value_index[d]}]"))

    def would_write_nonwritable(self, o: int, consistency_only: bool = False) -> bool:
        v = self.operands[o]
        aliases = [a for (a, _, _) in self.aliasing_values(o)]
        found_write = not consistency_only and self.write(o)
        if not found_write:
            found_write = self._has_inplace_writes([v] + aliases)
        if not found_write:
            return False
        nnw, find = self.n_nonwritable, self.alias.find
        if not any(nnw[find(x)] for x in [v] + aliases):
            return False
        hits = []
        for x in [v] + aliases:
            for m in self.alias.members(x):
                if not self.is_writable(m):
                    hits.append(m)
                    if self.opts.print_conflicts:
                        i = _COUNTERS["W"]
                        _COUNTERS["W"] += 1
                        mop = self.value_op[m]
                        if mop >= 0:
                            self.annotations.append((mop, f"W_{i}[NOT-WRITABLE: result {self.value_index[m]}]"))
                        else:
                            self.annotations.append((self.block_parent[self.value_block[m]],
                                                     f"W_{i}[NOT-WRITABLE: bbArg {self.value_index[m]}]"))
        if not consistency_only and self.opts.record:
            self.nonwritable_hits[o] = hits
        return True

    # ---------------------------------------------------------- decisions
    def bufferize_inplace(self, o: int) -> None:
        if self.inplace[o]:
            return
        self.inplace[o] = 1
        v = self.operands[o]
        if self.write(o):
            root = self.alias.find(v)
            self.n_inplace_writes[root] += 1
            if self.index is not None:
                self.index.add_write(root, o)
        for (a, _, _) in self.aliasing_values(o):
            self.union_alias(a, v)

    def union_alias(self, a: int, b: int) -> None:
        root, gone = self.alias.union(a, b)
        if gone >= 0:
            self.n_inplace_writes[root] += self.n_inplace_writes[gone]
            self.n_nonwritable[root] += self.n_nonwritable[gone]
            if self.index is not None:
                self.index.merge(root, gone)

    def analyze_operand(self, o: int) -> None:
        conflict = self.would_write_nonwritable(o) or self.would_create_raw(o)
        self.decided[o] = 1
        if not conflict:
            self.bufferize_inplace(o)

    def analyze_single_op(self, op: int) -> None:
        for o in self.tensor_operands(op):
            self.analyze_operand(o)


def _slice_key(an: Analysis, op: int):
    """Offsets, sizes and strides of a slice op, dynamic entries as value ids
    (constants folded to their value, like isEqualConstantIntOrValue)."""
    py = an.pyop(op)
    attrs = py.attributes
    dyn_begin = an.ob[op] + (1 if an.op_name[op] == "tensor.extract_slice" else 2)
    seg = list(attrs["operandSegmentSizes"])
    dyn = an.operands[dyn_begin : an.ob[op + 1]]
    pos = 0
    key = []
    dynamic = -(2**63)
    counts = seg[-3:]
    for name, count in zip(("static_offsets", "static_sizes", "static_strides"), counts):
        part = []
        for s in list(attrs[name]):
            if s == dynamic:
                val = dyn[pos]
                pos += 1
                const = _constant_index(an, val)
                part.append(("c", const) if const is not None else ("v", val))
            else:
                part.append(("c", s))
        key.append(tuple(part))
    return tuple(key)


def _constant_index(an: Analysis, v: int):
    op = an.value_op[v]
    if op < 0 or an.op_name[op] != "arith.constant":
        return None
    attr = an.pyop(op).attributes["value"]
    try:
        return ir.IntegerAttr(attr).value
    except (ValueError, TypeError):
        return None
