"""The README's "Using memplan with torch-mlir", run for real where torch and
torch-mlir are installed (``pip install torch`` (CPU) and ``pip install
--no-deps torch-mlir``; they are not memplan dependencies, and the test
extra does not install them): export a small torch model, import it, plan
its memory, run it and compare with torch, from Python and with
memplan-check. Skipped, with the reason, where they are not."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
CHECK = os.path.join(os.path.dirname(sys.executable), "memplan-check")


def _torch_mlir_missing() -> str:
    """Why torch-mlir cannot run here ("" when it can); asked in a child, so
    that torch never loads into the test process."""
    p = subprocess.run(
        [sys.executable, "-c", "import torch, torch_mlir.fx"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if p.returncode == 0:
        return ""
    last = (p.stderr.strip().splitlines() or ["import failed"])[-1]
    return f"torch and torch-mlir are not importable here ({last})"


REASON = _torch_mlir_missing()
pytestmark = pytest.mark.skipif(bool(REASON), reason=REASON or "torch-mlir available")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("torch")
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "torch_mlir.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    return out, p.stdout


def test_example_matches_torch(exported):
    _, stdout = exported
    assert "memplan: output (4, 8) matches torch" in stdout


def test_memplan_check_against_torch(exported):
    out, _ = exported
    p = subprocess.run(
        [
            CHECK,
            str(out / "model.mlir"),
            str(out / "planned.mlir"),
            "--entry",
            "main",
            "--input",
            f"arg0={out / 'x.npy'}",
            "--expect",
            str(out / "y.npy"),
            "--rtol",
            "1e-4",
            "--atol",
            "1e-5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("OK") and "before and after match" in p.stdout


def test_import_module_takes_a_torch_mlir_module(tmp_path):
    # Both bindings in one process: the module object crosses as text; the
    # torch dialect (not lowered) is named.
    script = textwrap.dedent("""
        import torch
        from torch_mlir import fx
        from mlir import ir
        import memplan

        class M(torch.nn.Module):
            def forward(self, x):
                return torch.relu(x) * 2

        linalg = fx.export_and_import(M(), torch.randn(3, 8), output_type="linalg-on-tensors", func_name="main")
        try:
            memplan.run_pipeline(linalg, "builtin.module(canonicalize)")
        except TypeError as err:
            print("foreign:", err)
        with ir.Context():
            module = memplan.import_module(linalg)
            memplan.run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
            print("planned:", "memref.alloc" in str(module))
        torch_level = fx.export_and_import(M(), torch.randn(3, 8), output_type="torch", func_name="main")
        try:
            memplan.import_module(torch_level)
        except memplan.ForeignModuleError as err:
            print("torch dialect:", err)
    """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert (
        "foreign: run_pipeline got a Module of other MLIR Python bindings (torch_mlir." in p.stdout
    )
    assert "planned: True" in p.stdout
    assert "torch dialect: the module from torch_mlir uses dialect 'torch'" in p.stdout
