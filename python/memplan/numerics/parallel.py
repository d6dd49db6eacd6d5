"""One side of a comparison in a forked child, while the parent does the other.

:func:`start` forks a child that calls a function and sends back what it
returns (or raises) pickled through a pipe; :meth:`Child.result` waits for
it. ``memplan-check`` JIT-compiles and runs AFTER this way while BEFORE is
compiled and run in the parent: on two cores the two sides' LLVM code
generation and runs overlap. Each side is compiled from its own module by the
same pipeline, in its own process, exactly as it would be in sequence: the
bits are the same.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from typing import Any, Callable, Optional, Tuple

__all__ = ["Child", "start", "cores"]


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Child:
    """A forked child computing one value (see :func:`start`)."""

    def __init__(self, pid: int, read_end: int, what: str):
        self.pid = pid
        self.read_end = read_end
        self.what = what

    def raw(self) -> Tuple[bytes, int]:
        """Wait for the child: everything it wrote to the pipe (the pickled
        report, or what ``prepare`` had written instead) and its wait
        status."""
        with os.fdopen(self.read_end, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        return payload, status

    def result(self) -> Any:
        """Wait for the child: its function's value, or what it raised (an
        exception that cannot cross as itself becomes a ``RuntimeError``
        with its text). A child that dies raises ``RuntimeError``."""
        payload, status = self.raw()
        return self.decode(payload, status)

    def decode(self, payload: bytes, status: int) -> Any:
        """:meth:`result` from what :meth:`raw` returned."""
        if not payload:
            how = (
                f"signal {os.WTERMSIG(status)}"
                if os.WIFSIGNALED(status)
                else f"exit code {os.WEXITSTATUS(status)}"
            )
            raise RuntimeError(f"{self.what} died ({how}) before it reported")
        kind, value = pickle.loads(payload)
        if kind == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the child (its value is no longer wanted) and reap it."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self.read_end)
        with contextlib.suppress(OSError):
            os.waitpid(self.pid, 0)


def start(
    function: Callable[[], Any], what: str, prepare: Optional[Callable[[int], None]] = None
) -> Child:
    """Fork a child that calls ``function()`` and reports its value.

    ``prepare``, if given, runs first in the child with the pipe's write
    end (``memplan.numerics.runner``: a fault handler that writes its own
    record there instead of a report)."""
    read_end, write_end = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered may come out twice
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: compute, report, leave without cleaning up
        code = 0
        try:
            os.close(read_end)
            try:
                if prepare is not None:
                    prepare(write_end)
                payload = pickle.dumps(("ok", function()), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as err:  # noqa: BLE001 - reported to the parent
                code = 3
                try:
                    payload = pickle.dumps(("error", err))
                    pickle.loads(payload)  # it must come back as itself
                except Exception:  # noqa: BLE001
                    payload = pickle.dumps(("error", RuntimeError(f"{type(err).__name__}: {err}")))
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        finally:
            os._exit(code)
    os.close(write_end)
    return Child(pid, read_end, what)
