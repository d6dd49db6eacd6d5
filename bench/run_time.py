"""ExecutionEngine run time of memref programs, compared in pairs, without memplan-check's hooks.

``run_seconds(texts, entry, rounds)`` lowers each program as
:func:`memplan.numerics.execute` does (same lowering, same JIT options, the
same seeded inputs for the same signature) and compiles each once. Each
program is then called ``warmup`` times untimed (the first call's page
faults and cold code), and the programs are timed in rounds: one sample of
each program per round, always in the same order, so that every sample
follows a sample of the other program (a program called twice in a row
finds its weights in the caches: on bert_l4_h256_s128 the second call is
about 12% faster, which reversing the order every other round turned into
a two-valued ratio). A sample is ``batch`` calls of the entry in a row (one
for programs of 20 ms or more, more for smaller ones, so that a sample lasts
about 20 ms), each call on its own fresh copy of the inputs, copied and
packed before the clock starts: only the JIT-compiled calls are timed, with
Python's garbage collector off (its collections, in the clock, made every
sixth round of a 0.2 ms program twice as long). Programs whose calls are
shorter than ``LONG_CALL`` get more rounds (at most ``MORE_ROUNDS`` times
as many), which cost little.

The clock is the calling thread's CPU time, user and system (the
JIT-compiled code runs on it; the page faults of the C library's fresh
large blocks are system time it causes): on a shared machine, time spent
waiting for a core is not counted. The heap is the C library's ``malloc``,
``aligned_alloc`` and ``free``, registered as the lowered code's allocation
symbols: memplan-check's heap hooks call into Python at every allocation,
which would time the hooks, not the program. Returned buffers are not freed
(alike for both programs of a pair).

:func:`compare` is the figure to report for a pair (base, other): the median
over rounds of the round's ratio other / base, and a distribution-free
interval for that median (:func:`median_interval`: order statistics of the
ratios with at least 95% coverage, from the sign test; no resampling, so the
same samples always give the same interval). :func:`verdict` decides
"within" a limit only when the whole interval is at or below it, "above"
only when the whole interval is above it, and "undecided" otherwise: then
more rounds (or a quieter machine) are needed.

Where the spread comes from (measured on the 2-core machine shared with
compilers and tests at load 4-6; docs/benchmarks.md): the user time of the
same call moves by 10-20% from call to call, with the other processes' use
of the caches and the memory bus and the time slices they take (about 13
involuntary context switches in a 50 ms call); system time and page faults
are small after the first call; instruction counters are not available
(``perf_event_open`` of hardware events fails in this virtual machine). The
fastest of N calls of each program, the figure reported before, took the
ratio of two minima of such samples, and Python's own work (packing the
arguments, reading the results, collecting garbage) was in the clock. The
ratio of two calls made back to back shares the load of the moment, and the
median of many rounds' ratios ignores the rounds that a burst of load hit
on one side.
"""

from __future__ import annotations

import ctypes
import gc
import math
import time
from dataclasses import dataclass

from memplan.numerics.heap import ALIGNED_ALLOC, ALLOC, FREE, HEAP_SITE
from memplan.numerics.inputs import make_arguments
from memplan.numerics.lowering import lower
from memplan.numerics.runner import Executable, _Call

_LIBC = ctypes.CDLL(None)

#: A sample is at least this long (seconds): calls of small programs are
#: batched up to it.
SAMPLE_SECONDS = 0.02
#: Inputs copied ahead of one sample at most (bytes): a batch is cut to it.
BATCH_BYTES = 64 << 20
#: Programs whose calls are shorter than this (seconds) get more rounds, up
#: to ``MORE_ROUNDS`` times as many: ``rounds * LONG_CALL`` seconds of calls.
LONG_CALL = 0.5
MORE_ROUNDS = 10
#: The coverage of :func:`median_interval`.
LEVEL = 0.95


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


