"""Comments and docs that name a file of the repository name one that exists.

Every path into the tree (``lib/...``, ``include/memplan/...``,
``python/memplan/...``, ``test/lit/...``, ``test/python/...``, ``bench/...``,
``docs/...``, ``examples/...``, ``cmake/...``) and every test or benchmark
script named alone (``test_*.py``, ``bench_*.py``) in the sources, tests,
benchmarks and docs must exist. A path may name a file without its extension
(``lib/IR/IRNumbering``) or a family of files (``rerun*.mlir``).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

#: The files whose text is read: sources, tests, benchmarks, docs, build files.
SUFFIXES = {".cpp", ".h", ".def", ".td", ".py", ".mlir", ".md", ".toml", ".txt", ".cfg"}
SKIPPED_DIRS = {".git", ".venv", "build", "__pycache__", "out"}

PATH = re.compile(
    r"\b(?:lib|include/memplan|python/memplan|test/lit|test/python|bench|docs|examples|cmake)"
    r"/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]"
)
SCRIPT = re.compile(r"\b(?:test|bench)_[a-z0-9_]+\.py\b")


def _texts() -> list[Path]:
    """Every text file of the repository that may name another."""
    files = [ROOT / "README.md", ROOT / "CMakeLists.txt", ROOT / "pyproject.toml"]
    for top in (
        "lib",
        "include",
        "python",
        "test",
        "bench",
        "docs",
        "examples",
        "cmake",
        ".ci",
    ):
        for p in (ROOT / top).rglob("*"):
            if p.is_file() and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts):
                if p.suffix in SUFFIXES or p.parent.name == ".ci":
                    files.append(p)
    return files


def _exists(ref: str) -> bool:
    """Whether ``ref`` names a file or directory, a file without its
    extension, or (with a ``*``) at least one file."""
    ref = ref.rstrip("./")
    if "*" in ref:
        return any(ROOT.glob(ref))
    path = ROOT / ref
    return path.exists() or any(path.parent.glob(path.name + ".*"))


def _script_exists(name: str) -> bool:
    return any((ROOT / "test" / "python").rglob(name)) or (ROOT / "bench" / name).exists()


def dangling_references(files: list[Path]) -> list[str]:
    """``file:line: reference`` for each reference in ``files`` that names nothing."""
    out = []
    for f in files:
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            refs = [r for r in PATH.findall(line) if not _exists(r)]
            refs += [s for s in SCRIPT.findall(line) if not _script_exists(s)]
            where = f.relative_to(ROOT) if f.is_relative_to(ROOT) else f
            out += [f"{where}:{n}: {r}" for r in refs]
    return out


def test_every_named_file_exists() -> None:
    # (This file names stale paths on purpose, in its own test below.)
    files = [f for f in _texts() if f != Path(__file__).resolve()]
    assert len(files) > 300, "the repository's files were not found"
    dangling = dangling_references(files)
    assert not dangling, "these names point at nothing:\n" + "\n".join(dangling)


def test_a_stale_name_is_found(tmp_path: Path) -> None:
    # A comment naming a moved header, a missing script and a missing lit
    # family is reported; names that exist in each accepted form are not.
    doc = tmp_path / "doc.md"
    doc.write_text(
        "See include/memplan/transforms.h and test_no_such_thing.py.\n"
        "Cases: test/lit/transients/no-such-case*.mlir.\n"
        "Fine: lib/IR/IRNumbering, lib/IR/Graph.cpp, test_clang_format.py,\n"
        "test/lit/transients/*.mlir, `docs/benchmarks.md`.\n"
    )
    found = [d.split(": ", 1)[1] for d in dangling_references([doc])]
    assert found == [
        "include/memplan/transforms.h",
        "test_no_such_thing.py",
        "test/lit/transients/no-such-case*.mlir",
    ]
