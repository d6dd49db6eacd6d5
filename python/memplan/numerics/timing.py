"""Where a check's time goes: seconds per phase (``memplan-check -v``).

A :class:`PhaseTimes` collects named phases in the order they first run;
a phase that runs again (one per side, per run) adds to its total and
counts its runs. Each phase has its wall-clock seconds and its CPU seconds
(user + system of this process and of the children it waited for in the
phase: the isolated runs), the figure that holds on a loaded machine.
Every function that takes one also takes ``None``: then nothing is measured.
"""

from __future__ import annotations

import contextlib
import resource
import time
from typing import Dict, Iterator, List, Optional

__all__ = ["PhaseTimes", "phase"]


class PhaseTimes:
    """Seconds per named phase, in the order the phases first ran."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {}
        self.cpu: Dict[str, float] = {}
        self.counts: Dict[str, int] = {}

    def add(self, name: str, seconds: float, cpu: float = 0.0) -> None:
        """Add ``seconds`` (wall clock) and ``cpu`` (CPU seconds) to phase
        ``name`` (one more run of it)."""
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        self.counts[name] = self.counts.get(name, 0) + 1

    @contextlib.contextmanager
    def measure(self, name: str) -> Iterator[None]:
        """Time the body of a ``with`` as phase ``name``."""
        start, cpu = time.perf_counter(), cpu_seconds()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start, cpu_seconds() - cpu)

    def merge(self, other: "PhaseTimes") -> None:
        """Add ``other``'s phases (measured in another process)."""
        for name, seconds in other.seconds.items():
            self.seconds[name] = self.seconds.get(name, 0.0) + seconds
            self.cpu[name] = self.cpu.get(name, 0.0) + other.cpu.get(name, 0.0)
            self.counts[name] = self.counts.get(name, 0) + other.counts[name]

    def lines(self) -> List[str]:
        """One ``name: 1.23 s, 0.98 CPU s`` line per phase (``(2 runs)`` where
        it ran more than once)."""
        out = []
        for name, seconds in self.seconds.items():
            runs = self.counts[name]
            out.append(
                f"{name}: {seconds:.2f} s, {self.cpu[name]:.2f} CPU s"
                + (f" ({runs} runs)" if runs > 1 else "")
            )
        return out


def cpu_seconds() -> float:
    """User + system seconds of this process and of its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def phase(times: Optional[PhaseTimes], name: str) -> contextlib.AbstractContextManager:
    """``times.measure(name)``, or a context that measures nothing when
    ``times`` is ``None``."""
    return times.measure(name) if times is not None else contextlib.nullcontext()
