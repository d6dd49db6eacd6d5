"""The memory pipeline at scale: memplan-memory-pipeline against upstream's.

    python bench/bench_pipeline.py [--sizes 1000,10000,100000] [--timeout 600] [--numerics 10000]

One function per row, generated (bench/generators.py, bench/bench_inplace.py,
bench/workloads.py) or from ../shared/workloads, run in the same session by

* memplan: ``memplan-opt --pass-pipeline='builtin.module(memplan-memory-pipeline)'``;
* upstream: ``mlir-opt --pass-pipeline='builtin.module(one-shot-bufferize{
  bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},
  buffer-deallocation-pipeline, func.func(optimize-allocation-liveness))'``,
  stopped after ``--timeout`` seconds (``--large-timeout`` above 10,000
  generics).

Columns: CPU time (user + system; wall time in parentheses) and maximum
resident set of each process (start-up, parse, pipeline, print), the ratio
upstream / memplan of CPU times (wall times stretch with other jobs on the
machine, CPU times much less), the static heap peak of each
output (``memplan.lifetimes.peaks``, 64-byte blocks), and whether the outputs
compute the same bits (``memplan.numerics.compare``, poisoned fresh memory,
for programs up to ``--numerics`` generics). A last table gives memplan's
time per op and its growth against n log n. The plain chain is also run with
``reuse-dying-inputs=false``, so that its 10,000 buffers stay 10,000 buffers
through deallocation and pooling.

With ``--workloads`` (names in ../shared/workloads), only those run, each
tool ``--repeat`` times in turn (the runs interleaved, so that both see the
same load), and the table gives the median CPU seconds and the ratio
upstream / memplan of the medians. ``--memplan-opt LABEL=PATH`` (repeated)
times several memplan builds in the same run, each against the same
upstream runs: before and after a change. Time an installed memplan, not an
editable one, which checks on every start whether its C++ needs rebuilding
(about 0.3 s); the outputs of the builds must be byte-identical, or the
table says so.
"""

from __future__ import annotations

import argparse
import filecmp
import math
import os
import statistics
import sys
import tempfile
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_inplace import tiled_loop_nest  # noqa: E402
from generators import elementwise_chain  # noqa: E402
from shared_workloads import workload_dir  # noqa: E402
from tools import MEMPLAN_OPT, MLIR_OPT, Measured, measure  # noqa: E402
from workloads import transformer  # noqa: E402

UPSTREAM = (
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline, "
    "func.func(optimize-allocation-liveness))"
)
MEMPLAN = "builtin.module(memplan-memory-pipeline)"
WORKLOADS = workload_dir()


def run(tool: str, path: str, pipeline: str, out: str, timeout: float) -> Measured:
    """One tool run on `path`, its output written to `out`."""
    return measure([tool, path, f"--pass-pipeline={pipeline}", "-o", out], timeout)


def static_peak(path: str) -> int:
    from mlir import ir

    from memplan.ir.parse import load_source
    from memplan.lifetimes.analysis import analyze_module
    from memplan.lifetimes.peaks import input_peak

    with ir.Context():
        module = load_source(path)
        return sum(input_peak(lt) for lt in analyze_module(module))


def same_bits(before: str, after: str, entry: str) -> str:
    from memplan.numerics import compare

    result = compare(open(before).read(), open(after).read(), entry)
    return "yes" if result.ok else "NO"