class _Timed:
    """One compiled program, its inputs and the timed calls of its entry."""

    def __init__(self, text: str, entry: str, seed: int, dims: dict | None) -> None:
        program = lower(text, entry)
        self.executable = _TimedExecutable(program)
        self.executable.compile()
        self.args = make_arguments(program.signature, None, seed, dims)
        self.call = _Call(program.signature)
        self.input_bytes = sum(a.data.nbytes for a in self.args)

    def sample(self, calls: int) -> float:
        """CPU seconds of ``calls`` calls in a row, each on fresh inputs."""
        fresh = [[a.copy() for a in self.args] for _ in range(calls)]
        packs = [self.call.pack(args)[0] for args in fresh]  # pointers into ``fresh``
        engine, name = self.executable._engine, self.call.sig.name
        start = time.thread_time()
        for packed in packs:
            engine.invoke(name, *packed)
        return time.thread_time() - start


def run_seconds(
    texts: list[str],
    entry: str,
    rounds: int = 20,
    seed: int = 0,
    dims: dict | None = None,
    warmup: int = 1,
) -> list[list[float]]:
    """Per program of ``texts`` (memref level, or tensor level bufferized by
    upstream as ``execute`` does), the CPU seconds of one call of ``@entry``
    in each of the ``rounds`` rounds (a sample's time over its calls; see the
    module's docstring); dynamic sizes from ``dims`` as in
    ``memplan.numerics.execute``."""
    programs = [_Timed(text, entry, seed, dims) for text in texts]
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        first = [min(p.sample(1) for _ in range(max(warmup, 1))) for p in programs]
        fastest = max(min(first), 1e-6)
        batch = max(1, math.ceil(SAMPLE_SECONDS / fastest))
        biggest = max(p.input_bytes for p in programs)
        batch = max(1, min(batch, BATCH_BYTES // max(biggest, 1)))
        slowest = max(first)
        rounds = min(MORE_ROUNDS * rounds, max(rounds, math.ceil(rounds * LONG_CALL / slowest)))
        times: list[list[float]] = [[] for _ in texts]
        for _ in range(rounds):
            for program, out in zip(programs, times):
                out.append(program.sample(batch) / batch)
            gc.collect(0)  # the round's garbage only: a full collection takes 0.4 s
    finally:
        if was_enabled:
            gc.enable()
    return times


def median(values: list[float]) -> float:
    """The median of ``values`` (the mean of the two middle ones for an even count)."""
    xs = sorted(values)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def median_interval(values: list[float], level: float = LEVEL) -> tuple[float, float]:
    """A distribution-free interval for the median of the distribution
    ``values`` are drawn from: ``(x_(k), x_(n+1-k))`` of the sorted values,
    with the largest ``k`` for which the chance that the median lies outside
    (twice the binomial(n, 1/2) tail below ``k``) is at most ``1 - level``.
    ``(-inf, inf)`` when no ``k`` reaches ``level`` (fewer than 6 values at
    95%)."""
    xs = sorted(values)
    n = len(xs)
    k, tail = 0, 0.0
    while k < n // 2:
        below = tail + math.comb(n, k) / 2**n  # P(Binomial(n, 1/2) <= k)
        if 2 * below > 1 - level:
            break
        k, tail = k + 1, below
    if k == 0:
        return -math.inf, math.inf
    return xs[k - 1], xs[n - k]


@dataclass
class Comparison:
    """The run time of ``other`` over ``base``'s, from paired rounds."""

    #: The median per-call seconds of each.
    base_seconds: float
    other_seconds: float
    #: The median of the rounds' ratios other / base, and its interval.
    ratio: float
    low: float
    high: float
    rounds: int

    def cell(self) -> str:
        """``ratio [low, high]`` as reported."""
        if math.isinf(self.high):
            return f"{self.ratio:.3f} [too few rounds]"
        return f"{self.ratio:.3f} [{self.low:.3f}, {self.high:.3f}]"


def compare(base: list[float], other: list[float], level: float = LEVEL) -> Comparison:
    """:class:`Comparison` of two programs' samples taken in the same rounds."""
    ratios = [o / b for b, o in zip(base, other)]
    low, high = median_interval(ratios, level)
    return Comparison(median(base), median(other), median(ratios), low, high, len(ratios))


def verdict(comparison: Comparison, limit: float) -> str:
    """``"within"`` when the whole interval is at or below ``limit``,
    ``"above"`` when it is all above, ``"undecided"`` otherwise."""
    if comparison.high <= limit:
        return "within"
    if comparison.low > limit:
        return "above"
    return "undecided"
