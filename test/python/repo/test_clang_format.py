"""The C++ sources follow the repository's ``.clang-format`` (LLVM style).

Runs ``clang-format --dry-run -Werror`` (the PyPI ``clang-format`` package,
in the ``test`` extra) over ``lib/`` and ``include/``; skips where it is not
installed. A misformatted file fails the test with clang-format's report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _clang_format() -> Optional[str]:
    """The clang-format next to this Python (a venv's), else on PATH."""
    beside = Path(sys.executable).parent / "clang-format"
    if beside.exists():
        return str(beside)
    return shutil.which("clang-format")


def _sources() -> List[Path]:
    """Every C++ source and header of lib/ and include/."""
    return sorted(
        p for d in ("lib", "include") for p in (ROOT / d).rglob("*") if p.suffix in (".cpp", ".h")
    )


@pytest.fixture(scope="module")
def clang_format() -> str:
    exe = _clang_format()
    if exe is None:
        pytest.skip("clang-format is not installed (pip install '.[test]' installs it)")
    return exe


def _check(exe: str, files: List[Path]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [exe, "--dry-run", "-Werror", "--style=file", *map(str, files)],
        capture_output=True,
        text=True,
    )


def test_sources_are_formatted(clang_format: str) -> None:
    files = _sources()
    assert len(files) > 30, "the C++ sources were not found"
    run = _check(clang_format, files)
    assert run.returncode == 0, (
        "clang-format would change these files (run clang-format -i on them):\n"
        + run.stderr[-4000:]
    )


def test_the_check_sees_a_misformatted_file(clang_format: str, tmp_path: Path) -> None:
    # The same check on a copy of a source with one line made too long and a
    # namespace-end comment in another style must fail.
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    source = ROOT / "lib" / "IR" / "CallOrder.cpp"
    text = source.read_text()
    assert "} // namespace memplan" in text
    bad = tmp_path / "Bad.cpp"
    bad.write_text(
        text.replace("} // namespace memplan", "}  // namespace memplan")
        + "int f(int a, int b) { return a + b + a + b + a + b + a + b + a + b + a; }\n"
    )
    run = _check(clang_format, [bad])
    assert run.returncode != 0
    assert "Bad.cpp" in run.stderr
