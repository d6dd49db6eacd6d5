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

from typing import Callable, Optional

from mlir import ir

from memplan import _core
from memplan._core import TypeKind
from memplan.ir.graph import Graph
from memplan.ir.slices import is_pure

INDEX_MAX = (1 << 63) - 1
"""Largest byte count a (64-bit, signed) ``index`` holds."""


def element_layout(elem: ir.Type) -> tuple[int | None, str | None]:
    """Bytes per element of a memref with element type ``elem``, as the LLVM
    lowering lays it out (the stride of a GEP over it), or ``(None, reason)``
    for a type whose layout memplan does not model.

    Integers: the store size rounded up to a power of two up to 64 bits
    (``i1`` takes one byte); above 64 bits layouts differ (4-byte alignment
    in LLVM's default layout, which the MLIR translation folds sizes with, 16
    with x86-64's and AArch64's ``i128:128``): the larger is taken, so a view
    is never smaller than the memory it touches. Floats: f16/bf16 2, f32 4,
    f64 8, f80 and f128 16, the 4/6/8-bit floats 1; ``index`` 8;
    ``complex<T>`` two T; ``vector<NxT>`` LLVM's vector: its store size
    rounded up to a power of two, ``vector<MxNxT>`` M of those. Computed on
    the typed MLIR type (``lib/IR/TypeInfo.cpp``); each is checked against the
    ExecutionEngine in test_data_layout.py.
    """
    return _core.element_layout(elem)


def element_bytes(info: _core.TypeInfo) -> int:
    """Bytes per element of a memref type we can place in an i8 pool, else -1."""
    if info.kind != TypeKind.MEMREF:
        return -1
    return info.elem_bytes


def element_reason(info: _core.TypeInfo) -> str | None:
    """Why a memref type's elements cannot be planned (None when they can)."""
    if info.kind != TypeKind.MEMREF:
        return "not a ranked memref"
    return info.elem_reason


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


def size_expression(graph: Graph, alloc_op: int, value_name: Callable[[int], str]) -> str:
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


def canonical_size_value(graph: Graph, value: int) -> int:
    """The simplest value a dynamic size equals, followed as far as it goes:
    a dimension (ShapedDimOpInterface) of the result of an op that one of
    the op's own index operands equals, as upstream's ValueBoundsOpInterface
    states (``memref.dim %alloc, 1`` of ``memref.alloc(%n)`` is ``%n``: the
    dimension cannot be hoisted above its allocation, the operand can), or
    arithmetic that upstream's range-based folders reduce to another value
    (``Graph.simplified_index``: torch-mlir's reshapes compute a dimension
    through casts, sign tests and selects); ``value`` itself otherwise."""
    for _ in range(64):
        op = int(graph.value_op[value])
        if op < 0 or graph.constant_int(op) is not None:
            return value
        found = graph.shaped_dim(op)
        if found is None:
            # Arithmetic that upstream's folders reduce to a simpler value.
            simpler = graph.simplified_index(value)
            if simpler == value:
                return value
            value = simpler
            continue
        source = int(graph.operands[int(graph.operand_begin[op]) + found[0]])
        equal = _equal_size_operand(graph, value, source)
        if equal is None:
            return value
        value = equal
    return value


def _equal_size_operand(graph: Graph, value: int, source: int) -> Optional[int]:
    """An index operand of the op defining ``source``, or of the ops it is
    a view of (ViewLikeOpInterface: ``memref.dim`` of a collapse_shape of
    an allocation), that ``value`` equals (ValueBoundsOpInterface), or None."""
    for _ in range(64):
        owner = int(graph.value_op[source])
        if owner < 0:
            return None
        begin, end = int(graph.operand_begin[owner]), int(graph.operand_begin[owner + 1])
        for o in graph.operands[begin:end].tolist():
            is_index = graph.types[graph.value_type[o]].kind == TypeKind.INDEX
            if is_index and graph.equal_index(value, int(o)):
                return int(o)
        if int(graph.view_source[owner]) < 0:
            return None
        source = int(graph.operands[begin + int(graph.view_source[owner])])
    return None


def hoistable_slice(graph: Graph, scope_block: int, values: list[int]) -> Optional[list[int]]:
    """Ops (ascending ids) computing ``values`` to place before a pool in ``scope_block``.

    None when some value depends on anything but hoistable values (a loop
    induction variable, a load, an op nested in a region, ...).
    """
    scope_op = int(graph.block_parent_op[scope_block])
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
        if graph.op_block[op] != scope_block or not is_pure(graph, op):
            return None
        slice_ops.add(op)
        begin, end = graph.operand_begin[op], graph.operand_begin[op + 1]
        stack.extend(int(x) for x in graph.operands[begin:end])
    return sorted(slice_ops)


__all__ = [
    "INDEX_MAX",
    "element_layout",
    "element_bytes",
    "element_reason",
    "static_bytes",
    "size_expression",
    "dynamic_size_values",
    "hoistable_slice",
    "canonical_size_value",
]


#: Module attributes that set a data layout of the module's own.
_LAYOUT_ATTRIBUTES = ("dlti.dl_spec", "llvm.data_layout", "dlti.target_system_spec")


def custom_data_layout(module: ir.Module | ir.Operation) -> "str | None":
    """The attribute by which ``module`` sets its own data layout, if any.

    memplan sizes elements as LLVM's default (x86-64) layout does; under
    another layout a planned view could overlap its neighbour, so callers
    leave such modules alone."""
    attributes = module.attributes
    for name in _LAYOUT_ATTRIBUTES:
        if name in attributes:
            return name
    return None
