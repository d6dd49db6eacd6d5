"""Running a lowered entry function under the ExecutionEngine.

Calling convention: the entry function carries ``llvm.emit_c_interface``, so
``_mlir_ciface_<entry>`` takes memrefs as pointers to descriptors, scalars by
value and returns a single scalar result by value; several results, or a
memref result, come back through a pointer to a struct passed as the first
argument.  ``ExecutionEngine.invoke`` passes every argument through one more
pointer (and the by-value result slot last).

An :class:`Executable` JIT-compiles its module once and registers a
:class:`~memplan.numerics.heap.PoisonHeap` and the ``cf.assert`` hook before
the first lookup; later runs reuse the compiled code (poison mode runs every
module twice).
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np
from mlir import execution_engine
from mlir.runtime import make_nd_memref_descriptor, make_zero_d_memref_descriptor

from memplan import _core

from .heap import HeapStats, PoisonHeap, UseAfterFree, use_after_free
from .inputs import ArgValue
from .lowering import ASSERT_HOOK, LoweredProgram, LoweringError
from .parallel import start as parallel_start
from .signature import Signature, ValueSpec
from .source import location_text

__all__ = [
    "Output",
    "RunOutcome",
    "Executable",
    "ExecutionCrash",
    "runtime_libraries",
    "DEFAULT_OPT_LEVEL",
]

_LIB_DIR = os.path.join(os.path.dirname(execution_engine.__file__), "lib")
_RUNTIME_LIBS = ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")

_ASSERT_T = ctypes.CFUNCTYPE(None, ctypes.c_int64)

#: LLVM optimization level of the JIT.  Measured on the real-model workloads
#: (bench/bench_numerics.py): see docs/numerics.md.
DEFAULT_OPT_LEVEL = 2


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
    #: For arguments: the logical elements (an n-d view of ``data``).
    logical: Optional[np.ndarray] = None


@dataclass
class RunOutcome:
    """Everything one run produced."""

    outputs: List[Output]
    heap: HeapStats
    #: ``"<location>: <message>"`` of the ``cf.assert``s that failed (in
    #: program order, each once).
    failed_asserts: List[str] = field(default_factory=list)
    #: How often each assertion message failed (by message, not location).
    assert_counts: Dict[str, int] = field(default_factory=dict)


class _AssertRecorder:
    """The ``cf.assert`` hook: counts failures per assertion id."""

    def __init__(self) -> None:
        self.counts: Dict[int, int] = {}
        self.callback = _ASSERT_T(self._failed)

    def _failed(self, ident: int) -> None:
        self.counts[ident] = self.counts.get(ident, 0) + 1


def _engine_error(diagnostics: List[str]) -> LoweringError:
    detail = "; ".join(diagnostics) if diagnostics else "no diagnostic"
    return LoweringError(f"cannot JIT-compile the lowered module: {detail}")


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
        flat[desc.offset - lo :], shape=shape, strides=tuple(s * item for s in strides)
    )
    return np.array(view, copy=True)


class _Call:
    """Packing arguments and reading results for one C-interface function."""

    def __init__(self, sig: Signature):
        self.sig = sig
        fields = [
            (f"r{i}", _descriptor_type(spec) if spec.is_memref else spec.ctype())
            for i, spec in enumerate(sig.results)
        ]
        # One scalar result comes back by value; anything else (including a
        # complex number, an LLVM struct) via a pointer to a struct.
        self.scalar_return = (
            len(sig.results) == 1
            and not sig.results[0].is_memref
            and sig.results[0].dtype.kind != "c"
        )
        self.result_struct = None
        if sig.results and not self.scalar_return:
            self.result_struct = type("Results", (ctypes.Structure,), {"_fields_": fields})

    def pack(self, args: Sequence[ArgValue]) -> tuple:
        """The arguments of ``ExecutionEngine.invoke`` for ``args``, and what
        must live through the call: ``(packed, keep, results, scalar_slot)``
        (the results struct and the scalar result slot, or ``None``)."""
        sig = self.sig
        keep = []  # ctypes objects that must live through the call
        packed = []
        results = None
        if self.result_struct is not None:
            results = self.result_struct()
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
        if self.scalar_return:
            scalar_slot = sig.results[0].ctype()()
            packed.append(ctypes.pointer(scalar_slot))
        return packed, keep, results, scalar_slot

    def invoke(
        self, engine, args: Sequence[ArgValue], returned: Optional[List[int]] = None
    ) -> List[Output]:
        """Call the function; return its results (copied out). The
        ``allocated`` pointer of each memref result goes to ``returned``."""
        sig = self.sig
        packed, keep, results, scalar_slot = self.pack(args)
        _core.quarantine_phase(1)  # the program runs
        engine.invoke(sig.name, *packed)
        _core.quarantine_phase(2)  # the results are read

        if returned is not None and results is not None:
            for i, spec in enumerate(sig.results):
                if spec.is_memref:
                    desc = getattr(results, f"r{i}")
                    returned.append(ctypes.cast(desc.allocated, ctypes.c_void_p).value or 0)
        outputs: List[Output] = []
        for i, spec in enumerate(sig.results):
            name = f"result #{i} ({spec.type_str})"
            if scalar_slot is not None:
                data = np.frombuffer(bytes(scalar_slot), dtype=spec.dtype).reshape(())
                outputs.append(Output(name, spec.canonical(data.copy())))
            elif spec.is_memref:
                arr = spec.canonical(_read_memref(getattr(results, f"r{i}"), spec))
                outputs.append(Output(name, arr, arr.shape))
            else:
                # Raw bytes at the field's offset: going through a Python
                # float could quiet a signalling NaN.
                offset = getattr(self.result_struct, f"r{i}").offset
                raw = ctypes.string_at(ctypes.addressof(results) + offset, spec.dtype.itemsize)
                data = np.frombuffer(raw, dtype=spec.dtype).reshape(())
                outputs.append(Output(name, spec.canonical(data.copy())))
        return outputs


class Executable:
    """A lowered program, JIT-compiled once, that can be run many times.

    The engine is built on the first :meth:`run` (or :meth:`compile`) and
    reused: the heap and assertion hooks are reset between runs.  A module
    with writable globals gets a fresh engine per run so that every run
    starts from the globals' initial values.
    """

    def __init__(self, program: LoweredProgram, opt_level: int = DEFAULT_OPT_LEVEL):
        self.program = program
        self.opt_level = opt_level
        self._libs = runtime_libraries()
        self._entry = _Call(program.signature)
        self._heap = PoisonHeap(program.alignment, sites=program.heap_sites)
        self._asserts = _AssertRecorder()
        self._engine = None
        self._used = False

    def compile(self) -> None:
        """Build the engine now (raises :class:`LoweringError` on failure)."""
        if self._engine is not None:
            return
        diagnostics: List[str] = []

        def collect(diag) -> bool:
            diagnostics.append(f"{location_text(diag.location)}: {diag.message}")
            return True

        context = self.program.module.context
        handler = context.attach_diagnostic_handler(collect)
        try:
            engine = execution_engine.ExecutionEngine(
                self.program.module,
                opt_level=self.opt_level,
                shared_libs=self._libs,
                enable_object_dump=False,
            )
        except RuntimeError:
            raise _engine_error(diagnostics) from None
        finally:
            handler.detach()
        self._heap.install(engine)
        if self.program.assert_messages:
            engine.raw_register_runtime(
                ASSERT_HOOK, ctypes.cast(self._asserts.callback, ctypes.c_void_p)
            )
        # Code generation happens at the first lookup: do it now, so that a
        # failure is reported here and run times are run times.
        if not engine.raw_lookup("_mlir_ciface_" + self.program.signature.name):
            raise LoweringError(
                f"cannot JIT-compile the lowered module: @{self.program.signature.name} "
                "has unresolved symbols (a call to a function that is only declared?)"
            )
        self._engine = engine
        self._used = False

    def close(self) -> None:
        """Drop the compiled code (a later run compiles again)."""
        self._engine = None

    def call(self, sig: Signature, args: Sequence[ArgValue]) -> List[Output]:
        """Call another function of the module that has a C interface (see
        :func:`~memplan.numerics.lowering.lower`'s ``also``) on ``args``
        with a zero-filled heap; return its results."""
        self.compile()
        self._used = True
        self._heap.reset(None)
        outputs = _Call(sig).invoke(self._engine, [a.copy() for a in args])
        self._heap.release()
        return outputs

    def run(
        self,
        args: Sequence[ArgValue],
        poison: Optional[int],
        scratch: Sequence[int] = (),
        fill: Sequence[int] = (),
        isolate: bool = False,
    ) -> RunOutcome:
        """Call the entry function once on copies of ``args``.

        ``poison`` is the byte new and freed heap blocks are filled with
        (``None``: zeroed memory). Memref arguments listed in ``scratch`` are
        working memory (e.g. caller-provided transient storage): they start
        filled with the poison byte too and are not outputs. Those in
        ``fill`` (out-params) start filled with it and are outputs.

        With ``isolate`` the call runs in a forked child process, on
        arguments in memory shared with it: a program that faults (an
        out-of-bounds access on inputs its IR does not tie together) raises
        :class:`ExecutionCrash` instead of killing this process. The child's
        heap keeps freed blocks inaccessible (the quarantine of
        :mod:`memplan.numerics.heap`): an access to one raises
        :class:`~memplan.numerics.heap.UseAfterFree`, naming the buffer's
        alloc and free ops.
        """
        prog = self.program
        if self._used and prog.mutable_globals and not isolate:
            self._engine = None
        self.compile()
        self._used = True
        args = [a.copy(shared=isolate) for a in args]
        for i in (*scratch, *fill):
            args[i].data.view(np.uint8)[...] = 0 if poison is None else poison
        if not isolate:
            return self._call_entry(args, poison, scratch)
        return self._call_isolated(args, poison, scratch)

    def _call_entry(
        self,
        args: List[ArgValue],
        poison: Optional[int],
        scratch: Sequence[int],
        quarantine: bool = False,
    ) -> RunOutcome:
        prog = self.program
        heap = self._heap
        heap.reset(poison, quarantine)
        self._asserts.counts.clear()
        returned: List[int] = []
        outputs = self._entry.invoke(self._engine, args, returned)
        outputs += _argument_outputs(args, scratch)
        stats = heap.finish(returned, leaks=prog.deallocates)
        messages: List[str] = []
        counts: Dict[str, int] = {}
        for ident in sorted(self._asserts.counts):
            where, msg = prog.assert_messages[ident]
            messages.append(f"{where}: {msg}")
            counts[msg] = counts.get(msg, 0) + self._asserts.counts[ident]
        heap.release()
        return RunOutcome(outputs, stats, messages, counts)

    def _call_isolated(
        self, args: List[ArgValue], poison: Optional[int], scratch: Sequence[int]
    ) -> RunOutcome:
        """:meth:`_call_entry` in a forked child
        (:func:`memplan.numerics.parallel.start`); the arguments it writes
        are shared, the rest comes back pickled through a pipe, or the
        record of an access to a freed block that the child's fault handler
        writes there."""

        def prepare(write_end: int) -> None:
            faulthandler.disable()  # a crash is reported by the parent, once
            _core.quarantine_report_faults(write_end)  # a use after free: its record

        def child() -> tuple:
            outcome = self._call_entry(args, poison, scratch, quarantine=True)
            count = len(self.program.signature.results)
            return (
                outcome.outputs[:count],
                outcome.heap,
                outcome.failed_asserts,
                outcome.assert_counts,
            )

        name = self.program.signature.name
        run = parallel_start(child, f"@{name}", prepare)
        payload, status = run.raw()
        fault = use_after_free(payload, self.program.heap_sites)
        if fault is not None:
            raise UseAfterFree(f"@{name}: {fault}")
        if os.WIFSIGNALED(status):
            raise ExecutionCrash(name, os.WTERMSIG(status))
        if not payload:
            raise ExecutionCrash(name, 0, os.WEXITSTATUS(status))
        try:
            results, stats, messages, counts = run.decode(payload, status)
        except Exception as err:  # noqa: BLE001 - what the program's run raised
            raise RuntimeError(f"@{name}: {type(err).__name__}: {err}") from None
        return RunOutcome(results + _argument_outputs(args, scratch), stats, messages, counts)


class ExecutionCrash(RuntimeError):
    """The program died of a signal (or exited) while it ran in a child."""

    def __init__(self, function: str, signal_number: int, exit_code: int = 0):
        if signal_number:
            try:
                what = f"signal {signal_number}, {signal.Signals(signal_number).name}"
            except ValueError:
                what = f"signal {signal_number}"
        else:
            what = f"exit code {exit_code}"
        super().__init__(
            f"@{function} crashed ({what}) on these inputs: an access out of bounds? "
            "(sizes the IR does not tie together, e.g. --dim given for one argument but not "
            "another that must match it)"
        )
        self.signal = signal_number

    def __reduce__(self):
        # Pickled (from a child: memplan.numerics.parallel) with its message
        # as it is now, which may have been prefixed.
        return _crash, (self.args, self.signal)


def _crash(args: tuple, signal_number: int) -> ExecutionCrash:
    crash = ExecutionCrash.__new__(ExecutionCrash)
    crash.args = args
    crash.signal = signal_number
    return crash


def _argument_outputs(args: Sequence[ArgValue], scratch: Sequence[int]) -> List[Output]:
    """Every memref argument but the scratch ones, after the call (integers
    held in wider containers by their meaningful bits: ValueSpec.canonical)."""
    outputs = []
    for i, arg in enumerate(args):
        if not arg.spec.is_memref or i in scratch:
            continue
        if arg.spec.bits:
            arg = ArgValue(
                arg.spec, arg.spec.canonical(arg.data), arg.shape, arg.strides, arg.offset
            )
        outputs.append(Output(f"arg #{i} ({arg.spec.type_str})", arg.data, arg.shape, arg.view()))
    return outputs
