"""memplan-opt's ``--mlir-enable-debugger-hook`` under gdb, compared with
mlir-opt's: gdb sets breakpoints on action tags through the
``mlirDebugger*`` functions, stops in ``mlirDebuggerBreakpointHook``, prints
the action's IR units and moves the cursor, and steps or skips actions; what
both tools print (their stdout and stderr, apart from gdb's) and write must
be the same."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_opt_parity import MLIR_OPT

INPUT = """\
func.func @foo(%arg0: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.addi %arg0, %c0 : i32
  %1 = arith.muli %0, %c2 : i32
  %2 = arith.muli %1, %c3 : i32
  return %2 : i32
}
"""

PIPELINE = "--pass-pipeline=builtin.module(func.func(canonicalize,cse))"

# At the first stop (the pass manager running on the module): the context,
# a walk of the cursor, the backtrace, then steps: every action stops (before
# it runs, and once more after it ran) and prints its backtrace. (Not its
# context: after a pattern erased its op, mlir-opt would print freed memory.)
STEP_SESSION = """\
call (void*)mlirDebuggerAddTagBreakpoint("pass-execution")
break mlirDebuggerBreakpointHook
continue
call (void)mlirDebuggerPrintContext()
call (void)mlirDebuggerCursorPrint(0)
call (void)mlirDebuggerCursorSelectIRUnitFromContext(0)
call (void)mlirDebuggerCursorSelectChildIRUnit(0)
call (void)mlirDebuggerCursorSelectChildIRUnit(0)
call (void)mlirDebuggerCursorSelectChildIRUnit(0)
call (void)mlirDebuggerCursorPrint(1)
call (void)mlirDebuggerCursorSelectChildIRUnit(0)
call (void)mlirDebuggerCursorSelectChildIRUnit(0)
call (void)mlirDebuggerCursorSelectNextIRUnit()
call (void)mlirDebuggerCursorSelectPreviousIRUnit()
call (void)mlirDebuggerCursorSelectParentIRUnit()
call (void)mlirDebuggerCursorSelectChildIRUnit(7)
call (void)mlirDebuggerPrintActionBacktrace(1)
call (void)mlirDebuggerSetControl(3)
commands 2
  call (void)mlirDebuggerPrintActionBacktrace(0)
  call (void)mlirDebuggerSetControl(3)
  continue
end
continue
"""

# Every pattern application stops and is skipped: the two multiplications
# stay (folding the addition of zero is no pattern), and the log names the
# breakpoint.
SKIP_SESSION = """\
call (void*)mlirDebuggerAddTagBreakpoint("apply-pattern")
break mlirDebuggerBreakpointHook
commands 2
  call (void)mlirDebuggerPrintContext()
  call (void)mlirDebuggerSetControl(2)
  continue
end
continue
"""

# A breakpoint disabled again stops nothing.
DISABLED_SESSION = """\
set $tagBreakpoint = ((void *(*)(const char *))mlirDebuggerAddTagBreakpoint)("pass-execution")
call (void)mlirDebuggerDisableBreakpoint($tagBreakpoint)
call (void)mlirDebuggerPrintContext()
call (void)mlirDebuggerCursorPrint(0)
break mlirDebuggerBreakpointHook
continue
"""

# Actions on the op at line 7 (the second multiplication) stop; the first
# stop goes to the next action at its depth, the others finish their parent.
LOCATION_SESSION = """\
call (void)mlirDebuggerAddFileLineColLocBreakpoint("in.mlir", 7, -1)
break mlirDebuggerBreakpointHook
continue
call (void)mlirDebuggerPrintContext()
call (void)mlirDebuggerPrintActionBacktrace(1)
call (void)mlirDebuggerSetControl(4)
commands 2
  call (void)mlirDebuggerPrintActionBacktrace(0)
  call (void)mlirDebuggerSetControl(5)
  continue
end
continue
"""

SESSIONS = {
    "step": STEP_SESSION,
    "skip": SKIP_SESSION,
    "disabled": DISABLED_SESSION,
    "location": LOCATION_SESSION,
}

# How each tool is run under gdb, and where it stops once the mlirDebugger*
# functions are loaded: mlir-opt at main (libMLIR.so is loaded with it),
# memplan-opt once Python has loaded memplan's extension. `{args}` is the
# command line, with the tool's stdout and stderr sent to files.
TOOLS = {
    "mlir-opt": (MLIR_OPT, [], "start {args}\n"),
    "memplan-opt": (
        sys.executable,
        ["-m", "memplan.cli.opt"],
        "break PyInit__core\nrun {args}\ndelete\nfinish\n",
    ),
}


def run_under_gdb(gdb: str, tool: str, session: str, extra: list[str],
                  tmp_path: Path) -> dict[str, str]:
    """Runs `tool` under gdb with `session`; returns what the tool printed
    and wrote, addresses and the tool's name normalized."""
    work = tmp_path / tool
    work.mkdir()
    (work / "in.mlir").write_text(INPUT)
    program, prefix, start = TOOLS[tool]
    args = [*prefix, "in.mlir", "--mlir-enable-debugger-hook", "--mlir-disable-threading",
            PIPELINE, "-o", "out.mlir", *extra]
    command_line = " ".join(map(shlex.quote, args)) + " > stdout 2> stderr"
    script = "set breakpoint pending on\nset pagination off\nset confirm off\n"
    (work / "session.gdb").write_text(script + start.format(args=command_line) + session)
    session_run = subprocess.run([gdb, "-batch", "-nx", "-x", "session.gdb", program],
                                 cwd=work, capture_output=True, text=True, timeout=300)
    assert "exited normally" in session_run.stdout, session_run.stdout + session_run.stderr
    files = {name: (work / name).read_text() for name in ("stdout", "stderr", "out.mlir")}
    for name in ("log.txt",):
        if (work / name).exists():
            files[name] = (work / name).read_text()
    for name, text in files.items():
        text = re.sub(r"0x[0-9a-f]+", "0x?", text)
        text = re.sub(r"\[thread [^\]]*\]", "[thread ?]", text)
        files[name] = text.replace(MLIR_OPT, "memplan-opt").replace("mlir-opt", "memplan-opt")
    files["hook stops"] = str(session_run.stdout.count("in mlirDebuggerBreakpointHook"))
    return files


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_debugger_session_same_as_mlir_opt(gdb: str, name: str, tmp_path: Path):
    extra = ["--log-actions-to=log.txt"] if name == "skip" else []
    want = run_under_gdb(gdb, "mlir-opt", SESSIONS[name], extra, tmp_path)
    got = run_under_gdb(gdb, "memplan-opt", SESSIONS[name], extra, tmp_path)
    assert got == want
    assert "ExecutionContext registered on the context (with Debugger hook)" in got["stderr"]
    stops = int(got["hook stops"])
    if name == "step":
        assert stops > 2
        assert "ActionActiveStack depth 3" in got["stdout"]
        assert "Index invalid, region has 1 block but got 7" in got["stdout"]
        assert got["out.mlir"].count("arith.muli") == 1
    elif name == "skip":
        assert stops > 0 and got["out.mlir"].count("arith.muli") == 2
        assert "skipping (on breakpoint: Tag: `apply-pattern`)" in got["log.txt"]
    elif name == "location":
        assert stops > 1
        assert '%1 = arith.muli %0, %c3_i32 : i32 loc("in.mlir":7:8)' in got["stdout"]
    else:
        assert stops == 0
        assert got["stdout"].startswith("No active action.\nNo active MLIR cursor")
