"""ExecutionEngine run time of a memref program, without memplan-check's hooks.

``run_seconds(texts, entry, repeat)`` lowers each program as
:func:`memplan.numerics.execute` does (same lowering, same JIT options, the
same seeded inputs for the same signature), compiles each once and times
``repeat`` rounds of calls of the entry, one call of each program per round
(interleaved, so that a change of the machine's load weighs on all of them
alike), each call on fresh copies of the inputs (copied before the clock
starts). The clock is the calling thread's CPU time (the JIT-compiled code
runs on it): on a shared machine, time spent waiting for a core is not
counted. :func:`summary` is the figure to report. The heap is the C library's ``malloc``,
``aligned_alloc`` and ``free``, registered as the lowered code's allocation
symbols: memplan-check's heap hooks call into Python at every allocation,
which would time the hooks, not the program.
"""

from __future__ import annotations

import ctypes
import time

from memplan.numerics.heap import ALIGNED_ALLOC, ALLOC, FREE, HEAP_SITE
from memplan.numerics.inputs import make_arguments
from memplan.numerics.lowering import lower
from memplan.numerics.runner import Executable, _Call

_LIBC = ctypes.CDLL(None)


class _NativeHeap:
    """The C library's allocator as the lowered code's allocation symbols
    (and storage for the site the lowered code records before each call)."""

    def __init__(self) -> None:
        self._site = ctypes.c_int64(0)

    def install(self, engine) -> None:
        for name, function in (
            (ALLOC, _LIBC.malloc),
            (ALIGNED_ALLOC, _LIBC.aligned_alloc),
            (FREE, _LIBC.free),
        ):
            engine.raw_register_runtime(name, ctypes.cast(function, ctypes.c_void_p))
        engine.raw_register_runtime(HEAP_SITE, ctypes.c_void_p(ctypes.addressof(self._site)))


class _TimedExecutable(Executable):
    """An :class:`~memplan.numerics.runner.Executable` on the native heap."""

    def __init__(self, program) -> None:
        super().__init__(program)
        self._heap = _NativeHeap()


def run_seconds(
    texts: list[str], entry: str, repeat: int = 3, seed: int = 0, dims: dict | None = None
) -> list[list[float]]:
    """Per program of ``texts`` (memref level, or tensor level bufferized by
    upstream as ``execute`` does), the CPU seconds of each of its ``repeat``
    calls of ``@entry``, the programs called in turn; dynamic sizes from
    ``dims`` as in ``memplan.numerics.execute``."""
    runs = []
    for text in texts:
        program = lower(text, entry)
        executable = _TimedExecutable(program)
        executable.compile()
        runs.append(
            (
                executable,
                make_arguments(program.signature, None, seed, dims),
                _Call(program.signature),
            )
        )
    times: list[list[float]] = [[] for _ in texts]
    for _ in range(repeat):
        for (executable, args, call), out in zip(runs, times):
            fresh = [a.copy() for a in args]
            start = time.thread_time()
            call.invoke(executable._engine, fresh)
            out.append(time.thread_time() - start)
    return times


def summary(times: list[float]) -> float:
    """The figure reported: the fastest run (on a shared machine the slower
    ones measure the other load)."""
    return min(times)
