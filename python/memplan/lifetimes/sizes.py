"""Byte sizes of allocations: static figures or symbolic expressions.

An allocation ``memref.alloc(%n, %m) : memref<?x4x?xf32>`` has
``4 * 4 * %n * %m`` bytes. Its dynamic sizes can feed a pool allocated
earlier only if they are *hoistable*: each is available at the start of the
pool's scope block (a block argument of it or of an enclosing block, or a
value defined outside the scope op), or computed by a pure op directly in the
scope block from hoistable values. :func:`hoistable_slice` returns the ops to
move in front of the pool, or None.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from memplan import _core
from memplan._core import TypeKind
from memplan.ir.graph import Graph
from memplan.ir.slices import is_pure

_POOLABLE_ELEMENT = re.compile(r"^(index|[su]?i\d+|f\d+\w*|bf16)$")


def element_type_text(type_text: str) -> str:
    """The element type of a printed memref type: ``memref<4x?xf32, 1>`` -> ``f32``."""
    body = type_text[type_text.index("<") + 1 : type_text.rindex(">")]
    depth, cut = 0, len(body)
    for i, ch in enumerate(body):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            cut = i
            break
    shape_and_elem = body[:cut].strip()
    depth = 0
    last_x = -1
    for i, ch in enumerate(shape_and_elem):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "x" and depth == 0 and i > 0 and (shape_and_elem[i - 1].isdigit() or shape_and_elem[i - 1] == "?"):
            last_x = i
    return shape_and_elem[last_x + 1 :]


def element_bytes(info: _core.TypeInfo) -> int:
    """Bytes per element of a memref type we can place in an i8 pool, else -1."""
    if info.kind != TypeKind.MEMREF:
        return -1
    if info.elem_bits <= 0 or info.elem_bits % 8:
        return -1
    if not _POOLABLE_ELEMENT.match(element_type_text(info.text)):
        return -1
    return info.elem_bits // 8


def size_expression(
    graph: Graph, alloc_op: int, value_name: Callable[[int], str]
) -> str:
    """Bytes of an allocation as text: ``"4096"`` or ``"16 * %n * %m"``."""
    info = graph.types[graph.value_type[graph.result_begin[alloc_op]]]
    if info.static_bytes >= 0:
        return str(info.static_bytes)
    factor = max(1, (info.elem_bits + 7) // 8)
    for d in info.shape:
        if d != _core.DYNAMIC:
            factor *= d
    begin, end = graph.operand_begin[alloc_op], graph.operand_begin[alloc_op + 1]
    dyn = [value_name(int(v)) for v in graph.operands[begin:end]]
    return " * ".join([str(factor)] + dyn)


def dynamic_size_values(graph: Graph, alloc_op: int) -> list[int]:
    """Value ids of the dynamic size operands of a ``memref.alloc``."""
    info = graph.types[graph.value_type[graph.result_begin[alloc_op]]]
    count = sum(1 for d in info.shape if d == _core.DYNAMIC)
    begin = graph.operand_begin[alloc_op]
    return [int(v) for v in graph.operands[begin : begin + count]]


def hoistable_slice(graph: Graph, scope_block: int, values: list[int]) -> Optional[list[int]]:
    """Ops (ascending ids) computing ``values`` to place before a pool in ``scope_block``.

    None when some value depends on anything but hoistable values (a loop
    induction variable, a load, an op nested in a region, ...).
    """
    scope_op = int(graph.block_parent_op[scope_block])
    names = graph.names
    slice_ops: set[int] = set()
    seen: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if v < 0:
            return None
        if v in seen:
            continue
        seen.add(v)
        op = int(graph.value_op[v])
        if op < 0:
            block = int(graph.value_block[v])
            # An argument of the scope block or of a block enclosing it.
            if block == scope_block or graph.ancestor_in_block(block, scope_op) >= 0:
                continue
            return None
        if not graph.is_ancestor(scope_op, op):
            continue  # defined outside the scope op: dominates it
        if graph.op_block[op] != scope_block or not is_pure(names[graph.op_name[op]]):
            return None
        if graph.region_begin[op + 1] != graph.region_begin[op]:
            return None
        slice_ops.add(op)
        begin, end = graph.operand_begin[op], graph.operand_begin[op + 1]
        stack.extend(int(x) for x in graph.operands[begin:end])
    return sorted(slice_ops)


__all__ = [
    "element_type_text",
    "element_bytes",
    "size_expression",
    "dynamic_size_values",
    "hoistable_slice",
]
