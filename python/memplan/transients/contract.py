"""The IR contract: which function argument is the caller's transient storage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mlir import ir

from memplan.ir.graph import (  # noqa: F401 (is_public re-exported)
    Graph,
    function_ids,
    function_name,
    is_public,
    operation,
)

ATTR = "memplan.transients"
#: The size query of a planned function: ``@<name>_transient_size``, named by
#: the function's ``memplan.transient_size_fn`` attribute.
QUERY_SUFFIX = "_transient_size"
QUERY_ATTR = "memplan.transient_size_fn"


@dataclass(frozen=True)
class StorageArg:
    """The storage argument of a function (or why the marking is invalid)."""

    func: int
    index: Optional[int]  # argument number, None when the function has none
    error: Optional[str] = None


def storage_type() -> ir.Type:
    """``memref<?xi8>``: the only accepted storage type."""
    return ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], ir.IntegerType.get_signless(8))


def marked_arguments(func_op: ir.Operation) -> list[int]:
    """Indices of the arguments carrying ``memplan.transients``."""
    if "arg_attrs" not in func_op.attributes:
        return []
    marked = []
    for i, attrs in enumerate(ir.ArrayAttr(func_op.attributes["arg_attrs"])):
        if ATTR in ir.DictAttr(attrs):
            marked.append(i)
    return marked


def find_storage(graph: Graph, func: int) -> StorageArg:
    """The function's storage argument, checked against the contract."""
    op = operation(graph, func)
    marked = marked_arguments(op)
    name = function_name(graph, func)
    if not marked:
        return StorageArg(func, None)
    if len(marked) > 1:
        args = ", ".join(f"#{i}" for i in marked)
        return StorageArg(
            func, None, f"@{name} marks {len(marked)} arguments ({args}) with {ATTR}; expected one"
        )
    index = marked[0]
    if not is_public(graph, func):
        return StorageArg(
            func,
            index,
            f"{ATTR} on private function @{name}: only public functions take caller storage",
        )
    arg_type = op.regions[0].blocks[0].arguments[index].type
    if arg_type != storage_type():
        return StorageArg(
            func,
            index,
            f"transient storage argument #{index} of @{name} must be memref<?xi8>, not {arg_type}",
        )
    return StorageArg(func, index)


def functions_by_name(graph: Graph) -> dict[str, int]:
    """Each function op of ``graph``, by symbol name."""
    return {function_name(graph, f): f for f in function_ids(graph)}


def planned_query(graph: Graph, func: int) -> Optional[str]:
    """The size query a function names (``memplan.transient_size_fn``): it
    was planned already. None when it names none."""
    if not graph.has_attribute(func, QUERY_ATTR):
        return None
    return graph.symbol_attribute(func, QUERY_ATTR) or ""