def cases(sizes: list[int]) -> list[tuple[str, int, int, Callable[[], str], str, str]]:
    """(case, n: generics or layers, ops (0: count the lines), text, entry, memplan pipeline)."""
    out = []
    for n in sizes:
        out.append(
            ("plain chain", n, 4 * n + 3, lambda n=n: elementwise_chain(n, 1024), "chain", MEMPLAN)
        )
        out.append(
            (
                "plain chain, no dying-input reuse",
                n,
                4 * n + 3,
                lambda n=n: elementwise_chain(n, 1024),
                "chain",
                "builtin.module(memplan-memory-pipeline{reuse-dying-inputs=false})",
            )
        )
        out.append(
            (
                "shared-read chain",
                n,
                4 * n + 3,
                lambda n=n: elementwise_chain(n, 1024, shared_read=True),
                "chain",
                MEMPLAN,
            )
        )
        out.append(
            (
                "tiled loop nest (n/10 nests of 10 generics)",
                n,
                n + 6,
                lambda n=n: tiled_loop_nest(n // 10),
                "tiled",
                MEMPLAN,
            )
        )
    gpt2 = os.path.join(WORKLOADS, "gpt2_l48_h512_s128.mlir")
    if os.path.exists(gpt2):
        out.append(("gpt2_l48_h512_s128", 48, 0, lambda: open(gpt2).read(), "forward", MEMPLAN))
    out.append(
        (
            "transformer, 96 layers in one function",
            96,
            0,
            lambda: transformer(layers=96),
            "transformer",
            MEMPLAN,
        )
    )
    return out


def compare(names: list[str], builds: list[tuple[str, str]], repeat: int, timeout: float) -> None:
    """The ``--workloads`` table: median CPU seconds of upstream and of each
    memplan build over ``repeat`` interleaved runs, and their ratios."""
    labels = [label for label, _ in builds]
    print(
        "| workload | upstream CPU s | "
        + " | ".join(f"memplan {b} CPU s" for b in labels)
        + " | "
        + " | ".join(f"upstream / {b}" for b in labels)
        + " | outputs |"
    )
    print("|---|---:|" + "---:|" * (2 * len(builds)) + ":---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            src = os.path.join(WORKLOADS, f"{name}.mlir")
            cpu: dict[str, list[float]] = {label: [] for label in ["upstream"] + labels}
            outs = {label: os.path.join(tmp, f"{label}.mlir") for label in labels}
            for _ in range(repeat):
                up = run(MLIR_OPT, src, UPSTREAM, os.path.join(tmp, "up.mlir"), timeout)
                cpu["upstream"].append(up.cpu)
                for label, tool in builds:
                    cpu[label].append(run(tool, src, MEMPLAN, outs[label], timeout).cpu)
            med = {label: statistics.median(times) for label, times in cpu.items()}
            same = all(filecmp.cmp(outs[labels[0]], outs[b], shallow=False) for b in labels[1:])
            times = " | ".join(f"{med[b]:.3f}" for b in labels)
            print(
                f"| {name} | {med['upstream']:.2f} | {times}"
                + " | "
                + " | ".join(f"{med['upstream'] / med[b]:.1f}x" for b in labels)
                + f" | {'identical' if same else 'DIFFER'} |",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000,10000,100000", help="generics per generated function")
    ap.add_argument(
        "--timeout", type=float, default=600.0, help="wall seconds before upstream is stopped"
    )
    ap.add_argument(
        "--large-timeout",
        type=float,
        default=60.0,
        help="wall seconds before upstream is stopped above 10,000 generics (it is quadratic there)",
    )
    ap.add_argument(
        "--numerics",
        type=int,
        default=10000,
        help="compare the outputs' bits for generated programs up to this many generics",
    )
    ap.add_argument(
        "--workloads",
        default="",
        help="comma-separated shared workloads: time only these " "(median of --repeat runs)",
    )
    ap.add_argument(
        "--repeat", type=int, default=5, help="runs of each tool per workload with --workloads"
    )
    ap.add_argument(
        "--memplan-opt",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="a memplan-opt to time with --workloads (repeat to compare builds)",
    )
    args = ap.parse_args()
    if args.workloads:
        builds = [tuple(b.split("=", 1)) for b in args.memplan_opt] or [("", MEMPLAN_OPT)]
        compare(args.workloads.split(","), builds, args.repeat, args.timeout)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        "| case | n | memplan CPU s (wall) | upstream CPU s (wall) | upstream / memplan, CPU "
        "| max RSS MB memplan / upstream | static peak B memplan / upstream | same bits |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|:---:|")
    growth: dict[str, list[tuple[int, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        src, ours, theirs = (
            os.path.join(tmp, f) for f in ("in.mlir", "memplan.mlir", "upstream.mlir")
        )
        for name, n, ops, make, entry, pipeline in cases(sizes):
            with open(src, "w") as f:
                f.write(make())
            ops = ops or sum(1 for line in open(src) if "=" in line or "return" in line)
            m = run(MEMPLAN_OPT, src, pipeline, ours, 10 * args.timeout)
            timeout = args.timeout if n <= 10000 else args.large_timeout
            u = run(MLIR_OPT, src, UPSTREAM, theirs, timeout)
            stopped = u.cpu == math.inf
            p_m = static_peak(ours)
            p_u = static_peak(theirs) if not stopped else None
            bits = "-"
            generated = entry != "forward" and not name.startswith("transformer")
            if not stopped and (not generated or n <= args.numerics):
                bits = same_bits(theirs, ours, entry)
            ratio = f"{u.cpu / m.cpu:.1f}x" if not stopped else f"> {timeout / m.wall:.1f}x (wall)"
            up = f"{u.cpu:.2f} ({u.wall:.2f})" if not stopped else f"stopped at {timeout:.0f} wall"
            print(
                f"| {name} | {n} | {m.cpu:.2f} ({m.wall:.2f}) | {up} | {ratio} | {m.rss_mb:.0f} / {u.rss_mb:.0f} | "
                f"{p_m} / {p_u if p_u is not None else '-'} | {bits} |",
                flush=True,
            )
            growth.setdefault(name, []).append((ops, m.cpu))
    print("\nmemplan's growth (one process, start-up included):\n")
    print("| case | ops | memplan CPU s | us / op | (t / (n log2 n)) / first |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in growth.items():
        if len(rows) < 2:
            continue
        base = rows[0][1] / (rows[0][0] * math.log2(rows[0][0]))
        for ops, t in rows:
            print(
                f"| {name} | {ops} | {t:.2f} | {1e6 * t / ops:.1f} | {t / (ops * math.log2(ops)) / base:.2f} |"
            )


if __name__ == "__main__":
    main()
