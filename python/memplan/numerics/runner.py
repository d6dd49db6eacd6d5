"""Running a lowered entry function under the ExecutionEngine.

Calling convention: the entry function carries ``llvm.emit_c_interface``, so
``_mlir_ciface_<entry>`` takes memrefs as pointers to descriptors, scalars by
value and returns a single scalar result by value; several results, or a
memref result, come back through a pointer to a struct passed as the first
argument.  ``ExecutionEngine.invoke`` passes every argument through one more
pointer (and the by-value result slot last).

Each :meth:`Executable.run` builds a fresh engine, so globals the program
writes start from their initial values every run, and registers a
:class:`~memplan.numerics.heap.PoisonHeap` before the first lookup.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np
from mlir import execution_engine
from mlir.runtime import make_nd_memref_descriptor, make_zero_d_memref_descriptor

from .heap import HeapStats, PoisonHeap
from .inputs import ArgValue
from .lowering import ASSERT_HOOK, LoweredProgram
from .signature import ValueSpec

__all__ = ["Output", "RunOutcome", "Executable", "runtime_libraries"]

_LIB_DIR = os.path.join(os.path.dirname(execution_engine.__file__), "lib")
_RUNTIME_LIBS = ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")

_ASSERT_T = ctypes.CFUNCTYPE(None, ctypes.c_int64)


def runtime_libraries() -> List[str]:
    """Shared libraries given to the engine (memrefCopy, print helpers...)."""
    return [p for p in (os.path.join(_LIB_DIR, n) for n in _RUNTIME_LIBS) if os.path.exists(p)]


@dataclass
class Output:
    """One observable output of a run: a result or a memref argument after
    the call.  ``data`` is a copy (scalars as 0-d arrays); for arguments it is
    the whole backing store, see :mod:`memplan.numerics.inputs`."""

    name: str
    data: np.ndarray
    #: Shape of the memref value (the logical one for arguments).
    shape: tuple = ()


@dataclass
class RunOutcome:
    """Everything one run produced."""

    outputs: List[Output]
    heap: HeapStats
    #: Messages of the ``cf.assert``s that failed (in order, repeats dropped).
    failed_asserts: List[str] = field(default_factory=list)


def _descriptor_type(spec: ValueSpec):
    ctype = spec.ctype()
    if spec.rank == 0:
        return make_zero_d_memref_descriptor(ctype)
    return make_nd_memref_descriptor(spec.rank, ctype)


def _descriptor_for(arg: ArgValue):
    desc = _descriptor_type(arg.spec)()
    address = arg.data.ctypes.data
    desc.allocated = address
    desc.aligned = ctypes.cast(address, type(desc.aligned))
    desc.offset = arg.offset
    if arg.spec.rank:
        desc.shape = (ctypes.c_longlong * arg.spec.rank)(*arg.shape)
        desc.strides = (ctypes.c_longlong * arg.spec.rank)(*arg.strides)
    return desc


def _read_memref(desc, spec: ValueSpec) -> np.ndarray:
    """Copy the elements a returned descriptor describes into a new array."""
    rank = spec.rank
    shape = tuple(desc.shape) if rank else ()
    strides = tuple(desc.strides) if rank else ()
    item = spec.dtype.itemsize
    base = ctypes.cast(desc.aligned, ctypes.c_void_p).value
    if any(d == 0 for d in shape):
        return np.zeros(shape, dtype=spec.dtype)
    if not base:
        raise RuntimeError(f"returned {spec.type_str} has a null data pointer")
    lo = desc.offset + sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
    hi = desc.offset + sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
    raw = (ctypes.c_uint8 * ((hi - lo + 1) * item)).from_address(base + lo * item)
    flat = np.frombuffer(raw, dtype=spec.dtype)
    view = np.lib.stride_tricks.as_strided(
        flat[desc.offset - lo:], shape=shape, strides=tuple(s * item for s in strides)
    )
    return np.array(view, copy=True)


class Executable:
    """A lowered program that can be run on argument values."""

    def __init__(self, program: LoweredProgram, opt_level: int = 2):
        self.program = program
        self.opt_level = opt_level
        self._libs = runtime_libraries()
        sig = program.signature
        self._fields = []
        for i, spec in enumerate(sig.results):
            self._fields.append(
                (f"r{i}", _descriptor_type(spec) if spec.is_memref else spec.ctype())
            )
        # One scalar result comes back by value; anything else (including a
        # complex number, an LLVM struct) via a pointer to a struct.
        self._scalar_return = (
            len(sig.results) == 1
            and not sig.results[0].is_memref
            and sig.results[0].dtype.kind != "c"
        )
        self._result_struct = None
        if sig.results and not self._scalar_return:
            self._result_struct = type("Results", (ctypes.Structure,), {"_fields_": self._fields})

    def run(self, args: Sequence[ArgValue], poison: Optional[int], scratch: Sequence[int] = ()) -> RunOutcome:
        """Call the entry function once on copies of ``args``.

        ``poison`` is the byte new and freed heap blocks are filled with
        (``None``: zeroed memory). Memref arguments listed in ``scratch`` are
        working memory (e.g. caller-provided transient storage): they start
        filled with the poison byte too and are not outputs.
        """
        prog = self.program
        sig = prog.signature
        args = [a.copy() for a in args]
        for i in scratch:
            args[i].data.view(np.uint8)[...] = 0 if poison is None else poison
        heap = PoisonHeap(prog.alignment, poison)
        failed: List[int] = []
        assert_cb = _ASSERT_T(failed.append)

        engine = execution_engine.ExecutionEngine(
            prog.module, opt_level=self.opt_level, shared_libs=self._libs
        )
        heap.install(engine)
        if prog.assert_messages:
            engine.raw_register_runtime(ASSERT_HOOK, ctypes.cast(assert_cb, ctypes.c_void_p))

        keep = []  # ctypes objects that must live through the call
        packed = []
        results = None
        if self._result_struct is not None:
            results = self._result_struct()
            packed.append(ctypes.pointer(ctypes.pointer(results)))
        for arg in args:
            if arg.spec.is_memref:
                desc = _descriptor_for(arg)
                keep.append(desc)
                packed.append(ctypes.pointer(ctypes.pointer(desc)))
            else:
                ctype = arg.spec.ctype()
                value = ctype.from_buffer_copy(arg.data.tobytes())
                keep.append(value)
                packed.append(ctypes.pointer(value))
        scalar_slot = None
        if self._scalar_return:
            scalar_slot = sig.results[0].ctype()()
            packed.append(ctypes.pointer(scalar_slot))

        engine.invoke(sig.name, *packed)

        outputs: List[Output] = []
        for i, spec in enumerate(sig.results):
            name = f"result #{i} ({spec.type_str})"
            if scalar_slot is not None:
                data = np.frombuffer(bytes(scalar_slot), dtype=spec.dtype).reshape(())
                outputs.append(Output(name, data.copy()))
            elif spec.is_memref:
                arr = _read_memref(getattr(results, f"r{i}"), spec)
                outputs.append(Output(name, arr, arr.shape))
            else:
                # Raw bytes at the field's offset: going through a Python
                # float could quiet a signalling NaN.
                offset = getattr(self._result_struct, f"r{i}").offset
                raw = ctypes.string_at(ctypes.addressof(results) + offset, spec.dtype.itemsize)
                data = np.frombuffer(raw, dtype=spec.dtype).reshape(())
                outputs.append(Output(name, data.copy()))
        for i, arg in enumerate(args):
            if arg.spec.is_memref and i not in scratch:
                outputs.append(Output(f"arg #{i} ({arg.spec.type_str})", arg.data, arg.shape))
        stats = heap.finish()
        messages = []
        for ident in failed:
            msg = prog.assert_messages[ident]
            if msg not in messages:
                messages.append(msg)
        del engine  # before the heap and callbacks go away
        return RunOutcome(outputs, stats, messages)

