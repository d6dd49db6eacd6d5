"""Loop order of ``linalg.generic`` ops for fast, bit-identical execution.

``convert-linalg-to-loops`` nests loops in the order of the iteration
domain, and linalg puts reduction dimensions last: a matmul becomes
``for i, for j, for k: C[i,j] += A[i,k] * B[k,j]``.  The innermost loop then
carries a floating-point dependence that LLVM may not reorder (that would
change the bits), so it runs one add per add latency and never vectorizes.

:func:`hoist_reductions` moves the reduction loops outward, just outside one
parallel loop that becomes innermost: ``for i, for k, for j``.  Every
output element still sees its reduction in exactly the same order (the
reduction dimensions keep their relative order and stay lexicographic), so
the values are the same bit for bit; only independent elements are now
interleaved, and the innermost loop (independent stores along the output's
last dimension) vectorizes.  The checker applies it to both versions of a
program alike.

It edits attributes in place: the ``indexing_maps`` are composed with the
permutation, ``iterator_types`` are permuted and ``linalg.index`` ops in the
body get their new dimension number.
"""

from __future__ import annotations

from typing import List, Optional

from mlir import ir
from mlir.dialects import linalg

__all__ = ["hoist_reductions", "reduction_hoisting_order"]


def _is_reduction(attr: ir.Attribute) -> bool:
    return "reduction" in str(attr)


def reduction_hoisting_order(
    iterators: List[bool], output_map: ir.AffineMap
) -> Optional[List[int]]:
    """New loop order (old dimension per new position), or ``None`` to keep it.

    ``iterators[d]`` is True for a reduction dimension.  The innermost new
    loop is the parallel dimension indexing the output's last dimension; the
    reductions go right outside it, everything else keeps its order.
    """
    n = len(iterators)
    if n < 2 or not iterators[-1] or all(iterators):
        return None
    results = list(output_map.results)
    if not results:
        return None
    last = results[-1]
    inner = None
    for d in range(n):
        if not iterators[d] and str(last) == f"d{d}":
            inner = d
    if inner is None:
        return None
    outer = [d for d in range(n) if not iterators[d] and d != inner]
    order = outer + [d for d in range(n) if iterators[d]] + [inner]
    return None if order == list(range(n)) else order


def _permute(op: ir.Operation, order: List[int]) -> None:
    n = len(order)
    new_pos = [0] * n  # old dimension -> new position
    for pos, old in enumerate(order):
        new_pos[old] = pos
    with op.context:
        subst = ir.AffineMap.get(n, 0, [ir.AffineExpr.get_dim(new_pos[d]) for d in range(n)])
        maps = []
        for attr in ir.ArrayAttr(op.attributes["indexing_maps"]):
            amap = ir.AffineMapAttr(attr).value
            exprs = [e.compose(subst) for e in amap.results]
            maps.append(ir.AffineMapAttr.get(ir.AffineMap.get(n, amap.n_symbols, exprs)))
        op.attributes["indexing_maps"] = ir.ArrayAttr.get(maps)
        iters = list(ir.ArrayAttr(op.attributes["iterator_types"]))
        op.attributes["iterator_types"] = ir.ArrayAttr.get([iters[old] for old in order])
        index_type = ir.IntegerType.get_signless(64)
        for block in op.regions[0].blocks:
            for inner in block.operations:
                if isinstance(inner, linalg.IndexOp):
                    dim = ir.IntegerAttr(inner.operation.attributes["dim"]).value
                    inner.operation.attributes["dim"] = ir.IntegerAttr.get(index_type, new_pos[dim])


def hoist_reductions(module: ir.Module) -> int:
    """Reorder the loops of every eligible ``linalg.generic`` (see module doc).

    Ops whose body holds regions (nested loops) are left alone.  Returns the
    number of ops reordered.
    """
    targets = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if isinstance(op.opview, linalg.GenericOp):
            targets.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    count = 0
    for op in targets:
        if any(len(inner.operation.regions) for inner in op.regions[0].blocks[0].operations):
            continue
        iters = [_is_reduction(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
        order = reduction_hoisting_order(iters, maps[-1])
        if order is not None:
            _permute(op, order)
            count += 1
    return count
