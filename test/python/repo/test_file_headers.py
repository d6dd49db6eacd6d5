"""Every C++ file opens with LLVM's one-line file header, naming itself.

``//===- Name.cpp - What it holds ---------===//`` (a header adds
``-*- C++ -*-`` before the closing ``===//``), exactly 80 columns: clang-format
wraps a longer first line into two broken comment lines, and a file moved or
renamed keeps its old name there unless something checks it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

HEADER = re.compile(r"//===- (?P<name>\S+) - \S.*?[ -](?P<cxx>-\*- C\+\+ -\*-)?=*===//")


def _sources() -> list[Path]:
    """Every C++ source, header and table of lib/ and include/."""
    return sorted(
        p
        for top in ("lib", "include")
        for p in (ROOT / top).rglob("*")
        if p.suffix in (".cpp", ".h", ".def")
    )


def header_defect(path: Path) -> str | None:
    """What is wrong with the first line of ``path``, or None."""
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    match = HEADER.fullmatch(first)
    if match is None:
        return f"not an LLVM file header: {first!r}"
    if len(first) != 80:
        return f"{len(first)} columns, not 80: {first!r}"
    if match["name"] != path.name:
        return f"names {match['name']}, not {path.name}"
    if path.suffix == ".cpp" and match["cxx"]:
        return "a .cpp file's header has no -*- C++ -*-"
    return None


def test_sources_found() -> None:
    assert len(_sources()) > 100


def test_every_file_header() -> None:
    defects = [
        f"{p.relative_to(ROOT)}: {defect}" for p in _sources() if (defect := header_defect(p))
    ]
    assert not defects, "\n".join(defects)


def test_defects_are_found(tmp_path: Path) -> None:
    """A wrapped, a short and a misnamed header each fail."""
    cases = {
        "Wrapped.h": "//===- Wrapped.h - A description too long for one line -*- C++\n//-*-===//\n",
        "Short.h": "//===- Short.h - Short ---*- C++ -*-===//\n",
        "Moved.cpp": "//===- Old.cpp - Moved " + "-" * 52 + "===//\n",
        "Good.cpp": "//===- Good.cpp - Fine " + "-" * 52 + "===//\n",
    }
    found = {}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        found[name] = header_defect(tmp_path / name)
    assert "not an LLVM file header" in found["Wrapped.h"]
    assert "columns, not 80" in found["Short.h"]
    assert "names Old.cpp" in found["Moved.cpp"]
    assert found["Good.cpp"] is None
