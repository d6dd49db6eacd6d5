"""Where a check's time goes: wall-clock seconds per phase (``memplan-check -v``).

A :class:`PhaseTimes` collects named phases in the order they first run;
a phase that runs again (one per side, per run) adds to its total and
counts its runs. Every function that takes one also takes ``None``: then
nothing is measured.
"""

from __future__ import annotations

import contextlib
import time
from typing import Dict, Iterator, List, Optional

__all__ = ["PhaseTimes", "phase"]


class PhaseTimes:
    """Seconds per named phase, in the order the phases first ran."""

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = {}
        self.counts: Dict[str, int] = {}

    def add(self, name: str, seconds: float) -> None:
        """Add ``seconds`` to phase ``name`` (one more run of it)."""
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.counts[name] = self.counts.get(name, 0) + 1

    @contextlib.contextmanager
    def measure(self, name: str) -> Iterator[None]:
        """Time the body of a ``with`` as phase ``name``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def merge(self, other: "PhaseTimes") -> None:
        """Add ``other``'s phases (measured in another process)."""
        for name, seconds in other.seconds.items():
            self.seconds[name] = self.seconds.get(name, 0.0) + seconds
            self.counts[name] = self.counts.get(name, 0) + other.counts[name]

    def lines(self) -> List[str]:
        """One ``name: 1.23 s`` line per phase (``(2 runs)`` where it ran more
        than once)."""
        out = []
        for name, seconds in self.seconds.items():
            runs = self.counts[name]
            out.append(f"{name}: {seconds:.2f} s" + (f" ({runs} runs)" if runs > 1 else ""))
        return out


def phase(times: Optional[PhaseTimes], name: str) -> contextlib.AbstractContextManager:
    """``times.measure(name)``, or a context that measures nothing when
    ``times`` is ``None``."""
    return times.measure(name) if times is not None else contextlib.nullcontext()
