"""Rewrite a module so every planned transient lives in caller storage.

Two phases, because the graph's op handles must stay valid while the plan is
read: first, at each planned function's entry, emit the offsets, the callee
sizes and the total (all pure ``index`` arithmetic over the arguments, marked
``memplan.transient_size`` for the size-query pass) plus the size check;
then replace allocations with ``memref.view``s and drop their deallocs (the
C++ kernel the pool edit uses, ``memplan._core.replace_allocs_with_views``),
and pass storage sub-views to callees.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, cf, memref
from mlir.dialects.func import CallOp

from memplan import _core
from memplan.ir import sizeexpr as E
from memplan.ir.graph import Graph, operation
from memplan.ir.slices import Hoistable, SliceAnalysis, clone_slice, ir_value
from memplan.lifetimes import roles as K
from memplan.transients.contract import add_storage_argument, storage_type
from memplan.transients.plan import (
    FunctionPlan,
    ModulePlan,
    PathLeaf,
    function_of,
    seen_through_call,
)

SIZE_MARKER = "memplan.transient_size"
ASSERT_MESSAGE = "memplan: transient storage is smaller than the required size"


class LeafResolver:
    """Materializes path leaves at one insertion point.

    ``base`` gives the value of a leaf of the emitting function itself; a leaf
    behind calls is the callee's slice cloned with its arguments bound to the
    call operands, themselves resolved one level up.
    """

    def __init__(self, graph: Graph, ip: ir.InsertionPoint, base: Callable[[int], ir.Value]):
        self.graph = graph
        self.ip = ip
        self.base = base
        self._slices: dict[int, SliceAnalysis] = {}
        self._memo: dict[tuple[int, tuple[int, ...]], ir.Value] = {}
        self._caches: dict[tuple[int, ...], dict[int, ir.Value]] = {}

    def __call__(self, leaf: E.Leaf) -> ir.Value:
        path = leaf.path if isinstance(leaf, PathLeaf) else ()
        return self.resolve(leaf.value, path)

    def resolve(self, value: int, path: tuple[int, ...]) -> ir.Value:
        """The ``ir.Value`` of graph value ``value`` read through ``path``,
        materialized once."""
        key = (value, path)
        if key in self._memo:
            return self._memo[key]
        if not path:
            result = self.base(value)
        else:
            g = self.graph
            call = path[-1]
            func = function_of(g, value)
            analysis = self._slices.setdefault(func, SliceAnalysis(g, func))
            sl = analysis.classify(value)
            assert isinstance(sl, Hoistable), "planned leaves are hoistable"
            first_arg = int(g.block_arg_begin[analysis.entry_block])
            operands = g.operands[g.operand_begin[call] : g.operand_begin[call + 1]]
            arg_map = {a: self.resolve(int(operands[a - first_arg]), path[:-1]) for a in sl.args}
            result = clone_slice(g, sl, value, self.ip, arg_map, self._caches.setdefault(path, {}))
        self._memo[key] = result
        return result


def entry_resolver(graph: Graph, func: int, ip: ir.InsertionPoint) -> LeafResolver:
    """Leaves of ``func`` recomputed at its entry from its own arguments."""
    analysis = SliceAnalysis(graph, func)
    cache: dict[int, ir.Value] = {}

    def base(value: int) -> ir.Value:
        sl = analysis.classify(value)
        assert isinstance(sl, Hoistable)
        arg_map = {a: ir_value(graph, a) for a in sl.args}
        return clone_slice(graph, sl, value, ip, arg_map, cache)

    return LeafResolver(graph, ip, base)


class _FunctionRewrite:
    """The values emitted at one function's entry, for phase two."""

    def __init__(
        self,
        fp: FunctionPlan,
        storage: ir.Value,
        offsets: dict[int, ir.Value],
        call_sizes: dict[int, ir.Value],
    ):
        self.fp = fp
        self.storage = storage
        self.offsets = offsets
        self.call_sizes = call_sizes


