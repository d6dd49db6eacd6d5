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


def test_unknown_pass_and_option_exit_2(tmp_path: Path):
    src = tmp_path / "in.mlir"
    src.write_text(GOOD)
    for pipeline, name in [
        ("builtin.module(memplan-nope)", "memplan-nope"),
        ("builtin.module(nope)", "nope"),
        ("builtin.module(memplan-test-print-graph{nope=1})", "nope"),
        ("builtin.module(canonicalize{nope=1})", "nope"),
    ]:
        r = opt(str(src), f"--pass-pipeline={pipeline}")
        assert r.returncode == 2, (pipeline, r.stderr)
        assert name in r.stderr


def test_pass_failure_exit_1_keeps_old_output(tmp_path: Path):
    # one-shot-bufferize fails on an op it cannot bufferize: diagnostics, exit 1,
    # and the output file is left untouched.
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
    assert out.read_text() == "previous"


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
