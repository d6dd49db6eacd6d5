"""``memplan-test-apply-transient-edit``: apply transient storage stated by
attributes.

A test pass for transient emplacement without its planner: it states the
edit :mod:`memplan.transients.emplace` would from attributes and applies it
with ``memplan._core.apply_transient_edit``, so that lit tests pin down the
rewrite alone. In a function that takes storage (its ``memplan.transients``
argument, or one the edit adds to a function carrying
``memplan.test_add_storage``):

* a ``memref.alloc`` carrying ``memplan.test_offset = N`` becomes a view of
  the storage at byte N and its deallocs go;
* a call carrying ``memplan.test_offset = N`` and ``memplan.test_size = M``
  passes the callee M bytes of the storage at N, after its other operands.

The function's required bytes (the largest end) are computed at its entry,
and for a ``memplan.transients`` function marked ``memplan.transient_size``
and, with ``assert-size``, checked against the storage. In a function
without storage, a call carrying only ``memplan.test_size = M`` passes a heap
buffer of M bytes, freed after it. Offsets are taken as given, overlaps
included. A member with a dynamic size or a negative offset, or an offset in
a function without storage, is a located error and nothing is changed.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.ir.graph import entry_block, extract_graph, function_ids, operation
from memplan.ir.steps import Program, Step
from memplan.lifetimes import roles as K
from memplan.passes import PassContext
from memplan.transients.contract import find_storage
from memplan.transients.emplace import apply_emplacement

#: The attributes stating the edit.
OFFSET = "memplan.test_offset"
SIZE = "memplan.test_size"
ADD_STORAGE = "memplan.test_add_storage"

_S = _core.EditStep
_PASS = "memplan-test-apply-transient-edit"


def _members(graph: _core.Graph, func: int, ctx: PassContext) -> list[tuple[int, int, int]]:
    """(op, offset, bytes) of the allocs and calls of ``func`` placed in its
    storage, after located errors for the malformed ones."""
    members = []
    for op in range(func + 1, int(graph.op_end[func]) + 1):
        offset = graph.int_attribute(op, OFFSET)
        if offset is None:
            continue
        if K.kind(graph, op) == K.CALL:
            size = graph.int_attribute(op, SIZE)
            if size is None or size < 0:
                ctx.error(operation(graph, op), f"{_PASS}: a call in storage needs {SIZE} >= 0")
                continue
        else:
            info = graph.types[graph.value_type[graph.result_begin[op]]]
            if not info.has_static_shape:
                ctx.error(operation(graph, op), f"{_PASS}: a member must have a static size")
                continue
            size = info.static_bytes
        if offset < 0:
            ctx.error(operation(graph, op), f"{_PASS}: a member's offset must not be negative")
            continue
        members.append((op, offset, size))
    return members


def run(module: ir.Operation, ctx: PassContext) -> None:
    graph = extract_graph(module)
    prog = Program()
    new_arguments: list[int] = []
    marked: list[int] = []
    placed: list[tuple[int, Step, Step]] = []  # (alloc, storage, offset)
    calls: list[tuple[int, int, int]] = []
    heap: list[tuple[int, int]] = []
    planned = []
    for f in function_ids(graph):
        storage = find_storage(graph, f)
        index = storage.index if storage.error is None else None
        added = graph.has_attribute(f, ADD_STORAGE)
        if added and index is None:
            index = int(graph.block_num_args[entry_block(graph, f)])
        members = _members(graph, f, ctx)
        if index is None:
            if members:
                ctx.error(operation(graph, f), f"{_PASS}: {OFFSET} in a function without storage")
            for op in range(f + 1, int(graph.op_end[f]) + 1):
                if K.kind(graph, op) == K.CALL and graph.int_attribute(op, SIZE) is not None:
                    heap.append((op, graph.int_attribute(op, SIZE)))
            continue
        planned.append(
            (f, index, added and storage.index is None, storage.index is not None, members)
        )
    if ctx.failed:
        return
    for f, index, add, root, members in planned:
        if add:
            new_arguments.append(f)
        prog.entry_begin(f)
        buffer = prog.argument(f, index)
        step = {offset: prog.constant(offset) for _, offset, _ in members}
        total = prog.constant(max([offset + size for _, offset, size in members], default=0))
        if root:
            marked.append(total.index)
            if ctx.options["assert_size"]:
                available = prog.dim(buffer, prog.constant(0))
                prog.assert_(prog.binary(_S.CMPULE, total, available))
        for op, offset, size in members:
            if K.kind(graph, op) == K.CALL:
                prog.before(op)
                view = prog.view(buffer, step[offset], prog.constant(size))
                calls.append((op, _num_operands(graph, op), view.index))
                continue
            placed.append((op, buffer, step[offset]))
    for call, size in heap:
        prog.before(call)
        buffer = prog.pool(prog.constant(size))
        calls.append((call, _num_operands(graph, call), buffer.index))
        prog.after(call)
        prog.dealloc(buffer)

    apply_emplacement(graph, prog, new_arguments, marked, calls, placed, [])
    ctx.stat("functions", len(planned), "Functions given storage")


def _num_operands(graph: _core.Graph, op: int) -> int:
    return int(graph.operand_begin[op + 1]) - int(graph.operand_begin[op])


__all__ = ["ADD_STORAGE", "OFFSET", "SIZE", "run"]
