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

Where the rows or the columns are not a multiple of the tile, the whole
tiles are split off first (the rest runs as it was), so that every tile has
static sizes. In the no-overlap branch each tile is then computed in
register tiles (:func:`register_tile`): for each block of ``REGISTER_ROWS``
rows by one vector of ``REGISTER_BYTES`` of the output, the block is loaded
into vector registers once, every reduction step runs on them, and the
block is stored once. The tiled loops stored and reloaded the output tile
at every reduction step: LLVM cannot keep it in registers, as it does not
know that the output overlaps no input (21 GFLOP/s on GPT-2's matmuls).
Each output element still goes through the same body ops in the same
reduction order, lane by lane, so the bits are the same.

Eligible: a ``linalg.generic`` directly in an outlined kernel (or in the
loop over the tiles of an input packed by the lowering, reading the packed
copy: a matmul whose weight is read through a transposed map), whose loops
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
from mlir.dialects import affine, arith, func, linalg, memref, scf, vector

from memplan import _core
from memplan.ir.interfaces import has_interface

from .outline import KERNEL_PREFIX

__all__ = [
    "tile_for_reuse",
    "tiling",
    "loop_sizes",
    "register_tile",
    "TILE_ROWS",
    "TILE_COLUMNS",
    "REGISTER_BYTES",
    "REGISTER_ROWS",
]

#: Rows of the output (iterations of the last outer parallel loop) per tile.
TILE_ROWS = 8
#: Iterations of the innermost (parallel) loop per tile.
TILE_COLUMNS = 64
#: Discardable attribute naming a generic's tiling (an index into the
#: configurations of one :func:`tile_for_reuse` call) until it is applied.
_MARK = "memplan.tile"
#: Discardable attribute on a tile of a tiled generic, for :func:`register_tile`.
_REGISTER_MARK = "memplan.register_tile"
#: Bytes of the output row segment a register tile holds per row, and its
#: rows: 8 rows of 128 bytes (32 f32) are 16 AVX-512 registers of
#: accumulators. Measured with bench/bench_kernels.py on GPT-2's matmuls
#: (docs/numerics.md): 8 rows of 64 bytes reached 43 GFLOP/s on 128x512x2048
#: where 128 bytes reach 55 and 4 rows of 256 bytes 54; on a machine with 16
#: vector registers (AVX2) 128 bytes spill, with the same bits.
REGISTER_BYTES = 128
REGISTER_ROWS = 8


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


def loop_sizes(op: ir.Operation) -> List[Optional[int]]:
    """The size of each loop of a generic, read from the first operand that
    a loop indexes directly (``None`` where that dimension is dynamic, or
    no operand indexes the loop alone)."""
    n = len(ir.ArrayAttr(op.attributes["iterator_types"]))
    sizes: List[Optional[int]] = [None] * n
    for value, attr in zip(op.operands, ir.ArrayAttr(op.attributes["indexing_maps"])):
        if not isinstance(value.type, ir.MemRefType):
            continue
        shape = ir.MemRefType(value.type).shape
        for k, expr in enumerate(ir.AffineMapAttr(attr).value.results):
            d = _dim(expr)
            if d is not None and sizes[d] is None and not ir.ShapedType.is_dynamic_size(shape[k]):
                sizes[d] = shape[k]
    return sizes


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


def _register_plan(op: ir.Operation) -> Optional[Tuple[List[int], int, int]]:
    """``(loop sizes, rows, lanes)`` of a register tile of ``op`` (a tile
    :func:`tile_for_reuse` made: outer parallel loops, the reductions, the
    rows, the columns), or ``None`` where :func:`register_tile` leaves it."""
    generic = op.opview
    if len(generic.outputs) != 1 or len(op.regions[0].blocks) != 1:
        return None
    iters = [_is_reduction(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    n = len(iters)
    sizes = loop_sizes(op)
    if n < 3 or iters[-1] or iters[-2] or None in sizes:
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    if any(m.n_symbols for m in maps):
        return None
    # Each output element is written by the iterations of one point of the
    # parallel loops: the output is indexed by each parallel loop, plainly.
    out_dims = [_dim(e) for e in maps[-1].results]
    if sorted(d for d in out_dims if d is not None) != [d for d in range(n) if not iters[d]]:
        return None
    if None in out_dims or out_dims[-1] != n - 1:
        return None
    block = op.regions[0].blocks[0]
    scalar = (ir.IntegerType, ir.FloatType, ir.IndexType)
    if not all(isinstance(a.type, scalar) for a in block.arguments):
        return None
    bit = int(_core.OpInterface.ELEMENTWISE_MAPPABLE) | int(_core.OpInterface.CONSTANT_LIKE)
    body = list(block.operations)[:-1]
    for inner in body:
        if not has_interface(inner, bit) or inner.operation.regions:
            return None
        if not all(isinstance(r.type, scalar) for r in inner.results):
            return None
        if not has_interface(inner, _core.OpInterface.ELEMENTWISE_MAPPABLE) and inner.operands:
            return None
    width = ir.MemRefType(op.operands[-1].type).element_type.width // 8
    lanes = max(1, REGISTER_BYTES // width)
    while sizes[-1] % lanes:
        lanes //= 2
    rows = min(REGISTER_ROWS, sizes[-2])
    while sizes[-2] % rows:
        rows -= 1
    return sizes, rows, lanes


def register_tile(op: ir.Operation) -> bool:
    """Compute a tile of :func:`tile_for_reuse` (a generic with static sizes
    whose input overlaps no output: it runs in the no-overlap branch) with
    the output held in vector registers across the reductions: for each
    ``rows`` x ``lanes`` block of the output, load the block once (one
    vector per row), run every reduction step on the vectors (each body op
    applied lane by lane: ElementwiseMappable ops only) and store the block
    once. Each output element goes through the same body ops, on the same
    inputs, in the same reduction order as in the loops, so the bits are
    the same; what changes is only that the partial results stay in
    registers instead of being stored and reloaded at each step (LLVM
    cannot do that itself: it does not know that the output does not
    overlap the inputs). Returns whether ``op`` was replaced."""
    plan = _register_plan(op)
    if plan is None:
        return False
    sizes, rows, lanes = plan
    n = len(sizes)
    iters = [_is_reduction(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    operands = list(op.operands)
    block = op.regions[0].blocks[0]
    index = ir.IndexType.get()
    ivs: List[Optional[ir.Value]] = [None] * n

    def const(v: int) -> ir.Value:
        return arith.ConstantOp(index, ir.IntegerAttr.get(index, v)).result

    def vector_type(t: ir.Type) -> ir.Type:
        return ir.VectorType.get([lanes], t)

    def indices(amap: ir.AffineMap, row: ir.Value) -> List[ir.Value]:
        """The indices ``amap`` gives at the current loop point, with
        ``row`` for the rows' loop."""
        point = [row if d == n - 2 else v for d, v in enumerate(ivs)]
        out = []
        for expr in amap.results:
            d = _dim(expr)
            if d is not None:
                out.append(point[d])
            else:
                single = ir.AffineMap.get(n, 0, [expr])
                out.append(affine.AffineApplyOp(single, point).result)
        return out

    by_row = re.compile(rf"\bd{n - 2}\b")

    def step(row: ir.Value, acc: ir.Value, shared: Dict[int, ir.Value]) -> ir.Value:
        """One reduction step of one row: the body on vectors (the inputs
        that do not depend on the row read once per step, into
        ``shared``)."""
        values: Dict[ir.Value, ir.Value] = {}
        broadcasts: Dict[ir.Value, ir.Value] = {}

        def lane_wise(value: ir.Value) -> ir.Value:
            value = values.get(value, value)
            if isinstance(value.type, ir.VectorType):
                return value
            if value not in broadcasts:
                broadcasts[value] = vector.BroadcastOp(vector_type(value.type), value).result
            return broadcasts[value]

        for k, (value, amap) in enumerate(zip(operands[:-1], maps[:-1])):
            arg = block.arguments[k]
            rowwise = any(by_row.search(str(e)) for e in amap.results)
            if not rowwise and k in shared:
                values[arg] = shared[k]
                continue
            at = indices(amap, row)
            if any(_dim(e) == n - 1 for e in amap.results):
                values[arg] = vector.LoadOp(vector_type(arg.type), value, at).result
            else:
                values[arg] = memref.LoadOp(value, at).result
            if not rowwise:
                shared[k] = values[arg]
        values[block.arguments[len(operands) - 1]] = acc
        ops = list(block.operations)
        for inner in ops[:-1]:
            if not inner.operands:  # a constant: stays a scalar
                copy = inner.operation.clone()
                for old, new in zip(inner.results, copy.results):
                    values[old] = new
                continue
            copy = ir.Operation.create(
                inner.operation.name,
                results=[vector_type(r.type) for r in inner.results],
                operands=[lane_wise(v) for v in inner.operands],
                attributes={k: inner.operation.attributes[k] for k in inner.operation.attributes},
            )
            for old, new in zip(inner.results, copy.results):
                values[old] = new
        return lane_wise(ops[-1].operands[0])

    reductions = [d for d in range(n) if iters[d]]
    outer = [d for d in range(n - 2) if not iters[d]]

    def reduce(level: int, rows_at: List[ir.Value], accs: List[ir.Value]) -> List[ir.Value]:
        if level == len(reductions):
            shared: Dict[int, ir.Value] = {}
            return [step(r, a, shared) for r, a in zip(rows_at, accs)]
        d = reductions[level]
        loop = scf.ForOp(const(0), const(sizes[d]), const(1), accs)
        with ir.InsertionPoint(loop.body):
            ivs[d] = loop.induction_variable
            scf.YieldOp(reduce(level + 1, rows_at, list(loop.inner_iter_args)))
        return list(loop.results)

    def block_of_output() -> None:
        base = ivs[n - 2]
        rows_at = [base] + [arith.AddIOp(base, const(r)).result for r in range(1, rows)]
        out_type = vector_type(ir.MemRefType(operands[-1].type).element_type)
        accs = [vector.LoadOp(out_type, operands[-1], indices(maps[-1], r)).result for r in rows_at]
        results = reduce(0, rows_at, accs)
        for r, result in zip(rows_at, results):
            vector.StoreOp(result, operands[-1], indices(maps[-1], r))

    def parallel(dims: List[Tuple[int, int]]) -> None:
        if not dims:
            block_of_output()
            return
        d, stride = dims[0]
        loop = scf.ForOp(const(0), const(sizes[d]), const(stride))
        with ir.InsertionPoint(loop.body):
            ivs[d] = loop.induction_variable
            parallel(dims[1:])
            scf.YieldOp([])

    with ir.InsertionPoint(op), op.location:
        parallel([(d, 1) for d in outer] + [(n - 2, rows), (n - 1, lanes)])
    op.erase()
    return True


def _kernel_generics(block: ir.Block) -> List[linalg.GenericOp]:
    """The generics with inputs of a kernel's body ``block``: those directly
    in it and those in the ``scf.for`` loops over tiles of a packed strided
    input (``lib/Numerics/PackStridedReads.cpp``: the op on each tile reads
    the input's packed copy, and is a matmul-like kernel like any other)."""
    found: List[linalg.GenericOp] = []
    for op in block.operations:
        if isinstance(op, linalg.GenericOp) and len(op.operands) > 1:
            found.append(op)
        elif isinstance(op, scf.ForOp):
            found.extend(_kernel_generics(op.body))
    return found


def tile_for_reuse(module: ir.Module) -> int:
    """Tile every eligible generic of the outlined kernels (module doc);
    returns how many."""
    targets: List[Tuple[ir.Operation, Tuple[List[int], List[int], List[int]]]] = []
    for fn in module.body.operations:
        if not isinstance(fn, func.FuncOp) or not fn.regions[0].blocks:
            continue
        if not ir.StringAttr(fn.attributes["sym_name"]).value.startswith(KERNEL_PREFIX):
            continue
        for op in _kernel_generics(fn.regions[0].blocks[0]):
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
        sizes = loop_sizes(tiled)
        handle = f"%m{number}"
        split = ""
        # Whole tiles first, with static sizes (what LLVM vectorizes well,
        # and what register tiles need), then the rest of the columns, and
        # of the rows of the whole column tiles, as they were.
        row = tile.index(TILE_ROWS, 1) - 1
        for dim, step in ((len(tile) - 1, tile[0]), (row, TILE_ROWS)):
            extent = sizes[dim]
            if not step or not extent % step:
                continue
            split += (
                f"%s{dim}_{number} = transform.structured.split {handle} after "
                f"{extent - extent % step} {{dimension = {dim}}} : !transform.any_op\n"
                f"%a{dim}_{number}, %b{dim}_{number} = transform.split_handle "
                f"%s{dim}_{number} : (!transform.any_op) -> (!transform.any_op, "
                "!transform.any_op)\n"
            )
            handle = f"%a{dim}_{number}"
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
            f'transform.annotate %i{number} "{_REGISTER_MARK}" : !transform.any_op\n'
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

    tiles: List[ir.Operation] = []

    def unmark(op: ir.Operation) -> ir.WalkResult:
        if _MARK in op.attributes:
            del op.attributes[_MARK]
        if _REGISTER_MARK in op.attributes:
            del op.attributes[_REGISTER_MARK]
            tiles.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(unmark, ir.WalkOrder.PRE_ORDER)
    with module.context:
        for op in tiles:
            register_tile(op)
    return len(targets)
