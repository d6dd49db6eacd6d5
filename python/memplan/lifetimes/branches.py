"""Buffers yielded out of mutually exclusive branches, freed after the merge.

After ``buffer-deallocation-pipeline`` an ``scf.if`` with a tensor result
becomes::

    %r = scf.if %c -> memref<..., strided<...>> {
      %a = memref.alloc() ...            // then-branch buffer
      %ca = memref.cast %a ...
      scf.yield %ca
    } else {
      %b = memref.alloc() ...            // else-branch buffer
      scf.yield %b
    }
    ... uses of %r ...
    %base, ... = memref.extract_strided_metadata %r
    memref.dealloc %base

``%a`` and ``%b`` escape their blocks, but exactly one of them exists at a
time, and the merged value is freed once, unconditionally, in the block of
the ``scf.if``. Such a *branch group* is pooled as one buffer: its members
share one offset, live from the ``scf.if`` to the last use of ``%r``, and the
merged dealloc goes away. :func:`find_branch_groups` recognises the pattern
conservatively (every branch must yield a fresh allocation of its own, the
merged value must have no unknown user, escape, or second dealloc). The
same holds for any region-branch op whose regions only return to it
(``roles.EXCLUSIVE``, from RegionBranchOpInterface: ``scf.index_switch``,
``scf.execute_region``, ``affine.if``, ...), its terminators forwarding to
its results as the interface says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph
from memplan.lifetimes import reasons as R
from memplan.lifetimes import roles as K
from memplan.lifetimes.spans import RowSpan


@dataclass(frozen=True)
class BranchGroup(RowSpan):
    """Allocations of the branches of one region op that merge into one result,
    live from the region op to the last use of the result."""

    region_op: int
    """The ``scf.if`` / ``scf.index_switch`` / ``scf.execute_region`` op."""
    result: int
    """Value id of the merged result."""
    dealloc: int
    """The one ``memref.dealloc`` that frees the merged value."""
    scope: int
    """The pooling scope of the region op's block: where the group is pooled."""


def closure(graph: Graph, value: int) -> tuple[set[int], list[tuple[int, int, int]]]:
    """Alias closure of ``value`` (the flow rules of the C++ kernel: views and
    other aliasing results, region-branch forwarding).

    Returns the values and every use as ``(value, op, operand)``.
    """
    values = {value}
    stack = [value]
    uses: list[tuple[int, int, int]] = []
    roles = graph.op_role

    def push(v: int) -> None:
        if v not in values:
            values.add(v)
            stack.append(v)

    def shaped(v: int) -> bool:
        t = graph.types[graph.value_type[v]]
        return t.is_memref or t.is_tensor

    while stack:
        v = stack.pop()
        for u in range(int(graph.use_begin[v]), int(graph.use_begin[v + 1])):
            op, k = int(graph.use_op[u]), int(graph.use_operand[u])
            uses.append((v, op, k))
            kind = int(roles[op]) & 0xFF
            if kind == K.ALIAS:
                for j in range(int(graph.num_results[op])):
                    rv = int(graph.result_begin[op]) + j
                    if shaped(rv):
                        push(rv)
            elif kind in (K.TERMINATOR, K.BRANCH):
                for target in K.flows(graph, op, k):
                    push(int(target))
    return values, uses


_CANDIDATE = R.bit("escapes-block") | R.bit("dealloc-through-alias") | R.bit("no-dealloc")


def branch_exit(graph: Graph, op: int) -> Optional[tuple[int, int, set[int], list]]:
    """(region op, result index, closure, uses) if ``op``'s buffer leaves its
    block only through its block's terminator, into a result of a merge op:
    a region-branch op whose regions are exclusive (each returns only to the
    op, ``roles.EXCLUSIVE``: ``scf.if``, ``scf.index_switch``,
    ``affine.if``, ...)."""
    block = int(graph.op_block[op])
    parent = int(graph.block_parent_op[block])
    if not int(graph.op_role[parent]) & K.EXCLUSIVE:
        return None
    values, uses = closure(graph, int(graph.result_begin[op]))
    exits = {
        (u_op, k)
        for _, u_op, k in uses
        if K.kind(graph, u_op) == K.TERMINATOR and graph.is_ancestor(int(graph.op_parent[u_op]), op)
    }
    if len(exits) != 1:
        return None
    ((y, k),) = exits
    if int(graph.op_block[y]) != block or int(graph.op_parent[y]) != parent:
        return None
    targets = K.flows(graph, y, k)
    if len(targets) != 1 or int(graph.value_op[targets[0]]) != parent:
        return None  # forwarded anywhere but to one result of the merge op
    return parent, int(graph.value_index[targets[0]]), values, uses


def find_branch_groups(
    graph: Graph,
    ops: np.ndarray,
    reasons: np.ndarray,
    sizes: np.ndarray,
    scopes: np.ndarray,
) -> list[BranchGroup]:
    """Branch groups among the allocations ``ops`` (rows of a FunctionLifetimes)."""
    rows = np.nonzero(
        ((reasons & ~_CANDIDATE) == 0)
        & ((reasons & R.bit("escapes-block")) != 0)
        & (sizes >= 0)
        & (scopes >= 0)
    )[0]
    by_exit: dict[tuple[int, int], list[tuple[int, set[int], list]]] = {}
    for row in rows:
        found = branch_exit(graph, int(ops[row]))
        if found is not None:
            parent, k, values, uses = found
            by_exit.setdefault((parent, k), []).append((int(row), values, uses))
    groups = []
    block_scopes = _core.block_scopes(graph)
    for (parent, k), members in by_exit.items():
        n_regions = int(graph.region_begin[parent + 1] - graph.region_begin[parent])
        blocks = {int(graph.op_block[ops[row]]) for row, _, _ in members}
        if len(members) != n_regions or len(blocks) != n_regions:
            continue  # some branch yields something else (an argument, a view, ...)
        result = int(graph.result_begin[parent]) + k
        t = _core.analyze_lifetimes(graph, np.array([result], dtype=np.int32))
        # Freed directly or through an alias (the merged type usually has a
        # dynamic strided layout: that is fine); nothing else.
        if int(t["reasons"][0]) & ~(R.bit("non-identity-layout") | R.bit("dealloc-through-alias")):
            continue  # the merged value escapes, has unknown users, or is not freed once
        r_values, r_uses = closure(graph, result)
        frees = [op for v, op, _ in r_uses if K.kind(graph, op) == K.DEALLOC]
        if len(frees) != 1 or int(graph.op_block[frees[0]]) != int(graph.op_block[parent]):
            continue
        ok = True
        for _, values, uses in members:
            # Inside its branch a member is never freed; outside it is the merged value.
            if any(K.kind(graph, op) == K.DEALLOC and v not in r_values for v, op, _ in uses):
                ok = False
        # One member exists on every path through the region op: a slot of
        # their size holds no byte more than the branch taken needs only
        # when the sizes are equal.
        scope = int(block_scopes[graph.op_block[parent]])
        if not ok or scope < 0 or len({int(sizes[row]) for row, _, _ in members}) != 1:
            continue
        end = max(int(graph.op_end[parent]), int(t["last_use"][0])) + 1
        groups.append(
            BranchGroup(
                rows=tuple(sorted(row for row, _, _ in members)),
                region_op=parent,
                result=result,
                dealloc=int(frees[0]),
                scope=scope,
                start=parent,
                end=end,
            )
        )
    return groups


__all__ = ["BranchGroup", "branch_exit", "closure", "find_branch_groups"]
