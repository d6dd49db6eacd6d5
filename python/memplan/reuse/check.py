"""Check a pooled module: no two views live at the same time share a byte.

Independent of the plan that produced the IR: it finds every view
(ViewLikeOpInterface) of a heap allocation of ``i8`` bytes placed as
``memref.view`` places one, recomputes the live interval of each view (with
the lifetime kernel, through all aliases), reads its constant byte offset and
its static size, and verifies each pool with
:func:`memplan.packing.verify` (plus bounds against a static pool size).
Views with a dynamic offset or size are counted in ``unchecked``. Views
yielded out of the exclusive branches of one ``scf.if`` into the same result
(a branch group) at the same offset count as one buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from memplan import _core, packing
from memplan.ir.graph import extract_graph
from memplan.lifetimes.branches import branch_exit
from memplan.lifetimes import roles as K
from memplan.lifetimes.reasons import bit
from memplan.lifetimes.sizes import static_bytes

_ESCAPES_BLOCK = bit("escapes-block")


@dataclass
class CheckResult:
    """What :func:`check_module` found."""

    pools: int = 0
    views: int = 0
    unchecked: int = 0
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No violation was found."""
        return not self.violations


def check_module(module: ir.Operation | ir.Module) -> CheckResult:
    """Verify every pool of ``module`` (see the module docstring)."""
    g = extract_graph(module)
    # A pool as the rewrite builds it: views of a heap allocation at constant
    # byte offsets. The offset is read statically, and no interface states a
    # view's byte offset: ViewLikeOpInterface gives the source only, and
    # OffsetSizeAndStrideOpInterface (subview, reinterpret_cast) offsets
    # count elements from the source's aligned pointer, while memref.view
    # moves that pointer by the operand after its source and gives an
    # identity layout. So a member is a view whose result has the identity
    # layout and whose operand after the source is the byte shift (what
    # memref.view is); other views are not read here (the run-time oracle,
    # memplan.reuse.oracle, measures any view's bytes).
    result = CheckResult()
    by_pool: dict[int, list[tuple[int, int, int]]] = {}
    for op in np.nonzero(g.view_source >= 0)[0]:
        op = int(op)
        begin, source = int(g.operand_begin[op]), int(g.view_source[op])
        src = int(g.operands[begin + source])
        src_op = int(g.value_op[src])
        if src_op < 0 or K.kind(g, src_op) != K.ALLOC or int(g.num_results[op]) != 1:
            continue
        identity = g.types[g.value_type[g.result_begin[op]]].identity_layout
        if begin + source + 1 >= int(g.operand_begin[op + 1]) or not identity:
            continue
        shift = int(g.operands[begin + source + 1])
        shift_op = int(g.value_op[shift])
        size = static_bytes(g.types[g.value_type[g.result_begin[op]]])
        offset = g.constant_int(shift_op) if shift_op >= 0 else None
        if offset is None or size is None:
            result.unchecked += 1
            continue
        by_pool.setdefault(src, []).append((op, offset, size))
    for pool, members in by_pool.items():
        result.pools += 1
        result.views += len(members)
        ops = np.array([m[0] for m in members], dtype=np.int32)
        roots = np.ascontiguousarray(g.result_begin[ops], dtype=np.int32)
        t = _core.analyze_lifetimes(g, roots)
        offsets = np.array([m[1] for m in members], dtype=np.int64)
        sizes = np.array([m[2] for m in members], dtype=np.int64)
        starts = t["start"].astype(np.int64)
        ends = t["last_use"].astype(np.int64) + 1
        # Views yielded out of exclusive branches into one merged result never
        # exist together: at one offset they are one buffer.
        keep = np.ones(len(members), dtype=bool)
        merged: dict[tuple[int, int, int], int] = {}
        for j, (op, off, size) in enumerate(members):
            if not int(t["reasons"][j]) & _ESCAPES_BLOCK:
                continue
            found_exit = branch_exit(g, op)
            if found_exit is None:
                continue
            key = (found_exit[0], found_exit[1], off)
            if key in merged:
                first = merged[key]
                sizes[first] = max(sizes[first], size)
                keep[j] = False
            else:
                merged[key] = j
        ops, starts, ends, sizes, offsets = ops[keep], starts[keep], ends[keep], sizes[keep], offsets[keep]
        pool_bytes = static_bytes(g.types[g.value_type[pool]])
        found = packing.verify(
            starts, ends, sizes, offsets,
            alignment=1, pool_size=pool_bytes, limit=100,
        )
        for v in found:
            a = g.location(int(ops[v.buffer]))
            b = g.location(int(ops[v.other])) if v.other >= 0 else ""
            result.violations.append(f"{v.kind}: view at {a} {('and view at ' + b) if b else ''}".strip())
    return result


__all__ = ["CheckResult", "check_module"]
