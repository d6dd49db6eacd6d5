"""Argument values for the entry function: random or supplied by the caller.

Random values (``numpy.random.default_rng(seed)``):

* floats (f16, bf16, f32, f64, complex): uniform in [-1, 1);
* signed / signless integers: uniform in [-8, 8); unsigned: [0, 16);
* ``index`` values: what the IR allows
  (:func:`~memplan.numerics.signature.index_argument_ranges`: a position
  into a static dimension stays inside it, a size is in [1, 7]), else [0, 8);
  ``dims`` can set them like sizes (``arg_index`` or ``"arg3"`` -> value);
* integer buffers whose elements a ``linalg.generic`` uses as positions
  (token ids) stay inside the dimension they index;
* ``i1``: random booleans; other sub-byte integers (``i4``...): every value
  of the type, zero-extended into a byte; integers of other widths
  (``i24``, ``i48``) as their width allows, held in the integer the LLVM
  lowering stores them in (given values are cut to their width:
  :meth:`~memplan.numerics.signature.ValueSpec.canonical`).

Dynamic memref sizes come from ``dims`` (default :data:`DEFAULT_DIM` = 7).
``dims`` maps

* ``(arg_index, dim_index)`` to the size of that one dimension,
* ``arg_index`` (an ``int``) or its name ``"arg3"`` / ``"%arg3"`` to the size of
  every dynamic dimension of that argument,
* ``"*"`` to the size of every other dynamic dimension.

A memref argument is held as a flat *backing* array plus shape, strides and
offset in elements.  Every backing array a run sees starts on a
:data:`ARGUMENT_ALIGNMENT` (64-byte) boundary, as MLIR's own allocations do:
JIT code may load arguments with aligned vector moves (a ``vector.type_cast``
load is a 32-byte ``vmovaps`` on AVX), and numpy only promises 16 bytes.
For identity layouts the backing array is exactly the row-major data; for a
``strided<...>`` layout with static strides/offset the backing array is large
enough for them (its gaps get random data as well).
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .signature import DEFAULT_DIM, Signature, ValueSpec

__all__ = [
    "ArgValue",
    "ARGUMENT_ALIGNMENT",
    "DEFAULT_DIM",
    "DimsSpec",
    "aligned_copy",
    "make_arguments",
    "place_array",
    "float_to_bf16_bits",
]

#: Alignment in bytes of the memory of every memref argument of a run.
ARGUMENT_ALIGNMENT = 64


def aligned_copy(
    array: np.ndarray, alignment: int = ARGUMENT_ALIGNMENT, shared: bool = False
) -> np.ndarray:
    """A C-contiguous copy of ``array`` whose data starts on an
    ``alignment``-byte boundary; with ``shared``, in an anonymous shared
    mapping (page-aligned) that a forked child writes into."""
    if shared:
        out = np.ndarray(array.shape, array.dtype, buffer=mmap.mmap(-1, max(array.nbytes, 1)))
    else:
        raw = np.empty(array.nbytes + alignment, dtype=np.uint8)
        start = -raw.ctypes.data % alignment
        out = np.ndarray(array.shape, array.dtype, buffer=raw, offset=start)
    out[...] = array
    return out


DimsSpec = Mapping[Union[Tuple[int, int], int, str], int]


@dataclass
class ArgValue:
    """The value of one argument.  ``data`` is a 0-d array for a scalar and
    the flat backing store for a memref."""

    spec: ValueSpec
    data: np.ndarray
    shape: Tuple[int, ...] = ()
    strides: Tuple[int, ...] = ()
    offset: int = 0

    def copy(self, shared: bool = False) -> "ArgValue":
        """A fresh copy (each run must get its own memory); a memref's
        backing store is :data:`ARGUMENT_ALIGNMENT`-aligned (and with
        ``shared``, shared with forked children)."""
        data = aligned_copy(self.data, shared=shared) if self.spec.is_memref else self.data.copy()
        return ArgValue(self.spec, data, self.shape, self.strides, self.offset)

    def view(self) -> np.ndarray:
        """The memref's elements as an n-d view of the backing store."""
        if not self.spec.is_memref:
            return self.data
        item = self.data.itemsize
        return np.lib.stride_tricks.as_strided(
            self.data[self.offset :],
            shape=self.shape,
            strides=tuple(s * item for s in self.strides),
        )


