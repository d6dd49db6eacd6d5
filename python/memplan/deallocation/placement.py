"""Where ``memplan-buffer-deallocation`` frees each buffer, and what it leaves
to upstream's ownership-based deallocation. Never touches the IR.

A ``memref.alloc`` without any dealloc is freed by memplan when the lifetime
analysis understands every use of it (:mod:`memplan.lifetimes.analysis`: no
escape through a return, call, store, yield or region result, no use by an op
without memory effects information, no unknown or unstructured region): its
``memref.dealloc`` goes right after the op of its block that holds its last
use, through aliases, as ``optimize-allocation-liveness`` would place it.

Upstream's ``buffer-deallocation-pipeline`` is still needed when anything
carries ownership memplan does not follow: an allocation memplan does not
free and that is not simply returned by its function, a memref produced by a
call, a region-branch op or an op memplan does not model, a memref block
argument of a nested region, a returned memref that is not an allocation of
the function (upstream returns a copy the caller owns), or an allocation
outside the functions memplan analyzes. A function that returns an allocation it made (or one view of it,
once) hands it to its caller, which frees it; upstream's pass does nothing
else with it either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memplan.ir.graph import Graph, function_ids
from memplan.lifetimes import reasons as R
from memplan.lifetimes import roles as K
from memplan.lifetimes.analysis import FunctionLifetimes, LifetimeAnalysis

#: Reasons after which memplan does not free a buffer itself.
_NOT_UNDERSTOOD = 0
for _name in ("unknown-region", "unstructured-control-flow", "escapes-return", "escapes-call",
              "escapes-store", "escapes-block", "captured-by-unknown-region", "unknown-user",
              "async-not-awaited",
              "dealloc-in-other-block", "multiple-deallocs", "dealloc-through-alias"):
    _NOT_UNDERSTOOD |= R.bit(_name)
_RETURNED = R.bit("escapes-return") | R.bit("no-dealloc")


@dataclass
class DeallocPlan:
    """The deallocs memplan inserts, and what is left to upstream."""

    allocs: np.ndarray
    """Op ids of the allocations memplan frees (int32)."""
    after: np.ndarray
    """For each, the op its ``memref.dealloc`` goes right after."""
    left_to_upstream: list[tuple[int, str]] = field(default_factory=list)
    """(op id, why) of what needs upstream's ownership-based deallocation."""
    existing_deallocs: list[int] = field(default_factory=list)
    """Frees the input already has (upstream's pass rejects them)."""

    @property
    def upstream_needed(self) -> bool:
        """Some buffers are left to upstream's deallocation pipeline."""
        return bool(self.left_to_upstream)


def _returned_once(g: Graph, lt: FunctionLifetimes, row: int) -> bool:
    """The allocation's lifetime holds nothing memplan does not follow but a
    return, and exactly one returned value is it or a view of it: the caller
    gets the buffer and frees it once."""
    if int(lt.reasons[row]) != _RETURNED:
        return False
    returns = 0
    work = [int(lt.value[row])]
    seen = set(work)
    while work:
        value = work.pop()
        for u, _ in zip(g.use_op[g.use_begin[value]:g.use_begin[value + 1]].tolist(),
                        g.use_operand[g.use_begin[value]:g.use_begin[value + 1]].tolist()):
            kind = K.kind(g, u)
            if kind == K.RETURN:
                returns += 1
            elif kind == K.ALIAS:
                begin = int(g.result_begin[u])
                for r in range(begin, begin + int(g.num_results[u])):
                    if r not in seen:
                        seen.add(r)
                        work.append(r)
    return returns == 1


def _ownership_outside_allocs(g: Graph, functions: list[int]) -> list[tuple[int, str]]:
    """Memrefs that carry ownership memplan does not follow."""
    out: list[tuple[int, str]] = []
    memref = np.array([t.is_memref for t in g.types], dtype=bool)
    is_memref = memref[g.value_type]
    entry_blocks = {int(g.region_blocks[g.region_block_begin[g.region_begin[f]]]) for f in functions}
    for v in np.nonzero(is_memref)[0].tolist():
        op = int(g.value_op[v])
        if op < 0:
            block = int(g.value_block[v])
            if block not in entry_blocks:
                out.append((int(g.block_parent_op[block]), "a memref block argument of a nested region"))
            continue
        kind = K.kind(g, op)
        if kind == K.BRANCH:
            out.append((op, "a memref result of a region-branch op"))
        elif kind == K.CALL:
            out.append((op, "a memref returned by a call"))
        elif kind not in (K.ALLOC, K.ALLOCA, K.ALIAS):
            out.append((op, f"a memref result of {g.names[g.op_name[op]]}"))
    # A returned memref that is not (a view of) an allocation of the
    # function (an argument, a global): upstream returns a copy the caller
    # owns.
    for op in np.nonzero((g.op_role & 0xFF) == K.RETURN)[0].tolist():
        for v in g.operands[g.operand_begin[op]:g.operand_begin[op + 1]].tolist():
            if is_memref[v] and not _rooted_at_alloc(g, v, is_memref):
                out.append((op, "a returned memref that is not an allocation of the function"))
    return out


def _rooted_at_alloc(g: Graph, value: int, is_memref: np.ndarray) -> bool:
    """``value`` is an allocation's result, or a view of one through views
    whose first memref operand is their source."""
    while True:
        op = int(g.value_op[value])
        if op < 0:
            return False
        kind = K.kind(g, op)
        if kind == K.ALLOC:
            return True
        if kind != K.ALIAS:
            return False
        sources = [v for v in g.operands[g.operand_begin[op]:g.operand_begin[op + 1]].tolist() if is_memref[v]]
        if not sources:
            return False
        value = sources[0]


def plan_deallocation(g: Graph) -> DeallocPlan:
    """Which allocations of ``g``'s functions memplan frees, and after which op."""
    analysis = LifetimeAnalysis(g)
    functions = function_ids(g)
    allocs: list[int] = []
    after: list[int] = []
    left: list[tuple[int, str]] = []
    covered = 0
    no_dealloc = R.bit("no-dealloc")
    for f in functions:
        lt = analysis.function(f)
        covered += len(lt)
        for row in range(len(lt)):
            if lt.is_alloca[row]:
                continue
            mask = int(lt.reasons[row])
            if not mask & no_dealloc:
                continue  # it has its dealloc already
            op = int(lt.op[row])
            if mask & _NOT_UNDERSTOOD == 0:
                allocs.append(op)
                after.append(g.ancestor_in_block(int(g.op_block[op]), int(lt.last_use[row])))
            elif not _returned_once(g, lt, row):
                left.append((op, f"an allocation memplan does not free ({R.primary(mask & _NOT_UNDERSTOOD)})"))
    left += _ownership_outside_allocs(g, functions)
    alloc_kinds = np.array([K.ALLOC, K.ALLOCA])
    total = int(np.isin(g.op_role & 0xFF, alloc_kinds).sum())
    if total > covered:
        left.append((0, f"{total - covered} allocations outside the functions memplan analyzes"))
    existing = np.nonzero((g.op_role & 0xFF) == K.DEALLOC)[0].astype(int).tolist()
    return DeallocPlan(np.array(allocs, dtype=np.int32), np.array(after, dtype=np.int32), left, existing)


__all__ = ["DeallocPlan", "plan_deallocation"]
