from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from mlir import ir


@pytest.fixture
def ctx():
    with ir.Context() as context, ir.Location.unknown():
        yield context


# A trivial program under gdb: stop at a breakpoint, call a function in the
# stopped process, go on to the end. On some machines ptrace cannot write
# the registers ("Couldn't write extended state status: Bad address").
_GDB_PROBE = """\
set breakpoint pending on
set pagination off
set confirm off
break getpid
run
delete
print (int) getpid()
continue
"""


@functools.lru_cache(maxsize=None)
def gdb_unusable_reason() -> str | None:
    """Why gdb cannot debug a process here (None when it can)."""
    gdb = shutil.which("gdb")
    if gdb is None:
        return "gdb is not installed"
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write(_GDB_PROBE)
    command = [
        gdb,
        "-batch",
        "-nx",
        "-x",
        f.name,
        "--args",
        sys.executable,
        "-c",
        "import os; os.getpid()",
    ]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "gdb did not finish a trivial session within 120 s"
    finally:
        os.unlink(f.name)
    out = run.stdout + run.stderr
    if "exited normally" in out and "$1 = " in out and "Couldn't" not in out:
        return None
    lines = [line for line in run.stderr.splitlines() if line.strip()] or out.splitlines()
    return "gdb cannot stop and resume a process here: " + " | ".join(lines[-3:])


@pytest.fixture(scope="session")
def gdb() -> str:
    """gdb's path; skips the test (with the reason) where gdb cannot set a
    breakpoint, call a function and resume a process."""
    reason = gdb_unusable_reason()
    if reason is not None:
        pytest.skip(reason)
    return shutil.which("gdb")
