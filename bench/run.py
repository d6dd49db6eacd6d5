"""Run memplan and the matching upstream ``mlir-opt`` command on the same input,
in one run, and print a table of times and their ratio.

    python bench/run.py [--only NAME] [--repeat N]

Each case in ``CASES`` names an input generator and the two command lines
(``{input}`` is replaced by the generated file). Later features add their
cases here. Times are wall-clock seconds, best of ``--repeat`` runs, including
process start-up and parsing for both tools; memory is the largest maximum
resident set of the runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generators import elementwise_chain  # noqa: E402
from tools import MEMPLAN_OPT, MLIR_OPT, measure  # noqa: E402


@dataclass(frozen=True)
class Case:
    """A benchmark: an input, memplan's command and upstream's command."""

    name: str
    make_input: Callable[[], str]
    memplan: list[str]
    upstream: list[str]


def _bufferize_pair(pipeline: str) -> tuple[list[str], list[str]]:
    arg = f"--pass-pipeline={pipeline}"
    return [MEMPLAN_OPT, "{input}", arg], [MLIR_OPT, "{input}", arg]


CASES: list[Case] = [
    # Process start-up: an empty module through no pass.
    Case("start-up: empty module", lambda: "", [MEMPLAN_OPT, "{input}"], [MLIR_OPT, "{input}"]),
    # memplan-opt's own overhead (Python driver, pipeline split) on an upstream-only pipeline.
    Case(
        "driver overhead: one-shot-bufferize, chain 4k",
        lambda: elementwise_chain(4000),
        *_bufferize_pair("builtin.module(one-shot-bufferize{bufferize-function-boundaries})"),
    ),
]
CASES += [Case(*c) for c in __import__("bench_inplace").run_cases()]  # in-place analysis
CASES.append(Case(*__import__("bench_reuse").run_case((MEMPLAN_OPT, MLIR_OPT))))  # buffer reuse

#: Real-model inputs (../shared/workloads/README.md), when present.
WORKLOADS = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "workloads"
)
_GPT2 = os.path.join(WORKLOADS, "gpt2_l48_h512_s128.mlir")
if os.path.exists(_GPT2):
    # The whole memory pipeline against upstream's reference pipeline.
    CASES.append(
        Case(
            "memory pipeline: memplan-memory-pipeline vs upstream bufferize+dealloc+OAL, gpt2_l48_h512_s128",
            lambda: open(_GPT2).read(),
            [MEMPLAN_OPT, "{input}", "--pass-pipeline=builtin.module(memplan-memory-pipeline)"],
            [
                MLIR_OPT,
                "{input}",
                "--pass-pipeline=builtin.module(one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline,"
                "func.func(optimize-allocation-liveness))",
            ],
        )
    )


def time_command(argv: list[str], repeat: int) -> tuple[float, float]:
    """Best wall-clock seconds and largest maximum resident set (MB; nan
    where GNU time is missing)."""
    runs = [measure(argv) for _ in range(repeat)]
    return min(r.wall for r in runs), max(r.rss_mb for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--only", help="run the cases whose name contains this text")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(
        "| case | memplan (s) | upstream (s) | upstream / memplan | memplan / upstream max RSS (MB) |"
    )
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            if args.only and args.only not in case.name:
                continue
            path = os.path.join(tmp, "input.mlir")
            with open(path, "w") as f:
                f.write(case.make_input())

            def fill(argv: list[str], path: str = path) -> list[str]:
                return [a.replace("{input}", path) for a in argv]

            ours, our_rss = time_command(fill(case.memplan), args.repeat)
            theirs, their_rss = time_command(fill(case.upstream), args.repeat)
            print(
                f"| {case.name} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.2f}x "
                f"| {our_rss:.0f} / {their_rss:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
