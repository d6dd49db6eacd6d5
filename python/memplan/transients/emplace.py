"""Rewrite a module so every planned transient lives in caller storage.

The rewrite is stated as one edit, plain data, applied in one call on
MLIR's C++ API (``memplan._core.apply_transient_edit``,
include/memplan/Transients/TransientEdit.h): a program of steps
(:class:`~memplan.ir.steps.Program`) that, at each planned function's entry,
computes the offsets, the callee sizes and the total (all pure ``index``
arithmetic over the arguments, their slices cloned; the total marked
``memplan.transient_size`` for the size-query pass) and the size check, then
the storage views passed to callees and the heap buffers of callers without
storage; the storage arguments to add, the calls to pass storage to, and the
allocations that become ``memref.view``s of the storage, their deallocs
erased. Python holds no op handle: graph op and value ids name everything.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from memplan import _core
from memplan.ir import sizeexpr as E
from memplan.ir.graph import Graph, entry_block
from memplan.ir.slices import Hoistable, SliceAnalysis, clone_slice
from memplan.ir.steps import Program, Step, cloner
from memplan.lifetimes import roles as K
from memplan.transients.contract import QUERY_ATTR
from memplan.transients.plan import (
    FunctionPlan,
    ModulePlan,
    PathLeaf,
    function_of,
    seen_through_call,
)

SIZE_MARKER = "memplan.transient_size"
ASSERT_MESSAGE = "memplan: transient storage is smaller than the required size"
#: The alignment of the heap buffers given to callees by callers without storage.
HEAP_ALIGNMENT = 64

_S = _core.EditStep


class LeafResolver:
    """Materializes path leaves at the program's insertion point.

    ``base`` gives the step of a leaf of the emitting function itself; a leaf
    behind calls is the callee's slice cloned with its arguments bound to the
    call operands, themselves resolved one level up.
    """

    def __init__(self, graph: Graph, program: Program, base: Callable[[int], Step]):
        self.graph = graph
        self.program = program
        self.base = base
        self._slices: dict[int, SliceAnalysis] = {}
        self._memo: dict[tuple[int, tuple[int, ...]], Step] = {}
        self._caches: dict[tuple[int, ...], dict[int, Step]] = {}

    def __call__(self, leaf: E.Leaf) -> Step:
        path = leaf.path if isinstance(leaf, PathLeaf) else ()
        return self.resolve(leaf.value, path)

    def resolve(self, value: int, path: tuple[int, ...]) -> Step:
        """The step of graph value ``value`` read through ``path``, made once."""
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
            clone = cloner(g, self.program)
            result = clone_slice(g, sl, value, arg_map, clone, self._caches.setdefault(path, {}))
        self._memo[key] = result
        return result


def entry_resolver(graph: Graph, func: int, program: Program) -> LeafResolver:
    """Leaves of ``func`` recomputed at its entry from its own arguments."""
    analysis = SliceAnalysis(graph, func)
    cache: dict[int, Step] = {}

    def base(value: int) -> Step:
        sl = analysis.classify(value)
        assert isinstance(sl, Hoistable)
        arg_map = {a: program.value(a) for a in sl.args}
        return clone_slice(graph, sl, value, arg_map, cloner(graph, program), cache)

    return LeafResolver(graph, program, base)


class TransientEdit:
    """A module's transient edit as it is stated: the program and what it
    changes (include/memplan/Transients/TransientEdit.h)."""

    def __init__(self) -> None:
        self.program = Program()
        self.new_arguments: list[int] = []
        #: The unit attribute the new arguments get ("": none).
        self.storage_marker = ""
        #: The names of the functions the program's Function steps make.
        self.names: list[str] = []
        #: The steps whose op gets ``SIZE_MARKER``, and those whose op loses it.
        self.marked: list[int] = []
        self.unmarked: list[int] = []
        self.allocs: list[int] = []
        self.deallocs: list[int] = []
        self.buffer_step: list[int] = []
        self.offset_step: list[int] = []
        self.erase: list[int] = []
        self.calls: list[tuple[int, int, int]] = []
        #: (function, name): the function names its size query
        #: (``QUERY_ATTR``, a symbol reference to ``names[name]``).
        self.queries: list[tuple[int, int]] = []

    def place(self, g: Graph, op: int, buffer: Step, offset: Step) -> None:
        """Allocation ``op`` becomes a view of ``buffer`` at ``offset``; its
        deallocs go (one as its own, any other, one per branch, with it)."""
        frees = K.frees(g, int(g.result_begin[op]))
        self.allocs.append(op)
        self.deallocs.append(frees[0] if frees else -1)
        self.erase += frees[1:]
        self.buffer_step.append(buffer.index)
        self.offset_step.append(offset.index)

    def apply(self, g: Graph) -> None:
        """Apply the edit to the IR ``g`` was extracted from, in one call."""

        def i32(values: list) -> np.ndarray:
            return np.array(values, dtype=np.int32)

        _core.apply_transient_edit(
            g,
            new_arguments=i32(self.new_arguments),
            storage_marker=self.storage_marker,
            steps=self.program.array(),
            clone_operands=np.array(self.program.clone_operands, dtype=np.int64),
            alignment=HEAP_ALIGNMENT,
            message=ASSERT_MESSAGE,
            names=self.names,
            marked=np.array(self.marked, dtype=np.int64),
            unmarked=np.array(self.unmarked, dtype=np.int64),
            marker=SIZE_MARKER,
            allocs=i32(self.allocs),
            deallocs=i32(self.deallocs),
            buffer_step=i32(self.buffer_step),
            offset_step=i32(self.offset_step),
            erase=i32(self.erase),
            calls=i32(self.calls).reshape(-1, 3),
            symbols=i32(self.queries).reshape(-1, 2),
            symbol_attribute=QUERY_ATTR,
        )


def emplace_module(plan: ModulePlan, assert_size: bool = True) -> dict[str, int]:
    """Apply ``plan`` (which must have no errors). Returns statistics."""
    g = plan.graph
    edit = TransientEdit()
    prog = edit.program
    storage_of: dict[str, int] = {}  # function -> its storage argument
    # Per function: its storage, its items' offsets and its callees' sizes.
    entries: list[tuple[FunctionPlan, Step, dict[int, Step], dict[int, Step]]] = []
    for name, fp in plan.functions.items():
        if fp.storage_index is not None:
            index = fp.storage_index
        elif fp.needs_storage:
            index = int(g.block_num_args[entry_block(g, fp.func)])
            edit.new_arguments.append(fp.func)
        else:
            continue
        storage_of[name] = index
        storage = prog.argument(fp.func, index)
        entries.append((fp, storage) + _emit_entry(g, edit, fp, storage, assert_size))
    stats = {"emplaced": 0, "calls": 0, "heap-calls": 0}
    for fp, storage, offsets, call_sizes in entries:
        for item in fp.items:
            if item.kind == "alloc":
                allocs = (item.op,) + item.shared
                for op in allocs:
                    edit.place(g, op, storage, offsets[item.op])
                edit.erase += item.erase
                stats["emplaced"] += len(allocs)
            else:
                prog.before(item.op)
                sub = prog.view(storage, offsets[item.op], call_sizes[item.op])
                edit.calls.append((item.op, storage_of[g.callee(item.op) or ""], sub.index))
                stats["calls"] += 1
    for call in plan.heap_calls:
        # Around a call from a function without storage: a heap buffer of the
        # callee's size, passed as its storage and freed after the call.
        callee = g.callee(call) or ""
        prog.before(call)
        resolver = LeafResolver(g, prog, prog.value)
        size = E.Emitter(prog, resolver).emit(
            seen_through_call(plan.functions[callee].total, call, callee)
        )
        buffer = prog.pool(size)
        edit.calls.append((call, storage_of[callee], buffer.index))
        prog.after(call)
        prog.dealloc(buffer)
        stats["heap-calls"] += 1
    edit.apply(g)
    return stats


def _emit_entry(
    g: Graph, edit: TransientEdit, fp: FunctionPlan, storage: Step, assert_size: bool
) -> tuple[dict[int, Step], dict[int, Step]]:
    """The offsets and callee sizes of ``fp``'s items, computed at its entry,
    with its total (marked) and the size check."""
    prog = edit.program
    prog.entry_begin(fp.func)
    emitter = E.Emitter(prog, entry_resolver(g, fp.func, prog))
    offsets = {it.op: emitter.emit(it.offset) for it in fp.items}
    call_sizes = {it.op: emitter.emit(it.size) for it in fp.items if it.kind == "call"}
    total = emitter.emit(fp.total)
    if fp.storage_index is None:
        # Internal callees get views sized by their caller: nothing to check.
        return offsets, call_sizes
    edit.marked.append(total.index)
    if assert_size and fp.total != E.Const(0):
        available = prog.dim(storage, emitter.constant(0))
        prog.assert_(prog.binary(_S.CMPULE, total, available))
    return offsets, call_sizes
