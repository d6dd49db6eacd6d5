"""Extract the compact graph of an MLIR op tree through the C++ core.

The graph (``memplan._core.Graph``) numbers ops in pre-order (the extracted op
is op 0), values in the same walk, and exposes its tables as read-only numpy
arrays; see ``include/memplan/IR/Graph.h`` for the layout.
"""

from __future__ import annotations

from typing import Callable, Union

import numpy as np
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
    """Extract the graph of ``op`` (a module, a function, any op) and its regions.

    The graph keeps ``op`` alive: its tables point at the IR it came from.
    """
    operation_ = _as_operation(op)
    graph = _core.extract_graph(operation_._CAPIPtr)
    graph._source = op  # the op (or module) owning the IR the graph points into
    return graph


def operation(graph: Graph, op_id: int) -> ir.Operation:
    """The live ``ir.Operation`` behind op ``op_id`` of ``graph``.

    Valid only while the IR the graph was extracted from is unchanged there.
    """
    return ir.Operation._CAPICreate(graph.op_capsule(op_id))


def ir_value(graph: Graph, value: int) -> ir.Value:
    """The live ``ir.Value`` for a graph value id."""
    op = int(graph.value_op[value])
    if op >= 0:
        return operation(graph, op).results[int(graph.value_index[value])]
    block = int(graph.value_block[value])
    region = int(graph.block_region[block])
    owner = int(graph.block_parent_op[block])
    region_index = region - int(graph.region_begin[owner])
    blocks = list(
        graph.region_blocks[graph.region_block_begin[region] : graph.region_block_begin[region + 1]]
    )
    ir_block = operation(graph, owner).regions[region_index].blocks[blocks.index(block)]
    return ir_block.arguments[int(graph.value_index[value])]


def function_ids(graph: Graph, nested: bool = False) -> list[int]:
    """Ids of the functions (FunctionOpInterface: ``func.func``, ...) directly
    inside the root op; with ``nested``, also those directly inside a
    ``builtin.module`` nested in it (a host module: not a ``gpu.module``,
    whose functions run on a device)."""
    funcs = np.nonzero((graph.op_role & 0xFF) == _core.LifetimeRole.FUNC)[0]
    parents = graph.op_parent[funcs]
    keep = parents == 0
    if nested:
        # builtin.module is MLIR's own ModuleOp, the container memplan
        # descends into.
        is_module = (graph.op_interfaces[np.maximum(parents, 0)] & _core.OpInterface.MODULE) != 0
        keep |= (parents > 0) & is_module
    return funcs[keep].tolist()


def qualified_function_name(graph: Graph, op_id: int) -> str:
    """A function's name as a symbol reference from the root: ``inner::@f``
    for ``@f`` in a nested ``module @inner`` (plain ``f`` at the root, or in a
    nested module without a name)."""
    name = function_name(graph, op_id)
    parent = int(graph.op_parent[op_id])
    while parent > 0:
        module = graph.str_attribute(parent, "sym_name")
        if int(graph.op_interfaces[parent]) & _core.OpInterface.MODULE and module is not None:
            name = f"{module}::@{name}"
        parent = int(graph.op_parent[parent])
    return name


def entry_block(graph: Graph, op_id: int) -> int:
    """Block id of the first block of the op's first region (a function's entry)."""
    return int(graph.region_blocks[graph.region_block_begin[graph.region_begin[op_id]]])


def function_name(graph: Graph, op_id: int) -> str:
    """Symbol name of a function op (without the ``@``)."""
    name = graph.str_attribute(op_id, "sym_name")
    return name if name is not None else "<anonymous>"


def is_public(graph: Graph, op_id: int) -> bool:
    """A symbol op (function) without ``sym_visibility``, or with ``"public"``."""
    visibility = graph.str_attribute(op_id, "sym_visibility")
    return visibility is None or visibility == "public"


def value_namer(graph: Graph, func_op: int) -> Callable[[int], str]:
    """SSA names (``%dim``, ``%arg0``) as the printer picks them for values of
    ``func_op``; ``%v<id>`` where a name cannot be had."""
    state = ir.AsmState(operation(graph, func_op))
    cache: dict[int, str] = {}

    def name(v: int) -> str:
        if v not in cache:
            try:
                cache[v] = ir_value(graph, v).get_name(state)
            except Exception:  # naming is cosmetic; never fail a pass over it
                cache[v] = f"%v{v}"
        return cache[v]

    return name
