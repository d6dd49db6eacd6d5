"""Buffer reuse benchmark: pool quality, run-time heap and pass speed, in one run.

    python bench/bench_reuse.py [--quick]

Prints three markdown tables:

1. **Quality.** Each model workload of ``bench/workloads.py`` (and larger
   variants) goes through upstream bufferization (``UPSTREAM`` below), then
   one pool of every poolable buffer is packed with each algorithm
   (``memplan-buffer-reuse`` itself only pools where the heap peak does not
   go up; ``bench/bench_peaks.py`` measures that). Columns: the
   allocations upstream leaves, how many get pooled, the sum of their bytes
   (upstream, no reuse), the lower bound (peak live bytes of the poolable
   buffers, ``FunctionLifetimes.eligible_peak_bytes``) and each algorithm's
   pool size with pool / lower bound; a geomean row closes it.
2. **Heap at run time.** ``memplan.numerics.execute(...).heap`` on the upstream
   module and on the pooled one (``algorithm=best``), with and without
   ``optimize-allocation-liveness`` upstream: allocator calls per invocation
   and peak live heap bytes; ``memplan.numerics.compare`` says whether the
   outputs are bit-identical (with the poison check for uninitialized reads).
3. **Speed.** ``memplan-buffer-liveness{format=none}`` and
   ``memplan-buffer-reuse`` alone, in process, on one memref-level function
   with 1k, 10k and 100k allocations (``--quick`` skips 100k), plus
   upstream ``optimize-allocation-liveness`` on the same input for reference.

End-to-end ``memplan-opt`` vs ``mlir-opt`` times are a case of ``bench/run.py``
(see :func:`run_case`).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "test", "python"))

from mlir import ir, passmanager  # noqa: E402
from progs.scale import chain  # noqa: E402
from workloads import WORKLOADS, cnn, mlp, transformer  # noqa: E402

import memplan  # noqa: E402
from memplan.ir import parse_source  # noqa: E402
from memplan.ir.graph import extract_graph, function_ids  # noqa: E402
from memplan.lifetimes.analysis import LifetimeAnalysis  # noqa: E402
from memplan.liveness.report import pool_layout  # noqa: E402
from memplan.numerics import compare, execute  # noqa: E402
from memplan.reuse.check import check_module  # noqa: E402

BUFFERIZE = (
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, "
    "buffer-deallocation-pipeline"
)
OAL = "func.func(optimize-allocation-liveness)"
UPSTREAM = f"{BUFFERIZE}, {OAL}"
ALGORITHMS = ("linear-scan", "greedy-by-size", "best-fit", "best")
TARGET_RATIO = 1.01
SPEED_TARGET_S = 2.0


def workloads(quick: bool) -> list[tuple[str, str, str]]:
    """(label, tensor-level MLIR text, entry) for the quality and heap tables."""
    out = [(name, gen(), entry) for name, (gen, entry) in WORKLOADS.items()]
    out += [
        (
            "mlp-24 (batch 32, 24 layers)",
            mlp(batch=32, widths=(64,) + (128, 512, 256, 384, 96, 256) * 4),
            "mlp",
        ),
        ("cnn-6 (32x32x16, 6 blocks)", cnn(size=32, channels=16, blocks=6), "cnn"),
        (
            "transformer-6 (seq 64, dim 96, 6 layers)",
            transformer(seq=64, dim=96, hidden=384, layers=6),
            "transformer",
        ),
    ]
    return out


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def bufferize(text: str, pipeline: str = UPSTREAM) -> str:
    """The module after the upstream pipeline, as text (memref level)."""
    with ir.Context():
        module = parse_source(text)
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


def reuse(text: str, algorithm: str = "best") -> tuple[str, dict[str, int]]:
    """The module after memplan-buffer-reuse, and the pass statistics."""
    with ir.Context():
        module = parse_source(text)
        (p,) = memplan.run_pipeline(
            module, f"builtin.module(memplan-buffer-reuse{{algorithm={algorithm}}})"
        )
        return str(module), {k: v for k, (v, _) in p.statistics.items()}


def lifetimes_summary(text: str) -> tuple[int, int, int, int]:
    """(allocations, sum of their static bytes, pool lower bound, peak live bytes
    of all static buffers) over all functions."""
    with ir.Context():
        module = parse_source(text)  # keep alive: the graph points into it
        graph = extract_graph(module)
        analysis = LifetimeAnalysis(graph)
        allocs = total = bound = peak = 0
        for f in function_ids(graph):
            lt = analysis.function(f)
            allocs += len(lt)
            total += lt.total_alloc_bytes
            bound += lt.eligible_peak_bytes
            peak += lt.peak_live_bytes
        return allocs, total, bound, peak


# --- 1. quality ------------------------------------------------------------------


def one_pool(text: str, algorithm: str) -> dict[str, int]:
    """Sizes of one pool of every eligible static buffer per function, summed."""
    with ir.Context():
        module = parse_source(text)
        graph = extract_graph(module)
        analysis = LifetimeAnalysis(graph)
        out = {"size": 0, "pooled": 0, "bytes": 0}
        for f in function_ids(graph):
            lt = analysis.function(f)
            offsets, pool = pool_layout(lt, algorithm)
            out["size"] += pool["size"] or 0
            out["pooled"] += len(offsets)
            out["bytes"] += int(sum(int(lt.bytes[r]) for r in offsets))
        return out


def quality_table(cases: list[tuple[str, str, str]]) -> list[str]:
    notes = []
    ratios: dict[str, list[float]] = {a: [] for a in ALGORITHMS}
    never_worse = True
    print("### Pool size vs lower bound (upstream bufferization, then `memplan-buffer-reuse`)\n")
    print(
        "| workload | allocs | pooled | bytes, no reuse | pooled bytes | lower bound | "
        + " | ".join(ALGORITHMS)
        + " | best ≤ linear-scan |"
    )
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(ALGORITHMS) + ":---:|")
    for label, text, _ in cases:
        memref = bufferize(text)
        allocs, total, bound, _ = lifetimes_summary(memref)
        # One pool of every eligible buffer per algorithm: the packer's quality
        # (the pass itself only pools where the heap peak does not go up).
        stats = {a: one_pool(memref, a) for a in ALGORITHMS}
        best = stats["best"]
        cells = []
        for a in ALGORITHMS:
            size = stats[a]["size"]
            r = size / bound if bound else 1.0
            ratios[a].append(r)
            cells.append(f"{size} ({r:.3f})")
        ok = best["size"] <= stats["linear-scan"]["size"]
        never_worse &= ok
        print(
            f"| {label} | {allocs} | {best['pooled']} | {total} | "
            f"{best['bytes']} | {bound} | " + " | ".join(cells) + f" | {'yes' if ok else 'NO'} |",
            flush=True,
        )
    g = {a: geomean(ratios[a]) for a in ALGORITHMS}
    print(
        "| **geomean pool / lower bound** | | | | | | "
        + " | ".join(f"{g[a]:.3f}" for a in ALGORITHMS)
        + f" | {'yes' if never_worse else 'NO'} |"
    )
    met = g["best"] <= TARGET_RATIO and never_worse
    print(
        f"\nTarget: `best` within {TARGET_RATIO} of the lower bound (geomean) and never worse than "
        f"linear-scan: **{'met' if met else 'NOT met'}** (geomean {g['best']:.3f}). Cells: pool bytes "
        "(pool / lower bound); alignment 64. \"bytes, no reuse\" sums every allocation upstream makes, "
        "\"pooled bytes\" only those pooled (the result buffer escapes and stays a separate allocation)."
    )
    return notes


# --- 2. heap at run time ---------------------------------------------------------


def heap_table(cases: list[tuple[str, str, str]]) -> list[str]:
    notes = []
    print(
        "\n### Heap per invocation (JIT, `memplan.numerics`), upstream vs after `memplan-buffer-reuse`\n"
    )
    print(
        "| workload | optimize-allocation-liveness | upstream mallocs / frees | upstream peak B "
        "| reuse mallocs / frees | reuse peak B | peak reuse / upstream | all-buffer bound B | bit-identical |"
    )
    print("|---|:---:|---:|---:|---:|---:|---:|---:|:---:|")
    for label, text, entry in cases:
        for with_oal in (False, True):
            before = bufferize(text, UPSTREAM if with_oal else BUFFERIZE)
            after, _ = reuse(before)
            whole = lifetimes_summary(before)[3]
            hb = execute(before, entry).heap
            ha = execute(after, entry).heap
            res = compare(before, after, entry)
            if (res.heap_before.peak_bytes, res.heap_after.peak_bytes) != (
                hb.peak_bytes,
                ha.peak_bytes,
            ):
                notes.append(f"{label}: compare() and execute() disagree on peak bytes")
            for name, h in (("upstream", hb), ("reuse", ha)):
                if h.invalid_frees or h.allocations - h.frees != (1 if h.live_at_exit else 0):
                    notes.append(f"{label} ({name}, OAL={with_oal}): {h}")
            ident = (
                f"yes ({res.outputs} outputs)"
                if res.ok
                else f"**NO**: {str(res).splitlines()[1:2]}"
            )
            print(
                f"| {label} | {'yes' if with_oal else 'no'} | {hb.allocations} / {hb.frees} | {hb.peak_bytes} "
                f"| {ha.allocations} / {ha.frees} | {ha.peak_bytes} | {ha.peak_bytes / hb.peak_bytes:.2f} "
                f"| {whole} | {ident} |",
                flush=True,
            )
    print(
        "\nPeak live heap bytes include the returned buffer, which is not pooled; memplan-buffer-reuse only "
        "pools where the heap peak, that buffer included, does not go up. "
        "All-buffer bound: peak live bytes of every static allocation by last use "
        "(`FunctionLifetimes.peak_live_bytes`), what a perfect allocator would reach. Bit-identical: "
        "every output matches bit for bit and neither module reads poisoned (uninitialized) heap memory."
    )
    return notes


# --- 3. speed --------------------------------------------------------------------


def scale_input(n: int, seed: int = 0, long_lived: int = 16) -> str:
    """``progs.scale.chain(n)`` (each allocation copied from a live earlier one,
    at most 4 live) plus ``long_lived`` 4 KiB buffers, each written at a random
    point and freed n/4..n allocations later."""
    lines = chain(n, seed).split("\n")
    at = {}  # allocation index -> line of its memref.alloc
    for k, line in enumerate(lines):
        if "= memref.alloc()" in line:
            at[int(line.split("%b", 1)[1].split(" ", 1)[0])] = k
    ret = lines.index("  return")
    inserts: dict[int, list[str]] = {}
    rng = random.Random(seed + 1)
    for j in range(long_lived):
        s = rng.randrange(n)
        e = min(n, s + rng.randrange(n // 4 + 1, n + 1))
        inserts.setdefault(at[s], []).append(f"  %L{j} = memref.alloc() : memref<1024xf32>")
        sv = f"%L{j}s = memref.subview %L{j}[0] [16] [1] : memref<1024xf32> to memref<16xf32, strided<[1]>>"
        use = [
            f"  {sv}",
            f"  memref.copy %x, %L{j}s : memref<16xf32> to memref<16xf32, strided<[1]>>",
            f"  memref.dealloc %L{j} : memref<1024xf32>",
        ]
        inserts.setdefault(at[e] if e < n else ret, []).extend(use)
    out = []
    for k, line in enumerate(lines):
        out.extend(inserts.get(k, ()))
        out.append(line)
    return "\n".join(out)


def _timed_pipeline(module: ir.Operation, pipeline: str) -> tuple[float, list]:
    t0 = time.perf_counter()
    passes = memplan.run_pipeline(module, f"builtin.module({pipeline})")
    return time.perf_counter() - t0, passes


def speed_table(sizes: list[int], oal_limit: int) -> list[str]:
    notes = []
    print("\n### Pass time on one function (memref level, in process, best of 3; 1 run at 100k)\n")
    print(
        "| allocations | ops | parse s | `memplan-buffer-liveness{format=none}` s | `memplan-buffer-reuse` s "
        "| µs / alloc | ns / (n log2 n) | pool / lower bound | check | upstream `optimize-allocation-liveness` s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|")
    with ir.Context():  # warm up: imports, first-call costs
        m = parse_source(scale_input(200, long_lived=2))
        _timed_pipeline(m, "memplan-buffer-liveness{format=none}")
        _timed_pipeline(m, "memplan-buffer-reuse")
    reuse_times = {}
    for n in sizes:
        text = scale_input(n)
        repeat = 1 if n >= 100_000 else 3
        with ir.Context():
            t0 = time.perf_counter()
            module = parse_source(text)
            t_parse = time.perf_counter() - t0
            ops = sum(1 for _ in _walk_count(module))
            t_live = min(
                _timed_pipeline(module, "memplan-buffer-liveness{format=none}")[0]
                for _ in range(repeat)
            )
            t_reuse, stats = float("inf"), {}
            for k in range(repeat):
                work = module.clone()
                t, (p,) = _timed_pipeline(work, "memplan-buffer-reuse")
                if t < t_reuse:
                    t_reuse, stats = t, {k: v for k, (v, _) in p.statistics.items()}
                if k != repeat - 1:
                    work.erase()
            check = check_module(work)
            lb = stats.get("pool-lower-bound", 0)
            ratio = stats.get("bytes-after", 0) / lb if lb else float("nan")
            if not check.ok:
                notes.append(f"check_module failed at n={n}: {check.violations[:3]}")
            if n <= oal_limit:
                pm = passmanager.PassManager.parse(f"builtin.module({OAL})")
                t0 = time.perf_counter()
                pm.run(module)
                oal = f"{time.perf_counter() - t0:.3f}"
            else:
                oal = "skipped (quadratic)"
        reuse_times[n] = t_reuse
        print(
            f"| {n} | {ops} | {t_parse:.2f} | {t_live:.3f} | {t_reuse:.3f} | {1e6 * t_reuse / n:.1f} "
            f"| {1e9 * t_reuse / (n * math.log2(n)):.1f} | {ratio:.3f} "
            f"| {'ok' if check.ok else 'FAIL'} ({check.views} views) | {oal} |",
            flush=True,
        )
    big = max(sizes)
    print(
        f"\nTarget: `memplan-buffer-reuse` under {SPEED_TARGET_S} s at 100k allocations, near n log n: "
        + (
            f"**{'met' if reuse_times[big] < SPEED_TARGET_S else 'NOT met'}** ({reuse_times[big]:.2f} s)."
            if big >= 100_000
            else "not measured (--quick)."
        )
    )
    print(
        "Input: `test/python/progs/scale.py` `chain(n)` (each buffer copied from a live earlier one, "
        "at most 4 live) plus 16 long-lived 4 KiB buffers; `check` is `memplan.reuse.check.check_module` "
        "on the pooled IR."
    )
    return notes


def _walk_count(module: ir.Operation):
    stack = [module]
    while stack:
        op = stack.pop()
        yield op
        for region in op.regions:
            for block in region.blocks:
                stack.extend(block.operations)


# --- bench/run.py -----------------------------------------------------------------


def run_case(tools: tuple[str, str]) -> tuple:
    """(name, make_input, memplan argv, upstream argv) for bench/run.py: the whole
    memory pipeline in memplan-opt vs the upstream part of it in mlir-opt."""
    memplan_opt, mlir_opt = tools
    return (
        "buffer reuse: memplan-memory-pipeline vs upstream bufferize+dealloc+OAL, transformer 48 layers",
        lambda: transformer(layers=48),
        [memplan_opt, "{input}", "--pass-pipeline=builtin.module(memplan-memory-pipeline)"],
        [mlir_opt, "{input}", f"--pass-pipeline=builtin.module({UPSTREAM})"],
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="skip the 100k-allocation speed row")
    ap.add_argument("--skip", nargs="*", default=[], choices=["quality", "heap", "speed"])
    args = ap.parse_args()
    t0 = time.perf_counter()
    cases = workloads(args.quick)
    notes: list[str] = []
    if "quality" not in args.skip:
        notes += quality_table(cases)
    if "heap" not in args.skip:
        notes += heap_table(cases)
    if "speed" not in args.skip:
        notes += speed_table(
            [1000, 10_000] if args.quick else [1000, 10_000, 100_000], oal_limit=10_000
        )
    for note in notes:
        print(f"\nNOTE: {note}")
    print(f"\n(total {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
