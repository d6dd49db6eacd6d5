"""The tools the benchmarks run (the wheel's mlir-opt and this venv's
memplan-opt) and how a run of one is measured."""

from __future__ import annotations

import importlib.util
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import NamedTuple


def package_tool(package: str, name: str) -> str:
    """``<site-packages>/<package>/bin/<name>``."""
    spec = importlib.util.find_spec(package)
    return os.path.join(list(spec.submodule_search_locations)[0], "bin", name)


MLIR_OPT = package_tool("mlir", "mlir-opt")
MEMPLAN_OPT = os.path.join(os.path.dirname(sys.executable), "memplan-opt")


class Measured(NamedTuple):
    """One process run: CPU seconds (user + system, all its threads), wall
    seconds, maximum resident set in MB; CPU and wall are inf when the run
    was stopped at its timeout. CPU time is what the comparisons use on a
    shared machine: other jobs stretch the wall time of both tools."""

    cpu: float
    wall: float
    rss_mb: float


#: GNU time, run between this (large) Python process and the tool: a child
#: forked from a large process inherits its resident high-water mark, so the
#: tool's own maximum resident set is only measured from a small parent.
TIME = "/usr/bin/time"


def measure(argv: list[str], timeout: float | None = None) -> Measured:
    """Runs `argv` (output discarded) and measures it; raises
    CalledProcessError (with the end of its stderr) when it fails. Without
    GNU time the resident set is not measured (nan)."""
    timed = os.path.exists(TIME)
    if timed:
        argv = [TIME, "-f", "memplan-measure %U %S %M"] + argv
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        stopped = threading.Event()

        def stop() -> None:
            stopped.set()
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, stop) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if timer:
            timer.cancel()
        if stopped.is_set():
            return Measured(math.inf, math.inf, math.nan)
        err.seek(0)
        text = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, argv, stderr=text[-2000:])
    cpu, rss = usage.ru_utime + usage.ru_stime, math.nan
    for line in text.splitlines():
        if line.startswith("memplan-measure "):
            user, system, kib = line.split()[1:]
            cpu, rss = float(user) + float(system), int(kib) / 1024
    return Measured(cpu, wall, rss)
