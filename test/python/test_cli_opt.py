"""memplan-opt exit codes and output-file behaviour (run as a subprocess)."""

import subprocess
import sys
from pathlib import Path

GOOD = "func.func @f() {\n  return\n}\n"
BAD = "func.func @f() {\n  nope\n}\n"


def opt(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
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
    p = subprocess.Popen([sys.executable, "-m", "memplan.cli.opt", str(src)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
    src.write_text("func.func @f() {\n  return\n}\n"
                   "module attributes {x = 1} {\n  func.func @g() {\n    return\n  }\n}\n"
                   "{-#\n  dialect_resources: {\n    builtin: {\n    }\n  }\n#-}\n"
                   "module {\n}\n")
    for _ in range(10):
        p = opt(str(src))
        assert p.returncode == 1, p.stderr
        assert "can only contain attributes with dialect-prefixed names" in p.stderr


def test_help_lists_mlir_opt_flags_and_memplan_passes():
    r = opt("--help")
    assert r.returncode == 0, r.stderr
    for flag in ("--verify-diagnostics", "--split-input-file", "--mlir-print-ir-after-all",
                 "--mlir-timing", "--emit-bytecode", "--memplan-buffer-reuse", "--one-shot-bufferize"):
        assert flag in r.stdout, flag
