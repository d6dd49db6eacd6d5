"""The README's "Using memplan with torch-mlir", as written, with torch in a
separate virtual environment: the README's install line run in a fresh venv,
then the section's commands and code, read from the README itself (step 1's
``--torch-python`` line, step 2's Python, step 3's ``memplan-check``), run in
a scratch folder.

The torch venv is ``$MEMPLAN_TORCH_PYTHON``'s environment when that is set,
else the one at ``$MEMPLAN_TORCH_VENV`` (default
``~/.cache/memplan/torch-venv``), made there once with ``MEMPLAN_TORCH_INSTALL=1``
by the README's ``pip install torch torch-mlir`` (on Linux with the CPU
index the README names) with pip's own configuration (``PIP_FIND_LINKS``
may point at local wheels). Skipped, with the reason, where there is no such
venv and none is asked for, or it cannot be made (no network, no wheel for
this platform)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
BIN = os.path.dirname(sys.executable)
TORCH_IMPORT = "import torch, torch_mlir.fx"


def readme_section() -> str:
    """The README's torch-mlir section, up to the next heading."""
    text = (ROOT / "README.md").read_text()
    start = text.index("## Using memplan with torch-mlir")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def code_blocks(section: str) -> list[tuple[str, str]]:
    """The fenced code blocks of ``section``: (language, dedented body)."""
    blocks = []
    for match in re.finditer(r"^( *)```(\w+)\n(.*?)^\1```", section, re.S | re.M):
        indent = len(match.group(1))
        body = "".join(line[indent:] for line in match.group(3).splitlines(keepends=True))
        blocks.append((match.group(2), body))
    return blocks


def install_command(section: str) -> list[str]:
    """The README's install line (``pip install torch torch-mlir``)."""
    flat = " ".join(section.split())
    match = re.search(r"`(pip install [^`]*)`", flat)
    assert match, "the README names no pip install line"
    return shlex.split(match.group(1))


def cpu_index(section: str) -> str:
    """The index the README names for torch's CPU build on Linux."""
    match = re.search(r"--extra-index-url\s+(\S+?)`", " ".join(section.split()))
    assert match, "the README names no CPU index for torch"
    return match.group(1)


def _works(python: str) -> str:
    """Why ``python`` cannot export with torch-mlir ("" when it can)."""
    p = subprocess.run([python, "-c", TORCH_IMPORT], capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        return ""
    return (p.stderr.strip().splitlines() or ["import failed"])[-1]


def _torch_python() -> tuple[str, str]:
    """(the torch venv's python, "") or ("", why there is none)."""
    given = os.environ.get("MEMPLAN_TORCH_PYTHON")
    if given:
        problem = _works(given)
        return (given, "") if not problem else ("", f"$MEMPLAN_TORCH_PYTHON: {problem}")
    folder = Path(
        os.environ.get("MEMPLAN_TORCH_VENV", Path.home() / ".cache" / "memplan" / "torch-venv")
    )
    python = str(folder / "bin" / "python")
    if os.path.exists(python) and not _works(python):
        return python, ""
    if os.environ.get("MEMPLAN_TORCH_INSTALL") != "1":
        # Installing torch takes minutes and a gigabyte: not within the test
        # suite's budget unless asked for.
        return "", (
            f"no torch venv at {folder}: set MEMPLAN_TORCH_INSTALL=1 to make one with "
            "the README's install line (CPU torch, about 1 GB, needs the network), "
            "or MEMPLAN_TORCH_PYTHON to a python that has torch and torch-mlir"
        )
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    except (OSError, subprocess.CalledProcessError) as err:
        return "", f"cannot make a venv at {folder}: {err}"
    cmd = [python, "-m", *install_command(readme_section())]
    if sys.platform == "linux":
        # The README's advice for Linux: the CPU build, not CUDA's (5.7 GB).
        cmd += ["--extra-index-url", cpu_index(readme_section())]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["pip failed"])[-1]
        return "", f"`{' '.join(cmd[2:])}` fails here: {last}"
    problem = _works(python)
    return (
        (python, "")
        if not problem
        else ("", f"torch-mlir does not import after install: {problem}")
    )


TORCH_PYTHON, REASON = _torch_python()
needs_torch_venv = pytest.mark.skipif(bool(REASON), reason=REASON or "a torch venv")


def test_install_line_is_the_one_the_issue_asks_for():
    # Not --no-deps: torch-mlir needs packaging, which that left out.
    assert install_command(readme_section()) == ["pip", "install", "torch", "torch-mlir"]


@needs_torch_venv
def test_readme_section_in_a_separate_venv(tmp_path):
    blocks = code_blocks(readme_section())
    assert [language for language, _ in blocks] == ["sh", "python", "sh"]
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "torch-venv").symlink_to(Path(TORCH_PYTHON).parents[1])
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))

    # Step 1, the line for torch in its own venv, with memplan's python.
    line = next(line for line in blocks[0][1].splitlines() if "--torch-python" in line)
    words = shlex.split(line, comments=True)
    assert words[0] == "python"
    p = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Traceback" not in p.stderr
    for name in ("model.mlir", "planned.mlir", "x.npy", "y.npy"):
        assert (tmp_path / "out" / name).is_file(), name

    # Step 2, in memplan's python.
    p = subprocess.run(
        [sys.executable, "-c", blocks[1][1]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "allocs" in p.stdout  # print(run.heap)

    # Step 3: memplan-check on step 1's files; its first line is the verdict.
    p = subprocess.run(
        ["sh", "-c", blocks[2][1]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("OK: ") and "before and after match" in p.stdout


def test_example_says_what_is_missing(tmp_path):
    # memplan's python has no torch: the export child says so, no traceback.
    if not _works(sys.executable):
        pytest.skip("torch is importable in memplan's python too")
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "torch_mlir.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode != 0 and p.returncode < 128
    assert "Traceback" not in p.stderr and "CalledProcessError" not in p.stderr
    assert "torch" in p.stderr and "--torch-python" in p.stderr
