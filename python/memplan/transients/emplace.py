"""Rewrite a module so every planned transient lives in caller storage.

The rewrite is stated as one edit, plain data (a
``memplan._core.TransientEdit``, include/memplan/Transients/TransientEdit.h),
applied in one call on MLIR's C++ API (``memplan._core.apply_transient_edit``):
a program of steps (:class:`~memplan.ir.steps.Program`) that, at each planned
function's entry, computes the offsets, the callee sizes and the total (all
pure ``index`` arithmetic over the arguments, their slices cloned; the total
marked ``memplan.transient_size`` for the size-query pass) and the size
check, then the storage views passed to callees and the heap buffers of
callers without storage; the storage arguments to add, the calls to pass
storage to, and the allocations that become ``memref.view``s of the storage,
their deallocs erased. Python holds no op handle: graph op and value ids
name everything. The edit's fields live once, in C++: :func:`new_edit` and
:func:`apply_edit` fill and apply it, :func:`apply_emplacement` for an
emplacement.
"""

from __future__ import annotations

from typing import Callable

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


def new_edit() -> _core.TransientEdit:
    """An empty transient edit (``memplan._core.TransientEdit``) with
    emplacement's heap alignment, size-check message, size marker and
    size-query attribute."""
    edit = _core.TransientEdit()
    edit.alignment = HEAP_ALIGNMENT
    edit.message = ASSERT_MESSAGE
    edit.marker = SIZE_MARKER
    edit.symbol_attribute = QUERY_ATTR
    return edit


def _place(
    g: Graph, edit: _core.TransientEdit, placed: list[tuple[int, Step, Step]], erase: list[int]
) -> None:
    """Set ``edit``'s members: each allocation op of ``placed`` (op, buffer,
    offset) becomes a view of the buffer at the offset; its deallocs go (one
    as its own, any other, one per branch, with ``erase``)."""
    deallocs, others = [], list(erase)
    for op, _, _ in placed:
        frees = K.frees(g, int(g.result_begin[op]))
        deallocs.append(frees[0] if frees else -1)
        others += frees[1:]
    edit.allocs = [op for op, _, _ in placed]
    edit.deallocs = deallocs
    edit.buffer_step = [buffer.index for _, buffer, _ in placed]
    edit.offset_step = [offset.index for _, _, offset in placed]
    edit.erase = others


def apply_emplacement(
    g: Graph,
    prog: Program,
    new_arguments: list[int],
    marked: list[int],
    calls: list[tuple[int, int, int]],
    placed: list[tuple[int, Step, Step]],
    erase: list[int],
) -> None:
    """Apply an emplacement in one edit: ``prog``'s steps, storage arguments
    added to ``new_arguments``, the ``marked`` steps given ``SIZE_MARKER``,
    each of ``calls`` (call, argument, step) passed its storage, and each
    allocation of ``placed`` made a view (:func:`_place`)."""
    edit = new_edit()
    edit.new_arguments = new_arguments
    edit.marked = marked
    edit.calls = calls
    _place(g, edit, placed, erase)
    apply_edit(g, edit, prog)


def apply_edit(g: Graph, edit: _core.TransientEdit, prog: Program) -> None:
    """Apply ``edit``, its steps ``prog``'s, to the IR ``g`` was extracted
    from, in one call."""
    edit.steps = prog.steps
    edit.clone_operands = prog.clone_operands
    _core.apply_transient_edit(g, edit)


def emplace_module(plan: ModulePlan, assert_size: bool = True) -> dict[str, int]:
    """Apply ``plan`` (which must have no errors). Returns statistics."""
    g = plan.graph
    prog = Program()
    new_arguments: list[int] = []
    marked: list[int] = []  # the totals, marked SIZE_MARKER
    placed: list[tuple[int, Step, Step]] = []  # (alloc, storage, offset)
    erase: list[int] = []
    calls: list[tuple[int, int, int]] = []
    storage_of: dict[str, int] = {}  # function -> its storage argument
    # Per function: its storage, its items' offsets and its callees' sizes.
    entries: list[tuple[FunctionPlan, Step, dict[int, Step], dict[int, Step]]] = []
    for name, fp in plan.functions.items():
        if fp.storage_index is not None:
            index = fp.storage_index
        elif fp.needs_storage:
            index = int(g.block_num_args[entry_block(g, fp.func)])
            new_arguments.append(fp.func)
        else:
            continue
        storage_of[name] = index
        storage = prog.argument(fp.func, index)
        entries.append((fp, storage) + _emit_entry(g, prog, marked, fp, storage, assert_size))
    stats = {"emplaced": 0, "calls": 0, "heap-calls": 0}
    for fp, storage, offsets, call_sizes in entries:
        for item in fp.items:
            if item.kind == "alloc":
                allocs = (item.op,) + item.shared
                placed += [(op, storage, offsets[item.op]) for op in allocs]
                erase += item.erase
                stats["emplaced"] += len(allocs)
            else:
                prog.before(item.op)
                sub = prog.view(storage, offsets[item.op], call_sizes[item.op])
                calls.append((item.op, storage_of[g.callee(item.op) or ""], sub.index))
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
        calls.append((call, storage_of[callee], buffer.index))
        prog.after(call)
        prog.dealloc(buffer)
        stats["heap-calls"] += 1
    apply_emplacement(g, prog, new_arguments, marked, calls, placed, erase)
    return stats


def _emit_entry(
    g: Graph, prog: Program, marked: list[int], fp: FunctionPlan, storage: Step, assert_size: bool
) -> tuple[dict[int, Step], dict[int, Step]]:
    """The offsets and callee sizes of ``fp``'s items, computed at its entry,
    with its total (its step added to ``marked``) and the size check."""
    prog.entry_begin(fp.func)
    emitter = E.Emitter(prog, entry_resolver(g, fp.func, prog))
    offsets = {it.op: emitter.emit(it.offset) for it in fp.items}
    call_sizes = {it.op: emitter.emit(it.size) for it in fp.items if it.kind == "call"}
    total = emitter.emit(fp.total)
    if fp.storage_index is None:
        # Internal callees get views sized by their caller: nothing to check.
        return offsets, call_sizes
    marked.append(total.index)
    if assert_size and fp.total != E.Const(0):
        available = prog.dim(storage, emitter.constant(0))
        prog.assert_(prog.binary(_S.CMPULE, total, available))
    return offsets, call_sizes
