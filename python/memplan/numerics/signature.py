"""The entry function's signature as plain Python data.

After bufferization every argument and result of the entry function is either
a ranked memref or a scalar (integer, index or float).  :class:`ValueSpec`
records what the runner needs to build ctypes values for it: the numpy dtype,
the static shape (``None`` for a dynamic size) and, for memrefs, the static
strides and offset of the layout (``None`` where dynamic).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Optional, Tuple, Union

import numpy as np
from mlir import ir
from mlir.dialects import func as func_dialect

from memplan import _core
from memplan.transients.contract import ATTR as STORAGE_ATTR

__all__ = ["ValueSpec", "Signature", "value_spec", "entry_signature", "find_func"]


@dataclass(frozen=True)
class ValueSpec:
    """One argument or result of the entry function.

    ``dtype`` is the numpy dtype used to hold the values (``bf16`` is carried
    as ``uint16`` bit patterns, ``index`` as ``int64``, ``i1`` as ``bool``,
    other integers narrower than a byte as zero-extended ``uint8``). An
    integer of another width up to 64 bits (``i24``, ``i48``) is held in the
    integer the LLVM lowering stores it in: its alloc size, the next power of
    two bytes (``i24``: 4 bytes, ``i48``: 8), of which a store writes only
    the low ``ceil(width / 8)`` bytes; ``bits`` is then its width and
    :meth:`canonical` gives values by their meaningful bits.
    """

    type_str: str
    is_memref: bool
    dtype: np.dtype
    #: The element type as text (the type itself for scalars), e.g. ``"bf16"``.
    element: str = ""
    shape: Tuple[Optional[int], ...] = ()
    strides: Tuple[Optional[int], ...] = ()
    offset: Optional[int] = 0
    #: The width of an integer element held in a wider ``dtype`` (``i24`` in
    #: ``int32``), else 0.
    bits: int = 0

    def canonical(self, values: np.ndarray) -> np.ndarray:
        """``values`` with the bits above ``bits`` set from the value's
        meaningful bits: sign-extended (signless and signed types) or zeroed
        (unsigned), so that two runs compare by what the program computed,
        not by bytes a store left alone. The array itself when there are no
        such bits."""
        if not self.bits:
            return values
        shift = self.dtype.itemsize * 8 - self.bits
        return (values.astype(self.dtype, copy=False) << shift) >> shift  # arithmetic if signed

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def is_float(self) -> bool:
        """The element type is a floating-point (or complex) type."""
        return self.dtype.kind in "fc" or self.element == "bf16"

    def ctype(self) -> type:
        """The ctypes type of one element (scalars: of the value)."""
        if self.dtype == np.float16 or self.dtype == np.uint16:
            return ctypes.c_uint16
        if self.dtype == np.bool_:
            return ctypes.c_bool
        if self.dtype.kind == "c":
            part = ctypes.c_float if self.dtype.itemsize == 8 else ctypes.c_double
            return part * 2
        return np.ctypeslib.as_ctypes_type(self.dtype)


@dataclass(frozen=True)
class Signature:
    """Arguments and results of the entry function, after bufferization."""

    name: str
    args: Tuple[ValueSpec, ...]
    results: Tuple[ValueSpec, ...]
    #: Index of the argument marked ``memplan.transients`` (caller-provided
    #: working memory), if any.
    storage: Optional[int] = None
    #: What the IR says about integer arguments (scalars, or the elements of
    #: buffers): argument number -> ``(lowest, highest)`` value that keeps
    #: every use in bounds (see :func:`index_argument_ranges`).
    index_ranges: Tuple[Tuple[int, Tuple[int, int]], ...] = ()

    def __str__(self) -> str:
        args = ", ".join(a.type_str for a in self.args)
        res = ", ".join(r.type_str for r in self.results)
        return f"@{self.name}({args}) -> ({res})"


def _element_dtype(t: ir.Type) -> np.dtype:
    if isinstance(t, ir.IndexType):
        return np.dtype(np.int64)
    if isinstance(t, ir.IntegerType):
        width = t.width
        if width == 1:
            return np.dtype(np.bool_)
        if width < 8:  # one byte per element, zero-extended (see lowering)
            return np.dtype(np.uint8)
        if width > 64:
            raise NotImplementedError(f"unsupported integer width in {t} (at most 64 bits)")
        kind = "u" if t.is_unsigned else "i"
        return np.dtype(f"{kind}{_container_bytes(width)}")
    if isinstance(t, ir.F16Type):
        return np.dtype(np.float16)
    if isinstance(t, ir.BF16Type):
        return np.dtype(np.uint16)
    if isinstance(t, ir.F32Type):
        return np.dtype(np.float32)
    if isinstance(t, ir.F64Type):
        return np.dtype(np.float64)
    if isinstance(t, ir.ComplexType):
        inner = _element_dtype(t.element_type)
        if inner == np.float32:
            return np.dtype(np.complex64)
        if inner == np.float64:
            return np.dtype(np.complex128)
    raise NotImplementedError(f"unsupported element type {t}")


def _container_bytes(width: int) -> int:
    """Bytes the LLVM lowering gives an integer of ``width`` (8 < width <= 64)
    bits in memory: its alloc size, the store size rounded up to the ABI
    alignment, which is that of the next power-of-two integer."""
    return next(n for n in (1, 2, 4, 8) if 8 * n >= width)


def _integer_bits(t: ir.Type) -> int:
    """The width of an integer type held in a wider container (else 0)."""
    if isinstance(t, ir.IntegerType) and t.width > 8:
        return t.width if t.width != 8 * _container_bytes(t.width) else 0
    return 0


def _static(v: int) -> Optional[int]:
    return None if v == ir.ShapedType.get_dynamic_size() else v


def value_spec(t: ir.Type) -> ValueSpec:
    """Describe one (bufferized) argument or result type."""
    if isinstance(t, ir.MemRefType):
        strides, offset = t.get_strides_and_offset()
        dyn = ir.ShapedType.get_dynamic_stride_or_offset()
        return ValueSpec(
            type_str=str(t),
            is_memref=True,
            dtype=_element_dtype(t.element_type),
            element=str(t.element_type),
            shape=tuple(_static(d) for d in t.shape),
            strides=tuple(None if s == dyn else s for s in strides),
            offset=None if offset == dyn else offset,
            bits=_integer_bits(t.element_type),
        )
    if isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)):
        raise ValueError(f"tensor type {t} left after bufferization")
    if isinstance(t, ir.UnrankedMemRefType):
        raise NotImplementedError(f"unranked memref {t} is not supported")
    return ValueSpec(
        type_str=str(t),
        is_memref=False,
        dtype=_element_dtype(t),
        element=str(t),
        bits=_integer_bits(t),
    )


def find_func(module: Union[ir.Module, ir.Operation], name: str) -> ir.Operation:
    """Return the top-level ``func.func`` called ``name`` of ``module`` (an
    ``ir.Module`` or a module op; KeyError if none).

    A typed ``func.FuncOp`` check, not FunctionOpInterface: the harness runs
    func.func entries (func-to-llvm's C interface wrappers, a builtin
    FunctionType signature)."""
    names = []
    for op in module.operation.regions[0].blocks[0].operations:
        if not isinstance(op.operation.opview, func_dialect.FuncOp):
            continue
        sym = ir.StringAttr(op.operation.attributes["sym_name"]).value
        if sym == name:
            return op.operation
        names.append(sym)
    raise KeyError(
        f"no func.func @{name} in module (functions: "
        + (", ".join("@" + n for n in names) or "none")
        + ")"
    )


def entry_signature(module: ir.Module, name: str) -> Signature:
    """Read the signature of ``func.func @name`` in a bufferized module."""
    func = find_func(module, name)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    storage = None
    if "arg_attrs" in func.attributes:
        for i, attrs in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
            if STORAGE_ATTR in ir.DictAttr(attrs):
                storage = i
    return Signature(
        name=name,
        args=tuple(value_spec(t) for t in ftype.inputs),
        results=tuple(value_spec(t) for t in ftype.results),
        storage=storage,
        index_ranges=tuple(sorted(index_argument_ranges(func).items())),
    )


#: Size of a dynamic dimension (and most an ``index`` argument used as a
#: size) when nothing else is said.
DEFAULT_DIM = 7


def index_argument_ranges(func: ir.Operation, size_limit: int = DEFAULT_DIM) -> dict:
    """Values for the integer arguments of ``func`` that its IR allows.

    Read from MLIR's interfaces by the C++ analysis
    (``memplan/Numerics/IndexRanges.h``), never from op names.  An integer
    argument used (directly or through ``CastOpInterface`` casts) as a
    position that an op's run-time verification
    (``RuntimeVerifiableOpInterface``: ``memref.load``/``store``,
    ``tensor.extract``/``insert``, slice offsets...) or an affine access
    (``AffineReadOpInterface``/``AffineWriteOpInterface``) bounds by a static
    size must lie in ``[0, size)``; one used as a dynamic size of a shaped result
    (``ValueBoundsOpInterface`` or ``ReifyRankedShapedTypeOpInterface``:
    ``memref.alloc``, ``tensor.empty``...) or as a loop's upper bound
    (``LoopLikeOpInterface``) is a size, ``[1, size_limit]``.  The same holds
    for the elements of an integer memref/tensor argument that a structured
    op (``LinalgOp``) reads into its body's block argument and uses that way
    (token ids indexing an embedding table).  Returns argument number ->
    ``(lo, hi)`` (inclusive) for the arguments with such uses.
    """
    found = _core.index_argument_ranges(func.operation._CAPIPtr, size_limit)
    return {arg: (lo, hi) for arg, lo, hi in found}
