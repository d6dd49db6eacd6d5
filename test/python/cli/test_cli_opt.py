"""memplan-opt is MLIR's mlir-opt driver with memplan's passes: a smoke set
of its flags (the whole list against the wheel's mlir-opt), exit codes and
output files, -verify-diagnostics, plugins, crash reproducers and the
debugger hook, each with memplan's passes where they take part."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import memplan.passes as registry

MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)
INPUTS = Path(__file__).parents[1] / "inputs" / "opt"

GOOD = "func.func @f() {\n  return\n}\n"
BAD = "func.func @f() {\n  nope\n}\n"


def opt(*args, stdin=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_success_writes_output(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    out = tmp_path / "out.mlir"
    r = opt(str(src), "-o", str(out), "--pass-pipeline=builtin.module(canonicalize)")
    assert r.returncode == 0, r.stderr
    assert "func.func @f()" in out.read_text()


def test_stdin_input():
    r = opt("-", stdin=GOOD)
    assert r.returncode == 0 and "func.func @f()" in r.stdout


def test_parse_error_exit_1_no_output(tmp_path: Path):
    src = tmp_path / "bad.mlir"
    src.write_text(BAD)
    out = tmp_path / "out.mlir"
    r = opt(str(src), "-o", str(out))
    assert r.returncode == 1
    assert f"{src}:2:3: error:" in r.stderr
    assert not out.exists()


def test_unknown_pass_and_option_exit_1_like_mlir_opt(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    for pipeline, name in [
        ("builtin.module(memplan-nope)", "memplan-nope"),
        ("builtin.module(nope)", "nope"),
        ("builtin.module(memplan-test-print-graph{nope=1})", "nope"),
        ("builtin.module(canonicalize{nope=1})", "nope"),
    ]:
        r = opt(str(src), f"--pass-pipeline={pipeline}")
        assert r.returncode == 1, (pipeline, r.stderr)
        assert name in r.stderr and "Traceback" not in r.stderr


def test_pass_failure_exit_1_removes_output(tmp_path: Path):
    # one-shot-bufferize fails on an op it cannot bufferize: diagnostics, exit 1,
    # and no output file, as with mlir-opt.
    src = tmp_path / "in.mlir"
    src.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
        "  return %0 : tensor<4xf32>\n}\n"
    )
    out = tmp_path / "out.mlir"
    out.write_text("previous")
    r = opt(str(src), "-o", str(out), "--pass-pipeline=builtin.module(one-shot-bufferize)")
    assert r.returncode == 1
    assert f"{src}:2:8: error: op was not bufferized" in r.stderr
    assert not out.exists()


def test_output_writes_through_a_symlink(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    target = tmp_path / "target.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    r = opt(str(src), "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and "func.func @f()" in target.read_text()


def test_output_into_a_fifo(tmp_path: Path):
    import os
    import threading

    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    r = opt(str(src), "-o", str(fifo))
    reader.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert fifo.exists() and not fifo.is_file()  # still a FIFO
    assert got and "func.func @f()" in got[0]


def test_output_mode_follows_umask(tmp_path: Path):
    import os

    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    out = tmp_path / "out.mlir"
    old = os.umask(0o022)
    try:
        r = opt(str(src), "-o", str(out))
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert (out.stat().st_mode & 0o777) == 0o644


def test_unwritable_output_is_a_message_not_a_traceback(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    r = opt(str(src), "-o", str(tmp_path / "missing" / "x.mlir"))
    assert r.returncode == 1
    assert r.stderr.startswith("cannot open output file") and "Traceback" not in r.stderr


def test_broken_pipe_exits_1_without_traceback(tmp_path: Path):
    src = tmp_path / "big.mlir"
    src.write_text("".join(f"func.func @f{i}() {{ return }}\n" for i in range(20000)))
    p = subprocess.Popen(
        [sys.executable, "-m", "memplan.cli.opt", str(src)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdout.read(10)
    p.stdout.close()  # the reader goes away, like `| head`
    err = p.stderr.read().decode()
    assert p.wait() == 1
    assert "Broken pipe" in err and "Traceback" not in err


def test_bad_bytes_are_a_diagnostic(tmp_path: Path):
    for data in (b"\xff\xfe\x00garbage", b"func.func @f() { \xc3\x28 }"):
        src = tmp_path / "bad.mlir"
        src.write_bytes(data)
        r = subprocess.run([sys.executable, "-m", "memplan.cli.opt", str(src)], capture_output=True)
        assert r.returncode == 1
        assert r.stderr.startswith(str(src).encode() + b":1:") and b"Traceback" not in r.stderr


def test_empty_input_is_an_empty_module():
    r = opt("-", stdin="// nothing here\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "module {\n}"


def test_verifier_errors_in_nested_modules_are_reported_not_fatal(tmp_path: Path):
    """Two isolated-from-above ops failing verification: with MLIR's
    multithreaded verifier the bindings' error capture ran on worker threads
    and aborted the process now and then; every run must report and exit 1."""
    src = tmp_path / "nested.mlir"
    src.write_text(
        "func.func @f() {\n  return\n}\n"
        "module attributes {x = 1} {\n  func.func @g() {\n    return\n  }\n}\n"
        "{-#\n  dialect_resources: {\n    builtin: {\n    }\n  }\n#-}\n"
        "module {\n}\n"
    )
    for _ in range(10):
        p = opt(str(src))
        assert p.returncode == 1, p.stderr
        assert "can only contain attributes with dialect-prefixed names" in p.stderr


def _help_entries(text: str) -> list[list[str]]:
    """LLVM's ``--help-hidden`` output from its option list on, as entries:
    a line at the left (an option, a category, a group's description such as
    "Compiler passes to run") with the lines nested under it."""
    entries: list[list[str]] = []
    for line in text[text.index("OPTIONS:") :].splitlines():
        if len(line) - len(line.lstrip()) <= 2 or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return entries


def _without_memplan_passes(pass_list: list[str]) -> tuple[list[str], set[str]]:
    """The pass list without memplan's passes (a pass' line, then its options
    and their values), and the memplan passes found."""
    kept, found, skipping = [], set(), False
    for line in pass_list:
        indent = len(line) - len(line.lstrip())
        if indent == 6 and line.lstrip().startswith("--"):
            name = line.split()[0]
            skipping = name.startswith("--memplan-")
            if skipping:
                found.add(name)
        elif indent <= 4 and not line.lstrip().startswith("="):
            skipping = False
        if not skipping:
            kept.append(line)
    return kept, found


def test_help_hidden_is_mlir_opt_s_plus_memplan_passes():
    # The same options as the wheel's mlir-opt, word for word, and memplan's
    # passes and pipelines (with their options) in the pass list. (Where LLVM
    # prints an option group among the others changes from run to run, in
    # mlir-opt too: the entries are compared in sorted order.)
    want = subprocess.run([MLIR_OPT, "--help-hidden"], capture_output=True, text=True)
    got = opt("--help-hidden")
    assert got.returncode == want.returncode == 0
    theirs, ours = _help_entries(want.stdout), _help_entries(got.stdout)
    pass_list = next(i for i, entry in enumerate(ours) if entry[0] == "  Compiler passes to run")
    ours[pass_list], memplan = _without_memplan_passes(ours[pass_list])
    assert len(theirs) > 2000 and max(len(entry) for entry in theirs) > 500
    assert sorted(ours) == sorted(theirs)
    assert memplan == {f"--{info.argument}" for info in registry.registered_passes()}


def test_verify_diagnostics_checks_memplan_remarks_in_every_chunk(tmp_path: Path):
    # Each chunk runs in a context of its own: memplan's remarks are MLIR
    # diagnostics there, met by expected-remark lines; unmet ones fail.
    chunk = (
        "func.func @{name}(%x: memref<8xf32>) -> memref<8xf32> {{\n"
        "  // expected-remark @below {{{{not pooled: escapes-return}}}}\n"
        "  %r = memref.alloc() : memref<8xf32>\n"
        "  memref.copy %x, %r : memref<8xf32> to memref<8xf32>\n"
        "  return %r : memref<8xf32>\n}}\n"
    )
    src = tmp_path / "in.mlir"
    src.write_text("\n// -----\n\n".join(chunk.format(name=f"f{i}") for i in range(3)))
    common = [str(src), "--split-input-file", "-verify-diagnostics", "-o", os.devnull]
    r = opt(*common, "-memplan-buffer-reuse=remarks")
    assert (r.returncode, r.stderr) == (0, "")
    r = opt(*common, "-memplan-buffer-reuse")
    assert r.returncode == 1
    assert (
        r.stderr.count('error: expected remark "not pooled: escapes-return" was not produced') == 3
    )


def test_crash_reproducer_of_a_failing_memplan_pass(tmp_path: Path):
    # The reproducer names memplan's pass with its options, and running it
    # fails the same way.
    src = INPUTS / "call_writes_arg.mlir"
    pipeline = "builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries copy-before-write})"
    error = "error: memplan-one-shot-bufferize: copy-before-write"
    r = opt(
        str(src),
        f"--pass-pipeline={pipeline}",
        "--mlir-pass-pipeline-crash-reproducer=repro.mlir",
        cwd=tmp_path,
    )
    assert r.returncode == 1 and f"{src}:8:8: {error}" in r.stderr
    repro = (tmp_path / "repro.mlir").read_text()
    assert "mlir_reproducer" in repro and "memplan-one-shot-bufferize{" in repro
    again = opt("repro.mlir", "--run-reproducer", cwd=tmp_path)
    assert again.returncode == 1 and f"repro.mlir:9:10: {error}" in again.stderr


def test_bad_debug_counter_is_exit_1_not_an_abort(tmp_path: Path):
    # The driver's fatal error (mlir-opt aborts on it) ends memplan-opt with
    # its message and exit code 1.
    args = [str(INPUTS / "bufz.mlir"), "--mlir-debug-counter=pass-execution"]
    upstream = subprocess.run([MLIR_OPT, *args], capture_output=True, text=True)
    assert upstream.returncode < 0 or upstream.returncode >= 128
    r = opt(*args)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == (
        "error: expected DebugCounter argument to have an `=` separating the counter name and value, "
        "but the provided argument was: `pass-execution`\n"
        "LLVM ERROR: Invalid DebugCounter command-line configuration\n"
    )


def test_log_actions_shows_memplan_passes(tmp_path: Path):
    r = opt(
        str(INPUTS / "bufz.mlir"),
        "--log-actions-to=-",
        "--mlir-disable-threading",
        "--pass-pipeline=builtin.module(canonicalize,memplan-buffer-liveness{format=none})",
    )
    assert r.returncode == 0, r.stderr
    assert "Action `pass-execution` running `Canonicalizer`" in r.stdout
    assert "Action `pass-execution` running `MemplanBufferLivenessPass`" in r.stdout


def test_plugin_that_does_not_load_is_an_error(tmp_path: Path):
    # mlir-opt prints "Failed to load ... Request ignored." and then aborts on
    # the unchecked error; memplan-opt says why and exits with 1.
    bufz = str(INPUTS / "bufz.mlir")
    upstream = subprocess.run(
        [MLIR_OPT, bufz, "--load-pass-plugin=/nonexistent/p.so"], capture_output=True
    )
    assert upstream.returncode < 0 or upstream.returncode >= 128
    for flag in (
        ["--load-pass-plugin=/nonexistent/p.so"],
        ["-load-pass-plugin", "/nonexistent/p.so"],
    ):
        r = opt(bufz, *flag)
        assert r.returncode == 1 and r.stdout == ""
        assert r.stderr.startswith(
            "Failed to load passes from '/nonexistent/p.so': Could not load library '/nonexistent/p.so': "
        )
    # A shared library without the entry point.
    libm = subprocess.run(
        ["python3", "-c", "import ctypes.util; print(ctypes.util.find_library('m'))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    r = opt(bufz, f"--load-dialect-plugin={libm}")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(f"Failed to load dialect plugin from '{libm}': ")
    assert "entry point not found" in r.stderr


# A plugin in plain C (no MLIR headers needed): its entry points return
# MLIR's PassPluginLibraryInfo / DialectPluginLibraryInfo layout, and its
# callbacks say on stderr that they ran.
PLUGIN_C = r"""
#include <stdint.h>
#include <stdio.h>
typedef struct { uint32_t api; const char *name, *version; void (*cb)(void); } PassInfo;
typedef struct { uint32_t api; const char *name, *version; void (*cb)(void *); } DialectInfo;
static void passes(void) { fprintf(stderr, "pass plugin registered\n"); }
static void dialects(void *registry) { fprintf(stderr, "dialect plugin got a registry: %d\n", registry != 0); }
PassInfo mlirGetPassPluginInfo(void) { PassInfo i = {API, "P", "v1", passes}; return i; }
DialectInfo mlirGetDialectPluginInfo(void) { DialectInfo i = {API, "D", "v1", dialects}; return i; }
"""


def build_plugin(tmp_path: Path, api: int) -> Path:
    src = tmp_path / "plugin.c"
    src.write_text(PLUGIN_C)
    lib = tmp_path / f"plugin{api}.so"
    subprocess.run(["cc", "-shared", "-fPIC", f"-DAPI={api}", str(src), "-o", str(lib)], check=True)
    return lib


def test_plugins_load_like_mlir_opt(tmp_path: Path):
    lib = build_plugin(tmp_path, 1)
    args = [
        str(INPUTS / "bufz.mlir"),
        f"--load-pass-plugin={lib}",
        f"--load-dialect-plugin={lib}",
        "-canonicalize",
    ]
    want = subprocess.run([MLIR_OPT, *args], capture_output=True, text=True)
    got = opt(*args)
    assert want.stderr == "pass plugin registered\ndialect plugin got a registry: 1\n"
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)


def test_plugin_of_another_api_version_is_an_error(tmp_path: Path):
    lib = build_plugin(tmp_path, 7)
    r = opt(str(INPUTS / "bufz.mlir"), f"--load-pass-plugin={lib}")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (
        f"Failed to load passes from '{lib}': Wrong API version on plugin '{lib}'. "
        "Got version 7, supported version is 1.\n"
    )


# The debugger hook under gdb: memplan-opt runs as `python -m
# memplan.cli.opt`; once memplan's extension (which holds the mlirDebugger*
# functions) is loaded, a breakpoint on the `pass-execution` tag stops every
# pass, and each is skipped.
DEBUGGER_SESSION = """\
set breakpoint pending on
set pagination off
set confirm off
break PyInit__core
run {args}
delete
finish
call (void*)mlirDebuggerAddTagBreakpoint("pass-execution")
break mlirDebuggerBreakpointHook
commands 2
  call (void)mlirDebuggerPrintContext()
  call (void)mlirDebuggerSetControl(2)
  continue
end
continue
"""

FOLDABLE = """\
func.func @foo(%arg0: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %arg0, %c0 : i32
  return %0 : i32
}
"""


def test_debugger_hook_skips_passes_under_gdb(gdb: str, tmp_path: Path):
    (tmp_path / "in.mlir").write_text(FOLDABLE)
    args = (
        "-m memplan.cli.opt in.mlir --mlir-enable-debugger-hook --mlir-disable-threading "
        "-canonicalize -o out.mlir > stdout 2> stderr"
    )
    (tmp_path / "session.gdb").write_text(DEBUGGER_SESSION.format(args=args))
    session = subprocess.run(
        [gdb, "-batch", "-nx", "-x", "session.gdb", sys.executable],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "exited normally" in session.stdout, session.stdout + session.stderr
    assert session.stdout.count("in mlirDebuggerBreakpointHook") == 1
    assert "`pass-execution` running `Canonicalizer`" in (tmp_path / "stdout").read_text()
    # Skipped: the addition of zero is still there (canonicalize folds it).
    assert "arith.addi" in (tmp_path / "out.mlir").read_text()
    assert "arith.addi" not in opt("-", "-canonicalize", stdin=FOLDABLE).stdout
