"""Each C++ pass body has its own ``DEBUG_TYPE`` and prints with ``LLVM_DEBUG``.

A pass body is a source of a slice with rewrites (:data:`REWRITE_SLICES`)
without a header of its own, beside it or under ``include/memplan/<Slice>/``
(the rewrites the passes call, declared in the slices' public headers), or
one of the analyses a pass runs alone (:data:`ANALYSIS_PASSES`). Each defines
``DEBUG_TYPE`` as ``memplan-<name>``, no two share one, and every file that
defines one prints through ``LLVM_DEBUG``: ``memplan-opt -debug-only=<type>``
shows its decisions (the lit tests ``*/debug-only.mlir`` run two of them).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

#: Analyses that are the body of a pass of their own.
ANALYSIS_PASSES = (
    "lib/Inplace/InplaceAnalysis.cpp",  # memplan-one-shot-bufferize
    "lib/Deallocation/Ownership.cpp",  # memplan-buffer-deallocation
    "lib/Deallocation/DeallocationVerifier.cpp",  # memplan-verify-deallocation
)

#: The slices whose sources hold the rewrites of memplan's passes.
REWRITE_SLICES = ("Peak", "Deallocation", "Reuse", "Transients", "Numerics")

DEBUG_TYPE = re.compile(r'^#define DEBUG_TYPE "([^"]+)"', re.M)


def pass_bodies() -> list[Path]:
    """The sources that must have a DEBUG_TYPE."""
    rewrites = [
        p
        for s in REWRITE_SLICES
        for p in sorted((ROOT / "lib" / s).glob("*.cpp"))
        if not p.with_suffix(".h").exists()
        and not (ROOT / "include" / "memplan" / s / (p.stem + ".h")).exists()
    ]
    return rewrites + [ROOT / p for p in ANALYSIS_PASSES]


def test_every_pass_body_has_a_debug_type() -> None:
    bodies = pass_bodies()
    assert len(bodies) >= 12, "the pass bodies were not found"
    missing = [str(p.relative_to(ROOT)) for p in bodies if not DEBUG_TYPE.search(p.read_text())]
    assert not missing, "no DEBUG_TYPE in " + ", ".join(missing)


def test_debug_types_are_unique_and_used() -> None:
    seen: dict[str, str] = {}
    for p in sorted((ROOT / "lib").rglob("*.cpp")):
        text = p.read_text()
        for name in DEBUG_TYPE.findall(text):
            where = str(p.relative_to(ROOT))
            assert name.startswith("memplan-"), f"{where}: DEBUG_TYPE {name!r}"
            assert name not in seen, f"{where} and {seen.get(name)} share DEBUG_TYPE {name!r}"
            seen[name] = where
            assert "LLVM_DEBUG(" in text, f"{where} defines DEBUG_TYPE {name!r} but never prints"
    assert len(seen) >= 15
