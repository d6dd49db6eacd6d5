"""The GIL rules of memplan's bindings (include/memplan/Bindings/Bindings.h):
a nested pipeline that fails is an ``MLIRError`` with its diagnostics, never a
signal; memplan passes on the pass manager's worker threads never wait forever.

Each case runs in a child process: a broken rule kills the interpreter
(SIGSEGV, or SIGABRT with nanobind's "GIL was not held") or hangs it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: An op upstream's bufferization cannot bufferize: with copy-before-write,
#: memplan-one-shot-bufferize runs upstream's pass as a nested pipeline,
#: which fails.
NOT_BUFFERIZABLE = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "test.foo"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

#: A returned buffer that goes through an op of unknown memory effects:
#: memplan-buffer-deallocation leaves it to upstream's ownership-based
#: deallocation (a nested pipeline), which rejects the op.
UNKNOWN_EFFECTS = """
func.func @f(%n: index) -> memref<?xf32> {
  %m = memref.alloc(%n) : memref<?xf32>
  %r = "test.foo"(%m) : (memref<?xf32>) -> memref<?xf32>
  return %r : memref<?xf32>
}
"""

#: Three nested modules: a pass anchored on them runs on the pass manager's
#: worker threads, one module each.
NESTED_MODULES = (
    "module {\n"
    + "".join(
        f"  module @m{i} {{\n    func.func @f(%a: memref<4xf32>) {{ return }}\n  }}\n"
        for i in range(3)
    )
    + "}\n"
)

SCRIPT = """
import sys
from mlir import ir, passmanager
import memplan

source, how, pipeline, handler = sys.argv[1:5]
with ir.Context() as ctx:
    ctx.allow_unregistered_dialects = True
    module = ir.Module.parse(open(source).read())
    seen = []
    if handler == "handler":
        # A Python handler of its own, which the bindings' capture leaves the
        # errors to: it must run with the GIL.
        ctx.emit_error_diagnostics = True
        ctx.attach_diagnostic_handler(lambda d: seen.append(d.message) or True)
    try:
        if how == "pass_manager":
            passmanager.PassManager.parse(pipeline).run(module.operation)
        else:
            memplan.run_pipeline(module, pipeline)
    except ir.MLIRError as err:
        print("MLIRError:", err)
        for message in seen:
            print("handler saw:", message)
        sys.exit(3)
print("ok")
"""


def run_child(
    tmp_path, source: str, how: str, pipeline: str, handler: str = "none"
) -> subprocess.CompletedProcess:
    path = tmp_path / "input.mlir"
    path.write_text(source)
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(SCRIPT))
    return subprocess.run(
        [sys.executable, str(script), str(path), how, pipeline, handler],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("how", ["pass_manager", "run_pipeline"])
@pytest.mark.parametrize(
    "source, pipeline, message",
    [
        (
            NOT_BUFFERIZABLE,
            "builtin.module(memplan-one-shot-bufferize{copy-before-write})",
            "op was not bufferized",
        ),
        (
            UNKNOWN_EFFECTS,
            "builtin.module(memplan-buffer-deallocation)",
            "ops with unknown memory side effects are not supported",
        ),
    ],
)
def test_failing_nested_pipeline_is_an_mlir_error(tmp_path, how, source, pipeline, message):
    # Upstream's pass fails inside memplan's pass; its diagnostics reach the
    # bindings' error capture with the GIL held: MLIRError, with the error and
    # its note, and the interpreter lives on.
    run = run_child(tmp_path, source, how, pipeline)
    assert run.returncode == 3, (run.returncode, run.stderr[-2000:])
    assert "MLIRError: Failure while executing pass pipeline" in run.stdout
    assert 'error: "-":' in run.stdout and f": {message}" in run.stdout
    assert "note:" in run.stdout and "see current operation" in run.stdout


@pytest.mark.parametrize("how", ["pass_manager", "run_pipeline"])
def test_python_handler_sees_nested_diagnostics_with_the_gil(tmp_path, how):
    # With emit_error_diagnostics, the nested pipeline's error goes to a
    # handler attached from Python (which the bindings call without taking
    # the GIL): it sees it, and the run is still an MLIRError.
    run = run_child(
        tmp_path,
        NOT_BUFFERIZABLE,
        how,
        "builtin.module(memplan-one-shot-bufferize{copy-before-write})",
        "handler",
    )
    assert run.returncode == 3, (run.returncode, run.stderr[-2000:])
    assert "MLIRError: Failure while executing pass pipeline" in run.stdout
    assert "handler saw: op was not bufferized" in run.stdout


def test_nested_modules_with_pass_manager_run_fail_instead_of_hanging(tmp_path):
    # Upstream's PassManager.run holds the GIL while MLIR runs the pass on its
    # worker threads: each pass fails with a located error saying so.
    run = run_child(
        tmp_path,
        NESTED_MODULES,
        "pass_manager",
        "builtin.module(builtin.module(memplan-buffer-liveness))",
    )
    assert run.returncode == 3, (run.returncode, run.stderr[-2000:])
    assert run.stdout.count("runs this pass on a worker thread") == 3
    assert "memplan.run_pipeline" in run.stdout


def test_nested_modules_run_in_parallel_with_run_pipeline(tmp_path):
    # memplan.run_pipeline releases the GIL while MLIR runs: the passes on
    # the worker threads take it in turn.
    run = run_child(
        tmp_path,
        NESTED_MODULES,
        "run_pipeline",
        "builtin.module(builtin.module(memplan-buffer-liveness))",
    )
    assert run.returncode == 0, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
    assert run.stdout.strip().endswith("ok")
    assert run.stdout.count("liveness @f") == 3


def test_nested_pipeline_failure_in_memplan_opt(tmp_path):
    # The command line: MLIR's located error, exit code 1.
    path = tmp_path / "input.mlir"
    path.write_text(NOT_BUFFERIZABLE)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memplan.cli.opt",
            "--allow-unregistered-dialect",
            str(path),
            "--pass-pipeline=builtin.module(memplan-one-shot-bufferize{copy-before-write})",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, (run.returncode, run.stderr[-2000:])
    assert "input.mlir:3:8: error: op was not bufferized" in run.stderr


def test_run_pipeline_records_passes_of_every_thread(ctx):
    # The memplan passes run on worker threads are recorded too.
    from mlir import ir

    import memplan

    module = ir.Module.parse(NESTED_MODULES)
    ran = memplan.run_pipeline(module, "builtin.module(builtin.module(memplan-buffer-liveness))")
    assert [p.info.argument for p in ran] == ["memplan-buffer-liveness"] * 3
