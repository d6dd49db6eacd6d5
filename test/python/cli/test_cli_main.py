"""The ``memplan`` subcommands on input they cannot handle: a clear message
and exit code 1, never a traceback."""

import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
BIN = os.path.dirname(sys.executable)
MEMPLAN = os.path.join(BIN, "memplan")
MEMPLAN_OPT = os.path.join(BIN, "memplan-opt")
RESMLP = os.path.join(ROOT, "examples", "resmlp.mlir")

TENSOR_FN = "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n  return %a : tensor<8xf32>\n}\n"


def _run(*args, **kwargs):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300, **kwargs)


def test_report_refuses_tensor_ir(tmp_path):
    src = tmp_path / "t.mlir"
    src.write_text(TENSOR_FN)
    p = _run(MEMPLAN, "report", str(src))
    assert p.returncode == 1 and p.stdout == ""
    assert "holds tensor IR" in p.stderr and "--bufferize" in p.stderr
    assert "Traceback" not in p.stderr
    p = _run(MEMPLAN, "report", str(src), "--bufferize")
    assert p.returncode == 0 and "liveness @f" in p.stdout


def test_report_help_names_the_bufferization_it_runs():
    # --bufferize runs memplan's in-place analysis in upstream's reference
    # pipeline; the help prints that pipeline, not upstream's pass name.
    from memplan.passes.pipeline import BUFFERIZATION

    p = _run(MEMPLAN, "report", "--help")
    assert p.returncode == 0
    assert "".join(BUFFERIZATION.split()) in "".join(p.stdout.split())
    assert BUFFERIZATION.startswith("memplan-one-shot-bufferize{")


def test_report_function_must_exist():
    p = _run(MEMPLAN, "report", RESMLP, "--bufferize", "--function", "nope")
    assert p.returncode == 1 and p.stdout == ""
    assert "no function 'nope'" in p.stderr
    p = _run(MEMPLAN, "report", RESMLP, "--bufferize", "--function", "resmlp")
    assert p.returncode == 0 and p.stdout.startswith("liveness @resmlp")


def test_report_into_a_closed_pipe():
    p = subprocess.run(
        f"'{MEMPLAN}' report '{RESMLP}' --bufferize | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.stdout.startswith("liveness @resmlp")
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr


def test_add_transient_storage_needs_func():
    p = _run(
        MEMPLAN_OPT,
        os.path.join(ROOT, "examples", "scale.mlir"),
        "--pass-pipeline=builtin.module(memplan-add-transient-storage)",
    )
    assert p.returncode == 1
    assert "the option 'func' (the function to add storage to, without @) is required" in p.stderr


def test_liveness_report_to_an_unwritable_path():
    p = _run(
        MEMPLAN_OPT,
        RESMLP,
        "--pass-pipeline=builtin.module(one-shot-bufferize{bufferize-function-boundaries},"
        "memplan-buffer-liveness{output=/nonexistent/dir/report.txt})",
    )
    assert p.returncode == 1
    assert (
        "cannot write the report to '/nonexistent/dir/report.txt': No such file or directory"
        in p.stderr
    )
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr


def test_only_cli_parses_command_lines():
    """Command-line parsing lives in memplan.cli alone: no other module of the
    package uses argparse or reads sys.argv."""
    import ast

    package = os.path.join(ROOT, "python", "memplan")
    offenders = []
    for folder, _, files in os.walk(package):
        if os.path.relpath(folder, package).split(os.sep)[0] == "cli":
            continue
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            tree = ast.parse(open(path).read(), path)
            for node in ast.walk(tree):
                imported = []
                if isinstance(node, ast.Import):
                    imported = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    imported = [node.module or ""]
                if "argparse" in imported or (
                    isinstance(node, ast.Attribute)
                    and node.attr == "argv"
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "sys"
                ):
                    offenders.append(f"{os.path.relpath(path, package)}:{node.lineno}")
    assert offenders == []
