"""Size-query functions: ``@<name>_transient_size`` for each storage function.

After emplacement, each function with caller storage computes its required
bytes at its entry, in pure ``index`` arithmetic over its arguments, marked
``memplan.transient_size``. The query is that computation cloned into a new
public function taking the same arguments minus the storage: no allocation,
no load of memref contents.
"""

from __future__ import annotations

from typing import Optional

from mlir import ir

from memplan.ir.graph import Graph, entry_block, extract_graph, operation
from memplan.ir.slices import Blocked, SliceAnalysis, clone_slice
from memplan.ir.steps import Program, cloner
from memplan.transients.contract import (
    QUERY_ATTR,
    QUERY_SUFFIX,
    find_storage,
    functions_by_name,
    planned_query,
)
from memplan.transients.emplace import SIZE_MARKER, apply_edit, new_edit

__all__ = [
    "QUERY_ATTR",
    "QUERY_SUFFIX",
    "CONSTANT_ATTR",
    "materialize_queries",
    "annotate_constant_sizes",
]

CONSTANT_ATTR = "memplan.transient_size"


def find_marker(graph: Graph, func_op: int) -> Optional[int]:
    """The op computing the function's transient size, if emplacement ran
    (emplacement puts it directly in the entry block)."""
    for op in range(func_op + 1, int(graph.op_end[func_op]) + 1):
        if graph.op_parent[op] != func_op:
            continue
        if graph.has_attribute(op, SIZE_MARKER):
            return op
    return None


def materialize_queries(graph: Graph, errors: list[tuple[int, str]]) -> list[str]:
    """Create the query functions, in one edit; returns their names.
    Problems go to ``errors``."""
    prog = Program()
    created: list[str] = []  # the query functions' names
    unmarked: list[int] = []
    symbols: list[tuple[int, int]] = []  # (function, its query's name)
    names = functions_by_name(graph)
    for name, f in names.items():
        storage = find_storage(graph, f)
        if storage.error or storage.index is None or planned_query(graph, f) in names:
            continue  # no storage, or planned already: its query stands
        marker = find_marker(graph, f)
        if marker is None:
            errors.append(
                (
                    f,
                    f"@{name} takes transient storage but has no computed size: run "
                    "memplan-emplace-transients first",
                )
            )
            continue
        query_name = name + QUERY_SUFFIX
        if query_name in names:
            errors.append((f, f"cannot create @{query_name}: the symbol already exists"))
            continue
        value = int(graph.result_begin[marker])
        sl = SliceAnalysis(graph, f).classify(value)
        if isinstance(sl, Blocked):
            errors.append((sl.op, f"the transient size of @{name} {sl.message}"))
            continue
        first_arg = int(graph.block_arg_begin[entry_block(graph, f)])
        if first_arg + storage.index in sl.args:
            errors.append((f, f"the transient size of @{name} depends on the storage itself"))
            continue
        # The query takes the function's arguments but the storage.
        prog.function(f, len(created), storage.index)
        arg_map = {}
        for a in sl.args:
            k = a - first_arg
            arg_map[a] = prog.new_argument(k - (1 if k > storage.index else 0))
        size = clone_slice(graph, sl, value, arg_map, cloner(graph, prog))
        prog.return_(size)
        unmarked += [size.index, prog.value(value).index]
        symbols.append((f, len(created)))
        created.append(query_name)
    if created:
        edit = new_edit()
        edit.names = created
        edit.unmarked = unmarked
        edit.symbols = symbols
        apply_edit(graph, edit, prog)
    return created


def annotate_constant_sizes(module: ir.Operation) -> int:
    """Put ``memplan.transient_size = N : index`` on functions whose query folded
    to a constant (its entry block returns the result of a constant op:
    ConstantLike); returns how many."""
    graph = extract_graph(module)
    funcs = functions_by_name(graph)
    constants: list[tuple[int, int]] = []  # (function, its constant size)
    for f in funcs.values():
        query = funcs.get(planned_query(graph, f) or "")
        if query is None or int(graph.op_end[query]) == query:
            continue
        block = entry_block(graph, query)
        ret = max(
            op
            for op in range(query + 1, int(graph.op_end[query]) + 1)
            if graph.op_block[op] == block
        )
        if int(graph.operand_begin[ret + 1]) - int(graph.operand_begin[ret]) != 1:
            continue
        owner = int(graph.value_op[graph.operands[graph.operand_begin[ret]]])
        value = graph.constant_int(owner) if owner >= 0 else None
        if value is not None:
            constants.append((f, value))
    for f, value in constants:
        operation(graph, f).attributes[CONSTANT_ATTR] = ir.IntegerAttr.get(
            ir.IndexType.get(), value
        )
    return len(constants)