def emplace_module(plan: ModulePlan, assert_size: bool = True) -> dict[str, int]:
    """Apply ``plan`` (which must have no errors). Returns statistics."""
    g = plan.graph
    rewrites: dict[str, _FunctionRewrite] = {}
    storage_of: dict[str, tuple[ir.Value, int]] = {}  # callee -> (storage arg, index)
    # Phase 1: storage arguments and entry computations.
    for name, fp in plan.functions.items():
        func_op = operation(g, fp.func)
        entry = func_op.regions[0].blocks[0]
        if fp.storage_index is not None:
            storage = entry.arguments[fp.storage_index]
            storage_of[name] = (storage, fp.storage_index)
        elif fp.needs_storage:
            storage = add_storage_argument(func_op, attribute=False)
            storage_of[name] = (storage, len(entry.arguments) - 1)
        else:
            continue
        rewrites[name] = _emit_entry(g, fp, func_op, storage, assert_size)
    # Phase 2: rewrite allocations and calls.
    stats = {"emplaced": 0, "calls": 0, "heap-calls": 0}
    for name, rw in rewrites.items():
        for item in rw.fp.items:
            if item.kind == "alloc":
                allocs = (item.op,) + item.shared
                _replace_allocs(g, allocs, rw.storage, rw.offsets[item.op])
                stats["emplaced"] += len(allocs)
                for op in item.erase:
                    operation(g, op).erase()
            else:
                callee = _callee(g, item.op)
                with ir.InsertionPoint(operation(g, item.op)), operation(g, item.op).location:
                    sub = memref.ViewOp(
                        storage_type(), rw.storage, rw.offsets[item.op], [rw.call_sizes[item.op]]
                    ).result
                _rebuild_call(g, item.op, sub, storage_of[callee][1])
                stats["calls"] += 1
    for call in plan.heap_calls:
        callee = _callee(g, call)
        _heap_call(g, plan.functions[callee], call, storage_of[callee][1])
        stats["heap-calls"] += 1
    return stats


def _emit_entry(
    g: Graph, fp: FunctionPlan, func_op: ir.Operation, storage: ir.Value, assert_size: bool
) -> _FunctionRewrite:
    entry = func_op.regions[0].blocks[0]
    ip = ir.InsertionPoint.at_block_begin(entry)
    emitter = E.Emitter(ip, func_op.location, entry_resolver(g, fp.func, ip))
    offsets = {it.op: emitter.emit(it.offset) for it in fp.items}
    call_sizes = {it.op: emitter.emit(it.size) for it in fp.items if it.kind == "call"}
    total = emitter.emit(fp.total)
    if fp.storage_index is None:
        # Internal callees get views sized by their caller: nothing to check.
        return _FunctionRewrite(fp, storage, offsets, call_sizes)
    total.owner.attributes[SIZE_MARKER] = ir.UnitAttr.get()
    if assert_size and fp.total != E.Const(0):
        with ip, func_op.location:
            available = memref.DimOp(storage, emitter.constant(0)).result
            fits = arith.CmpIOp(arith.CmpIPredicate.ule, total, available).result
            cf.AssertOp(fits, ASSERT_MESSAGE)
    return _FunctionRewrite(fp, storage, offsets, call_sizes)


def _replace_allocs(g: Graph, allocs: tuple[int, ...], storage: ir.Value, offset: ir.Value) -> None:
    """Each of ``allocs`` becomes ``memref.view %storage[%offset][its dynamic
    sizes]`` and its deallocs go, through the pool rewrite's C++ kernel."""
    deallocs, others = [], []
    for op in allocs:
        frees = K.frees(g, int(g.result_begin[op]))
        # One dealloc per allocation; any other (one per branch) is erased
        # with them.
        deallocs.append(frees[0] if frees else -1)
        others += frees[1:]
    _core.replace_allocs_with_views(
        g,
        np.array(allocs, dtype=np.int32),
        np.array(deallocs, dtype=np.int32),
        storage,
        [offset],
        np.zeros(len(allocs), dtype=np.int32),
        np.array(others, dtype=np.int32),
    )


def _callee(g: Graph, call: int) -> str:
    """The symbol a call calls (CallOpInterface), or ""."""
    return g.callee(call) or ""


def _rebuild_call(g: Graph, call_id: int, storage: ir.Value, index: int) -> ir.Operation:
    """Replace a call with one that passes ``storage`` as argument ``index``."""
    old = operation(g, call_id)
    operands = list(old.operands)
    if index < len(operands):
        operands[index] = storage
    else:
        operands.append(storage)
    with ir.InsertionPoint(old), old.location:
        new = CallOp([r.type for r in old.results], _callee(g, call_id), operands).operation
    for name in old.attributes:
        if name not in ("callee", "arg_attrs"):
            new.attributes[name] = old.attributes[name]
    for a, b in zip(old.results, new.results):
        a.replace_all_uses_with(b)
    old.erase()
    return new


def _heap_call(g: Graph, callee: FunctionPlan, call_id: int, index: int) -> None:
    """Around a call from a function without storage: a heap buffer of the
    callee's size, passed as its storage and freed after the call."""
    call = operation(g, call_id)
    ip = ir.InsertionPoint(call)
    resolver = LeafResolver(g, ip, lambda v: ir_value(g, v))
    size = E.Emitter(ip, call.location, resolver).emit(
        seen_through_call(callee.total, call_id, callee.name)
    )
    with ip, call.location:
        buf = memref.AllocOp(storage_type(), [size], [], alignment=64).result
    new = _rebuild_call(g, call_id, buf, index)
    with ir.InsertionPoint.after(new), new.location:
        memref.DeallocOp(buf)
