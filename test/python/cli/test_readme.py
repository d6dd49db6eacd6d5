"""The documentation's code runs as written (README.md and docs/*.md): every
``python`` block (each in a fresh interpreter, from the repository root) and
every shell command whose files exist (the venv and pip steps are the
environment this test runs in)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
BIN = Path(sys.executable).parent


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _blocks(language: str) -> list[tuple[str, str]]:
    """(file:line, text) of every fenced block in `language`."""
    blocks = []
    for doc in DOCUMENTS:
        text = doc.read_text()
        name = doc.relative_to(ROOT)
        blocks += [
            (f"{name}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
            for m in re.finditer(rf"^```{language}\n(.*?)^```", text, re.S | re.M)
        ]
    return blocks


def _python_cases():
    for where, code in _blocks("python"):
        yield pytest.param(code, id=where)


@pytest.mark.parametrize("code", list(_python_cases()))
def test_python_block_runs(code: str):
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]


def _shell_commands():
    for where, block in _blocks("sh"):
        for command in block.splitlines():
            # The environment steps are this test's own environment.
            steps = [
                s.strip()
                for s in command.split("&&")
                if not re.match(r"\s*(python3 -m venv|\S*pip install)", s)
            ]
            for step in steps:
                try:
                    words = shlex.split(step.split(" #")[0])
                except ValueError:  # prose in a usage line (mlir-opt's flags)
                    continue
                if not words or words[0].replace(".venv/bin/", "") not in (
                    "memplan-opt",
                    "memplan",
                    "memplan-check",
                ):
                    continue
                files = [w for w in words[1:] if w.endswith(".mlir") and not w.startswith("-")]
                if not files or not all((ROOT / f).exists() for f in files):
                    continue  # a placeholder (in.mlir, FILE) in a usage line
                yield pytest.param(words, id=f"{where}:{words[0]}")


@pytest.mark.parametrize("words", list(_shell_commands()))
def test_shell_command_runs(words: list[str]):
    tool = BIN / words[0].replace(".venv/bin/", "")
    r = subprocess.run(
        [str(tool), *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr


def test_some_blocks_are_found():
    assert len(list(_python_cases())) >= 6 and len(list(_shell_commands())) >= 1
    assert any(str(p.id).startswith("docs/") for p in _python_cases())


def _first_command() -> list[str]:
    """The memplan-opt step of the README's first command."""
    first = _blocks("sh")[0]
    assert first[0] == "README.md:3", first[0]
    (words,) = [p.values[0] for p in _shell_commands() if p.id.startswith("README.md:3:")]
    return words


def test_first_command_prints_the_planned_module():
    # The README's first command promises the planned memref module on stdout
    # and each step's statistics, the heap peak among them, on stderr: what
    # it prints is checked, not only its exit code.
    from mlir import ir

    import memplan
    from memplan.ir import parse_source
    from memplan.lifetimes.analysis import analyze_module
    from memplan.lifetimes.peaks import input_peak
    from memplan.numerics import compare
    from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

    words = _first_command()
    tool = BIN / words[0].replace(".venv/bin/", "")
    r = subprocess.run(
        [str(tool), *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    source = (ROOT / words[1]).read_text()
    planned = r.stdout
    # A memref program: no tensor left, the intermediates in a pool of views.
    assert planned.startswith("module") and "tensor<" not in planned
    assert "memref.view" in planned and re.search(
        r"memref\.alloc\(\) \{alignment = 64 : i64\} : memref<\d+xi8>", planned
    )
    # The statistics: one section per memplan pass of the pipeline, and the
    # planned peak is the peak of the printed module, at most upstream's.
    stats = {
        name: int(value)
        for value, name in re.findall(r"^\s*\(S\)\s+(\d+) ([\w-]+)", r.stderr, re.M)
    }
    assert "MemplanBufferReusePass" in r.stderr and "MemplanBufferDeallocationPass" in r.stderr
    with ir.Context():
        printed_peak = sum(input_peak(lt) for lt in analyze_module(parse_source(planned)))
        upstream = parse_source(source)
        memplan.run_pipeline(upstream, f"builtin.module({UPSTREAM_BUFFERIZATION})")
        upstream_peak = sum(input_peak(lt) for lt in analyze_module(upstream))
    assert stats["peak-planned"] == printed_peak <= upstream_peak
    # And it computes what the tensor program computes, bit for bit.
    entry = re.search(r"func\.func @(\w+)", source).group(1)
    result = compare(source, planned, entry)
    assert result.ok, result.mismatch