def float_to_bf16_bits(values: Any) -> np.ndarray:
    """Round float values to bfloat16 (nearest even), as uint16 bit patterns."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def _narrow_width(element: str) -> int:
    """Width of a sub-byte integer type such as ``i4`` / ``ui2`` (else 0)."""
    digits = element.lstrip("sui")
    if element[:1] in "su" and not element.startswith(("si", "ui")):
        return 0
    if (
        digits.isdigit()
        and 1 < int(digits) < 8
        and element.rstrip("0123456789") in ("i", "si", "ui")
    ):
        return int(digits)
    return 0


def _random(spec: ValueSpec, shape: Tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    dtype = spec.dtype
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "c":
        parts = rng.uniform(-1.0, 1.0, size=shape + (2,))
        return (parts[..., 0] + 1j * parts[..., 1]).astype(dtype)
    if dtype == np.float32:  # the bulk of a model's weights: no float64 detour
        values = rng.random(size=shape, dtype=np.float32)
        values *= 2
        values -= 1
        return values
    if dtype.kind == "f":
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    if spec.element == "bf16":
        return float_to_bf16_bits(rng.uniform(-1.0, 1.0, size=shape))
    width = _narrow_width(spec.element)
    if width:
        return rng.integers(0, 1 << width, size=shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 16, size=shape).astype(dtype)
    if spec.element == "index":
        return rng.integers(0, 8, size=shape).astype(dtype)
    return rng.integers(-8, 8, size=shape).astype(dtype)


def _dim_size(dims: Optional[DimsSpec], arg: int, dim: int) -> int:
    if dims:
        for key in ((arg, dim), arg, f"arg{arg}", f"%arg{arg}", "*"):
            if key in dims:
                return int(dims[key])
    return DEFAULT_DIM


def _layout(spec: ValueSpec, shape: Tuple[int, ...]) -> Tuple[Tuple[int, ...], int, int]:
    """Strides, offset and backing size (elements) for a memref of ``shape``."""
    contiguous = []
    acc = 1
    for size in reversed(shape):
        contiguous.append(acc)
        acc *= max(size, 1)
    contiguous.reverse()
    strides = tuple(s if s is not None else c for s, c in zip(spec.strides, contiguous))
    offset = spec.offset if spec.offset is not None else 0
    if any(d == 0 for d in shape):
        return strides, offset, offset
    extent = offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1
    return strides, offset, extent


def place_array(spec: ValueSpec, index: int, value: Any, rng: np.random.Generator) -> ArgValue:
    """Argument ``index`` of type ``spec`` holding the elements of ``value``
    (an array of the argument's shape) in the type's layout; gaps of a
    strided layout get random data from ``rng``."""
    arr = np.asarray(value)
    if spec.element == "bf16" and arr.dtype != np.uint16:
        arr = float_to_bf16_bits(arr)
    arr = spec.canonical(arr.astype(spec.dtype, copy=False))
    if arr.ndim != spec.rank:
        raise ValueError(
            f"argument #{index} ({spec.type_str}): expected rank {spec.rank}, got "
            f"an array of shape {arr.shape}"
        )
    for d, (want, got) in enumerate(zip(spec.shape, arr.shape)):
        if want is not None and want != got:
            raise ValueError(
                f"argument #{index} ({spec.type_str}): dimension {d} must be "
                f"{want}, got an array of shape {arr.shape}"
            )
    shape = tuple(arr.shape)
    strides, offset, extent = _layout(spec, shape)
    backing = _random(spec, (extent,), rng)
    value = ArgValue(spec, backing, shape, strides, offset)
    value.view()[...] = arr
    return value


def _given_argument(spec: ValueSpec, i: int, given: Any, rng) -> ArgValue:
    if spec.is_memref:
        return place_array(spec, i, given, rng)
    if np.ndim(given) != 0:
        raise ValueError(f"argument #{i} ({spec.type_str}): expected a scalar, got an array")
    if spec.element == "bf16" and not isinstance(given, np.uint16):
        return ArgValue(spec, float_to_bf16_bits(given).reshape(()))
    return ArgValue(spec, spec.canonical(np.asarray(given).astype(spec.dtype).reshape(())))


def _index_value(
    signature: Signature, i: int, dims: Optional[DimsSpec], rng
) -> Optional[np.ndarray]:
    if dims:
        for key in (i, f"arg{i}", f"%arg{i}"):
            if key in dims:
                return np.array(int(dims[key]), dtype=np.int64)
    bounds = dict(signature.index_ranges).get(i)
    if bounds is None:
        return None
    return np.array(rng.integers(bounds[0], bounds[1] + 1), dtype=np.int64)


def make_arguments(
    signature: Signature,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    dims: Optional[DimsSpec] = None,
    values: Optional[Mapping[int, Any]] = None,
) -> list:
    """Build one :class:`ArgValue` per entry argument (see module doc).

    ``inputs`` gives every argument; otherwise ``values`` (argument number ->
    array or number) fixes some and the others are random.
    """
    rng = np.random.default_rng(seed)
    if inputs is not None and len(inputs) != len(signature.args):
        raise ValueError(
            f"@{signature.name} takes {len(signature.args)} arguments, "
            f"{len(inputs)} inputs given"
        )
    for i in values or {}:
        if not 0 <= i < len(signature.args):
            raise ValueError(f"@{signature.name} has no argument #{i}")
    args = []
    for i, spec in enumerate(signature.args):
        if inputs is not None or (values and i in values):
            given = inputs[i] if inputs is not None else values[i]
            args.append(_given_argument(spec, i, given, rng))
            continue
        if spec.is_memref:
            shape = tuple(
                s if s is not None else _dim_size(dims, i, d) for d, s in enumerate(spec.shape)
            )
            strides, offset, extent = _layout(spec, shape)
            bounds = dict(signature.index_ranges).get(i)
            if bounds is not None:
                data = rng.integers(bounds[0], bounds[1] + 1, size=(extent,)).astype(spec.dtype)
            else:
                data = _random(spec, (extent,), rng)
            args.append(ArgValue(spec, data, shape, strides, offset))
            continue
        data = _random(spec, (), rng).reshape(())
        if spec.element == "index":
            fixed = _index_value(signature, i, dims, rng)
            data = data if fixed is None else fixed
        args.append(ArgValue(spec, data))
    return args
