"""Matmul-like kernels tiled for cache reuse, with the same bits.

After :func:`~memplan.numerics.loop_order.hoist_reductions` a matmul runs
``for i, for k, for j: C[i, j] += A[i, k] * B[k, j]``: every ``(i, k)``
streams a whole row of ``B`` (a model's weight: megabytes, from the last
level cache or memory) for a handful of operations per element. A code
generator tiles it; so does :func:`tile_for_reuse`, in the outlined kernels:
``for j0 (step TILE_COLUMNS), for i0 (step TILE_ROWS), for k, for i, for j``.
Each row segment of ``B`` is then read once for ``TILE_ROWS`` rows of ``C``,
and the tile of ``C`` stays in the first-level cache. Where the columns are
not a multiple of ``TILE_COLUMNS`` (GPT-2's 50257-word output layer), the
op is first split into the whole tiles and the rest, so that the tiles have
static sizes (with one dynamic size throughout, that layer ran at 6.8
GFLOP/s, against 22.8 for a 3072-column matmul).

Only parallel loops are split and moved: each output element still sees its
reduction in the same order, so the values are the same bit for bit, as
long as no input overlaps the output (the op's meaning on buffers is then
its loop order). Each tiled kernel checks that at run time, from its
operands' addresses and extents, and runs the op as it was where an input
overlaps the output. Both sides of a comparison are lowered alike.

Eligible: a ``linalg.generic`` directly in an outlined kernel, whose loops
(after hoisting) are outer parallel ones, then the reductions, then one
parallel loop, all with static sizes, whose operands have static strides,
and whose innermost loop reads each input contiguously or not at all
(strided reads are :mod:`~memplan.numerics.lowering`'s packing's business).
The tiles are made by upstream's ``transform.structured.tile_using_for`` and
``transform.structured.interchange``.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from mlir import ir, passmanager
from mlir.dialects import arith, func, linalg, memref, scf

from .outline import KERNEL_PREFIX

__all__ = ["tile_for_reuse", "tiling", "TILE_ROWS", "TILE_COLUMNS"]

#: Rows of the output (iterations of the last outer parallel loop) per tile.
TILE_ROWS = 8
#: Iterations of the innermost (parallel) loop per tile.
TILE_COLUMNS = 64
#: Discardable attribute naming a generic's tiling (an index into the
#: configurations of one :func:`tile_for_reuse` call) until it is applied.
_MARK = "memplan.tile"


def _is_reduction(attr: ir.Attribute) -> bool:
    return "reduction" in str(attr)


def _dim(expr: ir.AffineExpr) -> Optional[int]:
    expr = expr.maybe_downcast()
    return expr.position if isinstance(expr, ir.AffineDimExpr) else None


def tiling(op: ir.Operation) -> Optional[Tuple[List[int], List[int], List[int]]]:
    """``(interchange, tile sizes, interchange)`` of an eligible generic
    (module doc), else ``None``: the op's loops are reordered (the columns
    first), tiled (a size of 0 leaves a loop whole; the tile loops nest in
    the op's new order) and the tiled op's loops reordered again. An
    interchange lists the op's dimensions in their new order."""
    iters = [_is_reduction(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    n = len(iters)
    if n < 3 or iters[-1] or not any(iters):
        return None
    first = iters.index(True)
    last = n - 1 - iters[::-1].index(True)
    if first == 0 or not all(iters[first : last + 1]) or last != n - 2:
        return None
    if any(len(inner.operation.regions) for inner in op.regions[0].blocks[0].operations):
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    operands = list(op.operands)
    if len(maps) != len(operands) or len(op.results):
        return None
    sizes: Dict[int, int] = {}
    for value, amap in zip(operands, maps):
        if not isinstance(value.type, ir.MemRefType):
            return None
        mtype = ir.MemRefType(value.type)
        if not mtype.has_static_shape:
            return None
        elem = mtype.element_type
        if not hasattr(elem, "width") or elem.width % 8:
            return None
        try:
            strides, _ = mtype.get_strides_and_offset()
        except Exception:  # noqa: BLE001 - not a strided layout
            return None
        if any(s == ir.ShapedType.get_dynamic_stride_or_offset() for s in strides):
            return None
        results = [_dim(e) for e in amap.results]
        for k, d in enumerate(results):
            if d is not None:
                sizes[d] = mtype.shape[k]
        inner = re.compile(rf"\bd{n - 1}\b")
        for k, expr in enumerate(amap.results):
            if inner.search(str(expr)) and (
                k != len(results) - 1 or results[k] != n - 1 or strides[-1] != 1
            ):
                return None  # the innermost loop walks it with a stride
    if any(d not in sizes for d in range(n)):
        return None
    row = first - 1
    if sizes[row] <= TILE_ROWS:
        return None
    # The columns' tile loop outermost, then the rows': a column strip of
    # the weight stays in cache for every row tile (GPT-2's output layer
    # reads 154 MB of weights; row tiles outermost streamed it 32 times).
    first_order = [n - 1] + list(range(first)) + list(range(first, last + 1))
    tile = [0] * n
    tile[1 + row] = TILE_ROWS
    if sizes[n - 1] > TILE_COLUMNS:
        tile[0] = TILE_COLUMNS
    order = [1 + d for d in range(row)] + [1 + d for d in range(first, last + 1)] + [1 + row, 0]
    return first_order, tile, order


def tiling_columns(op: ir.Operation) -> int:
    """The static size of the innermost loop of an eligible generic."""
    n = len(ir.ArrayAttr(op.attributes["iterator_types"]))
    for value, attr in zip(op.operands, ir.ArrayAttr(op.attributes["indexing_maps"])):
        results = [_dim(e) for e in ir.AffineMapAttr(attr).value.results]
        if n - 1 in results:
            return ir.MemRefType(value.type).shape[results.index(n - 1)]
    raise ValueError("no operand is indexed by the innermost loop")


def _range(value: ir.Value) -> Tuple[ir.Value, ir.Value]:
    """``[begin, end)`` byte addresses of the elements ``value`` (a memref
    with static sizes and strides) may reach."""
    mtype = ir.MemRefType(value.type)
    strides, _ = mtype.get_strides_and_offset()
    index = ir.IndexType.get()
    item = mtype.element_type.width // 8
    extent = 1 + sum((size - 1) * stride for size, stride in zip(mtype.shape, strides))

    def const(v: int) -> ir.Value:
        return arith.ConstantOp(index, ir.IntegerAttr.get(index, v)).result

    base = memref.ExtractAlignedPointerAsIndexOp(value).result
    offset = memref.ExtractStridedMetadataOp(value).results[1]
    begin = arith.AddIOp(base, arith.MulIOp(offset, const(item)).result).result
    return begin, arith.AddIOp(begin, const(extent * item)).result


def _guarded(op: ir.Operation) -> ir.Operation:
    """Put ``op`` in ``scf.if (an input overlaps the output) {op as it is}
    else {op}``; returns the op of the else branch (the one to tile)."""
    with ir.InsertionPoint(op), op.location:
        out_begin, out_end = _range(op.operands[-1])
        overlap = None
        for value in list(op.operands)[:-1]:
            begin, end = _range(value)
            pred = arith.CmpIPredicate.ult
            both = arith.AndIOp(
                arith.CmpIOp(pred, begin, out_end).result, arith.CmpIOp(pred, out_begin, end).result
            ).result
            overlap = both if overlap is None else arith.OrIOp(overlap, both).result
        if_op = scf.IfOp(overlap, has_else=True)
        with ir.InsertionPoint(if_op.then_block):
            op.clone()
            scf.YieldOp([])
        with ir.InsertionPoint(if_op.else_block):
            tiled = op.clone()
            scf.YieldOp([])
    op.erase()
    return tiled


def tile_for_reuse(module: ir.Module) -> int:
    """Tile every eligible generic of the outlined kernels (module doc);
    returns how many."""
    targets: List[Tuple[ir.Operation, Tuple[List[int], List[int], List[int]]]] = []
    for fn in module.body.operations:
        if not isinstance(fn, func.FuncOp) or not fn.regions[0].blocks:
            continue
        if not ir.StringAttr(fn.attributes["sym_name"]).value.startswith(KERNEL_PREFIX):
            continue
        for op in fn.regions[0].blocks[0].operations:
            if isinstance(op, linalg.GenericOp) and len(op.operands) > 1:
                plan = tiling(op.operation)
                if plan is not None:
                    targets.append((op.operation, plan))
    if not targets:
        return 0
    i64 = ir.IntegerType.get_signless(64, module.context)
    steps = []
    for number, (op, (first_order, tile, order)) in enumerate(targets):
        tiled = _guarded(op)
        tiled.attributes[_MARK] = ir.IntegerAttr.get(i64, number)
        count = sum(1 for t in tile if t)
        loops = ", ".join(["!transform.any_op"] * count)
        columns = tiling_columns(tiled)
        handle = f"%m{number}"
        split = ""
        if tile[0] and columns % TILE_COLUMNS:
            # Whole tiles first, with static sizes (what LLVM vectorizes
            # well), then the rest of the columns as they were.
            handle = f"%a{number}"
            split = (
                f"%s{number} = transform.structured.split %m{number} after "
                f"{columns - columns % TILE_COLUMNS} {{dimension = {len(tile) - 1}}} "
                ": !transform.any_op\n"
                f"%a{number}, %b{number} = transform.split_handle %s{number} "
                ": (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
            )
        steps.append(
            f'%m{number} = transform.structured.match ops{{["linalg.generic"]}} '
            f"attributes{{{_MARK} = {number} : i64}} in %root "
            ": (!transform.any_op) -> !transform.any_op\n"
            + split
            + f"%p{number} = transform.structured.interchange {handle} "
            f"iterator_interchange = {list(first_order)} "
            ": (!transform.any_op) -> !transform.any_op\n"
            f"%t{number}, %l{number}:{count} = transform.structured.tile_using_for %p{number} "
            f"tile_sizes {list(tile)} : (!transform.any_op) -> (!transform.any_op, {loops})\n"
            f"%i{number} = transform.structured.interchange %t{number} "
            f"iterator_interchange = {list(order)} : (!transform.any_op) -> !transform.any_op\n"
        )
    script = ir.Module.parse(
        "module {\nmodule attributes {transform.with_named_sequence} {\n"
        "transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" + "".join(steps) + "transform.yield\n}\n}\n}",
        module.context,
    )
    holder = script.body.operations[0].operation
    holder.move_after(list(module.body.operations)[-1])
    try:
        passmanager.PassManager.parse("builtin.module(transform-interpreter)", module.context).run(
            module.operation
        )
    finally:
        holder.erase()

    def unmark(op: ir.Operation) -> ir.WalkResult:
        if _MARK in op.attributes:
            del op.attributes[_MARK]
        return ir.WalkResult.ADVANCE

    module.operation.walk(unmark, ir.WalkOrder.PRE_ORDER)
    return len(targets)
