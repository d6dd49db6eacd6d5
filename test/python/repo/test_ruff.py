"""The Python sources follow the repository's ruff configuration.

``ruff format --check`` (the formatter, lines of at most 100 characters) and
``ruff check`` (pyflakes, pycodestyle, import order; the rules and their
exceptions are in ``pyproject.toml``) over the whole repository. ruff is in
the ``test`` extra, pinned; the test skips where it is not installed. A
misformatted or failing file fails the test with ruff's report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _ruff() -> Optional[str]:
    """The ruff next to this Python (a venv's), else on PATH."""
    beside = Path(sys.executable).parent / "ruff"
    if beside.exists():
        return str(beside)
    return shutil.which("ruff")


@pytest.fixture(scope="module")
def ruff() -> str:
    exe = _ruff()
    if exe is None:
        pytest.skip("ruff is not installed (pip install '.[test]' installs it)")
    return exe


def _run(exe: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *args, "--no-cache"], cwd=cwd, capture_output=True, text=True)


def test_sources_are_formatted(ruff: str) -> None:
    run = _run(ruff, "format", "--check", ".")
    assert run.returncode == 0, (
        "ruff format would change these files (run ruff format on them):\n"
        + (run.stdout + run.stderr)[-4000:]
    )
    assert "already formatted" in run.stdout


def test_sources_pass_the_linter(ruff: str) -> None:
    run = _run(ruff, "check", ".")
    assert run.returncode == 0, "ruff check fails:\n" + (run.stdout + run.stderr)[-4000:]


def test_the_checks_see_a_bad_file(ruff: str, tmp_path: Path) -> None:
    # The same configuration on a package module with an unused import, an
    # unsorted import block and a line made too long must fail both checks.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    package = tmp_path / "python" / "memplan"
    package.mkdir(parents=True)
    source = (ROOT / "python" / "memplan" / "passes" / "capacity.py").read_text()
    assert source.startswith('"""')
    (package / "bad.py").write_text(
        "import sys\nimport os\n\n" + source + "\nX = " + " + ".join(["1"] * 40) + "\n"
    )
    lint = _run(ruff, "check", ".", cwd=tmp_path)
    assert lint.returncode != 0
    for rule in ("F401", "I001", "E501"):
        assert rule in lint.stdout, lint.stdout
    assert _run(ruff, "format", "--check", ".", cwd=tmp_path).returncode != 0
