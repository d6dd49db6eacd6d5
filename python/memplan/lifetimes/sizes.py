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

INDEX_MAX = (1 << 63) - 1
"""Largest byte count a (64-bit, signed) ``index`` holds."""

_FLOAT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f80": 16, "f128": 16}
_SMALL_FLOAT = re.compile(r"^f[468]E\d+M\d+\w*$")  # f8E4M3FN, f6E2M3FN, f4E2M1FN, f8E8M0FNU: an iN
_INT = re.compile(r"^[su]?i(\d+)$")
_VECTOR_SHAPE = re.compile(r"^((?:\d+x)*)(.+)$")


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _int_bytes(bits: int) -> int:
    """LLVM's allocation size of ``iN``: the store size rounded up to the ABI
    alignment (i8 1, i16 2, i32 4, i64 8; above 64 bits the alignment differs
    between layouts: 4 in LLVM's default layout, which the MLIR translation
    folds sizes with, 16 with x86-64's and AArch64's ``i128:128``; the larger
    one is taken, so a view is never smaller than the memory it touches)."""
    store = -(-bits // 8)
    if bits <= 64:
        return _pow2_ceil(store)
    return -(-store // 16) * 16


def _scalar_bits_and_bytes(elem: str) -> tuple[int, int] | None:
    """(bit width, allocation bytes) of a scalar element type, or None."""
    m = _INT.match(elem)
    if m:
        bits = int(m.group(1))
        return (bits, _int_bytes(bits)) if bits > 0 else None
    if elem == "index":
        return 64, 8
    if elem in _FLOAT_BYTES:
        return (80 if elem == "f80" else 8 * _FLOAT_BYTES[elem]), _FLOAT_BYTES[elem]
    if _SMALL_FLOAT.match(elem):
        return int(elem[1]), 1
    return None


def element_layout(elem: str) -> tuple[int | None, str | None]:
    """Bytes per element of a memref with element type ``elem`` (printed),
    as the LLVM lowering lays it out (the stride of a GEP over it), or
    ``(None, reason)`` for a type whose layout memplan does not model.

    Integers: see :func:`_int_bytes` (``i1`` takes one byte); floats: f16/bf16
    2, f32 4, f64 8, f80 and f128 16, the 4/6/8-bit floats 1; ``index`` 8;
    ``complex<T>`` two T; ``vector<NxT>`` LLVM's vector: its store size
    rounded up to a power of two (natural alignment), ``vector<MxNxT>`` M of
    those. Each is checked against the ExecutionEngine in test_layout.py.
    """
    elem = elem.strip()
    scalar = _scalar_bits_and_bytes(elem)
    if scalar is not None:
        return scalar[1], None
    if elem.startswith("complex<") and elem.endswith(">"):
        inner, reason = element_layout(elem[len("complex<"):-1])
        return (None, reason) if inner is None else (2 * inner, None)
    if elem.startswith("vector<") and elem.endswith(">"):
        body = elem[len("vector<"):-1]
        if "[" in body:
            return None, f"scalable vector element type '{elem}': its size is only known at run time"
        m = _VECTOR_SHAPE.match(body)
        dims, inner = m.group(1).split("x")[:-1], m.group(2)
        scalar = _scalar_bits_and_bytes(inner)
        if scalar is None:
            return None, f"element type '{elem}': vectors of {inner} are not modeled"
        dims = [int(d) for d in dims] or [1]
        lanes = dims[-1]
        one = _pow2_ceil(max(1, -(-lanes * scalar[0] // 8)))
        outer = 1
        for d in dims[:-1]:
            outer *= d
        return outer * one, None
    return None, f"element type '{elem}': memplan does not model its LLVM layout"


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
    size, _ = element_layout(element_type_text(info.text))
    return -1 if size is None else size


def element_reason(info: _core.TypeInfo) -> str | None:
    """Why a memref type's elements cannot be planned (None when they can)."""
    if info.kind != TypeKind.MEMREF:
        return "not a ranked memref"
    return element_layout(element_type_text(info.text))[1]


def static_bytes(info: _core.TypeInfo) -> int | None:
    """Exact bytes of a statically shaped memref (a Python int, possibly more
    than an ``index`` holds); None when dynamic or the elements are not modeled."""
    elem = element_bytes(info)
    if elem < 0 or any(d == _core.DYNAMIC for d in info.shape):
        return None
    n = elem
    for d in info.shape:
        n *= d
    return n


def size_expression(
    graph: Graph, alloc_op: int, value_name: Callable[[int], str]
) -> str:
    """Bytes of an allocation as text: ``"4096"`` or ``"16 * %n * %m"``."""
    info = graph.types[graph.value_type[graph.result_begin[alloc_op]]]
    exact = static_bytes(info)
    if exact is not None:
        return str(exact)
    factor = max(1, element_bytes(info))
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
    "INDEX_MAX",
    "element_layout",
    "element_bytes",
    "element_reason",
    "static_bytes",
    "size_expression",
    "dynamic_size_values",
    "hoistable_slice",
]


#: Module attributes that set a data layout of the module's own.
_LAYOUT_ATTRIBUTES = ("dlti.dl_spec", "llvm.data_layout", "dlti.target_system_spec")


def custom_data_layout(module) -> "str | None":
    """The attribute by which ``module`` sets its own data layout, if any.

    memplan sizes elements as LLVM's default (x86-64) layout does; under
    another layout a planned view could overlap its neighbour, so callers
    leave such modules alone."""
    attributes = module.attributes
    for name in _LAYOUT_ATTRIBUTES:
        if name in attributes:
            return name
    return None
