"""Extract the compact graph of an MLIR op tree through the C++ core.

The graph (``memplan._core.Graph``) numbers ops in pre-order (the extracted op
is op 0), values in the same walk, and exposes its tables as read-only numpy
arrays; see ``include/memplan/graph.h`` for the layout.
"""

from __future__ import annotations

from typing import Union

from mlir import ir

from memplan import _core

Graph = _core.Graph
TypeInfo = _core.TypeInfo

OpLike = Union[ir.Operation, ir.OpView, ir.Module]


def _as_operation(op: OpLike) -> ir.Operation:
    if isinstance(op, ir.Module):
        return op.operation
    if isinstance(op, ir.OpView):
        return op.operation
    return op


def extract_graph(op: OpLike) -> Graph:
    """Extract the graph of ``op`` (a module, a function, any op) and its regions."""
    return _core.extract_graph(_as_operation(op)._CAPIPtr)


def operation(graph: Graph, op_id: int) -> ir.Operation:
    """The live ``ir.Operation`` behind op ``op_id`` of ``graph``.

    Valid only while the IR the graph was extracted from is unchanged there.
    """
    return ir.Operation._CAPICreate(graph.op_capsule(op_id))


def function_ids(graph: Graph) -> list[int]:
    """Ids of the ``func.func`` ops directly inside the root op."""
    func = graph.name_id("func.func")
    if func < 0:
        return []
    names = graph.op_name
    parents = graph.op_parent
    return [i for i in range(graph.num_ops) if names[i] == func and parents[i] == 0]


def function_name(graph: Graph, op_id: int) -> str:
    """Symbol name of a function op (without the ``@``)."""
    attr = graph.attribute(op_id, "sym_name")
    return attr.strip('"') if attr is not None else "<anonymous>"
