"""In-place analysis benchmark: memplan-one-shot-bufferize vs upstream
one-shot-bufferize, both with ``bufferize-function-boundaries
test-analysis-only``, end to end (process start, parse, analysis, annotation,
print), each pair in the same run, outputs diffed where upstream finishes.

    python bench/bench_inplace.py                # compare + scaling (full)
    python bench/bench_inplace.py --quick        # small sizes, < 2 minutes
    python bench/bench_inplace.py --sections compare --cases "shared-read chain,insert_slice chain" \\
        --sizes 1000,4000,20000 --timeout 120 --check   # the original benchmark

Sections:

* ``compare``: every case in ``--cases`` at every N in ``--sizes``, memplan
  vs upstream. Cases: ``shared-read chain`` and ``insert_slice chain`` (the
  shapes that make upstream One-Shot Analysis super-linear), ``plain chain``
  (``generators.elementwise_chain``, no shared read) and ``tiled loop nest``
  (N two-level ``scf.for`` nests over 16x16 tiles carrying the tensor in
  ``iter_args``: ``extract_slice`` two tiles, a ``linalg.generic``,
  ``insert_slice`` back; chained).
* ``rewrite``: the same pairs without ``test-analysis-only`` (full
  bufferization to memref IR: upstream's copy insertion and bufferization
  driven by memplan's decisions, no upstream analysis).
* ``workloads``: every real model in ``../shared/workloads`` (``--workloads``),
  analysis only and full bufferization, with the reference pipeline's options
  (identity-layout function boundaries).
* ``inprocess``: the same pairs inside one Python process each (what a user
  of memplan's Python pass pipelines sees): parse, pass, print, timed apart,
  for memplan's pass and upstream's ``one-shot-bufferize`` run through the
  same bindings; interpreter start-up and imports excluded.
* ``baseline``: memplan-opt against another build's memplan-opt
  (``--baseline PATH``), analysis only, every case at ``--baseline-sizes``
  and min-copy-bytes on ``--baseline-min-copy-bytes``, best of ``--repeat``
  interleaved runs, with peak RSS. To compare with the build that resolved
  the in-place analysis issue: ``git worktree add /tmp/m3 c8450a5 && python
  -m venv /tmp/m3/.venv && /tmp/m3/.venv/bin/pip install /tmp/m3``, then
  ``--sections baseline --baseline /tmp/m3/.venv/bin/memplan-opt``.
* ``scaling``: memplan alone up to ~100k ops on the two generic chains
  (``--scaling-sizes`` generics, 4 ops each), with time/op and
  time/(n log2 n) normalized to the first row (raw, and with memplan-opt's
  start-up on an empty module subtracted); upstream where it finishes.

Upstream runs are bounded by ``--timeout``; once upstream times out on a case,
larger N of that case skip upstream. ``--check`` exits non-zero if any pair of
outputs differs or a run fails.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generators import elementwise_chain  # noqa: E402
from shared_workloads import workload_dir  # noqa: E402
from tools import MEMPLAN_OPT, MLIR_OPT  # noqa: E402

OPTIONS = "bufferize-function-boundaries test-analysis-only"
MEMPLAN_ARGS = [f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{OPTIONS}}})"]
UPSTREAM_ARGS = [f"--one-shot-bufferize={OPTIONS}"]
# Rewrite mode: full bufferization to memref IR.
REWRITE_OPTIONS = "bufferize-function-boundaries"
REWRITE_ARGS = (
    [f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{REWRITE_OPTIONS}}})"],
    [f"--one-shot-bufferize={REWRITE_OPTIONS}"],
)


def shared_read_chain(n: int, size: int = 64) -> str:
    """N linalg.generic in a chain, each also reading the function argument."""
    t = f"tensor<{size}xf32>"
    lines = [
        "#id = affine_map<(d0) -> (d0)>",
        "module {",
        f"func.func @chain(%arg0: {t}) -> {t} {{",
    ]
    prev = "%arg0"
    for i in range(n):
        lines.append(f"  %e{i} = tensor.empty() : {t}")
        lines.append(
            f'  %v{i} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}'
            f" ins({prev}, %arg0 : {t}, {t}) outs(%e{i} : {t}) {{"
        )
        lines.append("  ^bb0(%a: f32, %b: f32, %o: f32):")
        lines.append("    %s = arith.addf %a, %b : f32")
        lines.append("    linalg.yield %s : f32")
        lines.append(f"  }} -> {t}")
        prev = f"%v{i}"
    lines += [f"  return {prev} : {t}", "}", "}"]
    return "\n".join(lines) + "\n"


def insert_slice_chain(n: int) -> str:
    """N tensor.insert_slice of one small tensor into one big tensor, chained."""
    lines = [
        "module {",
        f"func.func @ins(%t: tensor<{n}x4xf32>, %s: tensor<1x4xf32>) -> tensor<{n}x4xf32> {{",
    ]
    prev = "%t"
    for i in range(n):
        lines.append(
            f"  %r{i} = tensor.insert_slice %s into {prev}[{i}, 0] [1, 4] [1, 1]"
            f" : tensor<1x4xf32> into tensor<{n}x4xf32>"
        )
        prev = f"%r{i}"
    lines += [f"  return {prev} : tensor<{n}x4xf32>", "}", "}"]
    return "\n".join(lines) + "\n"


def plain_chain(n: int) -> str:
    """N linalg.generic in a chain (no shared read): ``generators.elementwise_chain``."""
    return elementwise_chain(n, shared_read=False)


def tiled_loop_nest(n: int, tiles: int = 4, size: int = 16) -> str:
    """N tiled two-level scf.for nests, chained through their results.

    Each nest walks a (tiles*size)^2 tensor in size x size tiles; the tensor is
    carried in ``iter_args`` of both loops; the body extracts the input tile
    and the accumulator tile, adds them with a ``linalg.generic`` into the
    accumulator tile and inserts it back (10 ops per nest).
    """
    T = f"tensor<{tiles * size}x{tiles * size}xf32>"
    t = f"tensor<{size}x{size}xf32>"
    lines = [
        "#id = affine_map<(d0, d1) -> (d0, d1)>",
        "module {",
        f"func.func @tiled(%arg0: {T}, %init: {T}) -> {T} {{",
        "  %c0 = arith.constant 0 : index",
        f"  %cs = arith.constant {size} : index",
        f"  %cn = arith.constant {tiles * size} : index",
    ]
    prev = "%init"
    for k in range(n):
        lines += [
            f"  %r{k} = scf.for %i = %c0 to %cn step %cs iter_args(%acc = {prev}) -> ({T}) {{",
            f"    %in = scf.for %j = %c0 to %cn step %cs iter_args(%acc2 = %acc) -> ({T}) {{",
            f"      %x = tensor.extract_slice %arg0[%i, %j] [{size}, {size}] [1, 1] : {T} to {t}",
            f"      %o = tensor.extract_slice %acc2[%i, %j] [{size}, {size}] [1, 1] : {T} to {t}",
            f'      %g = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}'
            f" ins(%x : {t}) outs(%o : {t}) {{",
            "      ^bb0(%a: f32, %b: f32):",
            "        %s = arith.addf %a, %b : f32",
            "        linalg.yield %s : f32",
            f"      }} -> {t}",
            f"      %u = tensor.insert_slice %g into %acc2[%i, %j] [{size}, {size}] [1, 1] : {t} into {T}",
            f"      scf.yield %u : {T}",
            "    }",
            f"    scf.yield %in : {T}",
            "  }",
        ]
        prev = f"%r{k}"
    lines += [f"  return {prev} : {T}", "}", "}"]
    return "\n".join(lines) + "\n"


# name -> (generator, total op count as a function of N, including module/func/return)
CASES = {
    "shared-read chain": (shared_read_chain, lambda n: 4 * n + 3),
    "insert_slice chain": (insert_slice_chain, lambda n: n + 3),
    "plain chain": (plain_chain, lambda n: 4 * n + 3),
    "tiled loop nest": (tiled_loop_nest, lambda n: 10 * n + 6),
}
SCALING_CASES = ("shared-read chain", "plain chain")

FULL = dict(sizes="1000,4000,20000", scaling_sizes="250,1000,4000,16000,25000", timeout=60.0)
QUICK = dict(sizes="1000", scaling_sizes="250,1000,4000", timeout=15.0)

INF = float("inf")


def run(argv: list[str], timeout: float) -> tuple[float, bytes | None]:
    """Wall time and stdout; (inf, None) on timeout, (nan, None) on failure."""
    t0 = time.perf_counter()
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return INF, None
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        sys.stderr.write(
            f"FAILED ({out.returncode}): {' '.join(argv)}\n{out.stderr.decode()[-2000:]}\n"
        )
        return math.nan, None
    return dt, out.stdout


def fmt_time(t: float, timeout: float, skipped: bool = False) -> str:
    if skipped:
        return "skipped"
    if t == INF:
        return f"> {timeout:.0f}"
    if math.isnan(t):
        return "FAILED"
    return f"{t:.2f}"


class Runner:
    def __init__(self, tmp: str, args: argparse.Namespace):
        self.tmp, self.args = tmp, args
        self.upstream_timed_out: set[str] = set()
        self.differ: list[str] = []

    def pair(self, name: str, n: int, upstream: bool = True, args=(MEMPLAN_ARGS, UPSTREAM_ARGS)):
        """Run both tools on CASES[name](n): (memplan s, upstream s, identical, upstream skipped)."""
        path = os.path.join(self.tmp, "in.mlir")
        with open(path, "w") as f:
            f.write(CASES[name][0](n))
        skipped = not upstream or name in self.upstream_timed_out
        ours, theirs, same = self.pair_file(f"{name} N={n}", path, args, skipped)
        if theirs == INF:
            self.upstream_timed_out.add(name)
        return ours, theirs, same, skipped

    def pair_file(self, label: str, path: str, args, skip_upstream: bool = False):
        """Run both tools on the file: (memplan s, upstream s, identical)."""
        ours, out1 = run([MEMPLAN_OPT, path, *args[0]], self.args.memplan_timeout)
        theirs, out2 = (
            (math.nan, None)
            if skip_upstream
            else run([MLIR_OPT, path, *args[1]], self.args.timeout)
        )
        if math.isnan(ours) or (not skip_upstream and math.isnan(theirs)):
            same = "FAILED"
            self.differ.append(f"{label} (a run failed)")
        elif out1 is None or out2 is None:
            same = "-"
        elif out1 == out2:
            same = "yes"
        else:
            same = "NO"
            self.differ.append(label)
            diff = difflib.unified_diff(
                out2.decode().splitlines(),
                out1.decode().splitlines(),
                "upstream",
                "memplan",
                lineterm="",
                n=1,
            )
            sys.stderr.write(f"outputs differ: {label}\n" + "\n".join(list(diff)[:40]) + "\n")
        return ours, theirs, same


def ratio_text(ours: float, theirs: float, timeout: float) -> str:
    if math.isnan(theirs) or math.isnan(ours) or ours == INF:
        return "-"
    if theirs == INF:
        return f"> {timeout / ours:.1f}x"
    return f"{theirs / ours:.2f}x"


#: Options of the real-model reference pipeline (../shared/workloads/README.md).
WORKLOAD_OPTIONS = (
    "bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
)
WORKLOADS = workload_dir()


def section_workloads(r: Runner, directory: str) -> None:
    """Every real-model workload: analysis only and full bufferization."""
    a = r.args
    files = (
        sorted(f for f in os.listdir(directory) if f.endswith(".mlir"))
        if os.path.isdir(directory)
        else []
    )
    print(f"\n### real models ({WORKLOAD_OPTIONS}; upstream timeout {a.timeout:.0f} s)\n")
    if not files:
        print(f"(no workloads: {directory} not found)")
        return
    print("| workload | mode | memplan (s) | upstream (s) | upstream / memplan | identical |")
    print("|---|---|---:|---:|---:|---|")
    for name in files:
        path = os.path.join(directory, name)
        for mode, extra in (("analysis only", " test-analysis-only"), ("full bufferization", "")):
            opts = WORKLOAD_OPTIONS + extra
            args = (
                [f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{opts}}})"],
                [f"--one-shot-bufferize={opts}"],
            )
            ours, theirs, same = r.pair_file(f"{name} {mode}", path, args)
            print(
                f"| {name.removesuffix('.mlir')} | {mode} | {fmt_time(ours, a.memplan_timeout)} "
                f"| {fmt_time(theirs, a.timeout)} | {ratio_text(ours, theirs, a.timeout)} | {same} |",
                flush=True,
            )


def section_compare(r: Runner, cases: list[str], sizes: list[int], rewrite: bool = False) -> None:
    a = r.args
    what = "rewrite mode (bufferize-function-boundaries, memref IR)" if rewrite else "end to end"
    print(f"\n### memplan vs upstream, {what} (upstream timeout {a.timeout:.0f} s)\n")
    print("| case | N | ops | memplan (s) | upstream (s) | upstream / memplan | identical |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name in cases:
        for n in sizes:
            ours, theirs, same, skipped = r.pair(
                name, n, args=REWRITE_ARGS if rewrite else (MEMPLAN_ARGS, UPSTREAM_ARGS)
            )
            ratio = "-" if skipped else ratio_text(ours, theirs, a.timeout)
            print(
                f"| {name} | {n} | {CASES[name][1](n)} | {fmt_time(ours, a.memplan_timeout)} "
                f"| {fmt_time(theirs, a.timeout, skipped)} | {ratio} | {same} |",
                flush=True,
            )


def _worker(tool: str, path: str, options: str) -> None:
    """Child of section_inprocess: time one tool in this process, print JSON."""
    import hashlib
    import json

    from mlir import ir, passmanager

    import memplan
    from memplan.ir.parse import parse_source

    text = open(path).read()
    warm = "func.func @w(%t: tensor<4xf32>) -> tensor<4xf32> { return %t : tensor<4xf32> }"
    with ir.Context() as ctx:
        # Warm up (imports, pass registration) as a long-running process would be.
        if tool == "memplan":
            memplan.run_pipeline(
                parse_source(warm, "warm.mlir", ctx),
                f"builtin.module(memplan-one-shot-bufferize{{{options}}})",
            )
        else:
            passmanager.PassManager.parse(f"builtin.module(one-shot-bufferize{{{options}}})").run(
                ir.Module.parse(warm).operation
            )
        t0 = time.perf_counter()
        if tool == "memplan":
            module = parse_source(text, path, ctx)
        else:
            module = ir.Module.parse(text)
        t1 = time.perf_counter()
        if tool == "memplan":
            memplan.run_pipeline(module, f"builtin.module(memplan-one-shot-bufferize{{{options}}})")
        else:
            passmanager.PassManager.parse(f"builtin.module(one-shot-bufferize{{{options}}})").run(
                module.operation
            )
        t2 = time.perf_counter()
        out = str(module)
        t3 = time.perf_counter()
    print(
        json.dumps(
            {
                "parse": t1 - t0,
                "pass": t2 - t1,
                "print": t3 - t2,
                "sha": hashlib.sha1(out.encode()).hexdigest(),
            }
        )
    )


def _in_process(tool: str, path: str, timeout: float):
    import json

    argv = [sys.executable, os.path.abspath(__file__), "--worker", tool, path]
    t, out = run(argv, timeout)
    if out is None:
        return t, None
    return t, json.loads(out)


def section_inprocess(r: Runner, cases: list[str], sizes: list[int]) -> None:
    a = r.args
    print(
        f"\n### memplan vs upstream inside one Python process (parse + pass + print; upstream timeout "
        f"{a.timeout:.0f} s)\n"
    )
    print(
        "| case | N | ops | memplan total (s) | memplan pass (s) | upstream total (s) | upstream pass (s) "
        "| total ratio | pass ratio | identical |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    timed_out: set[str] = set()
    for name in cases:
        for n in sizes:
            path = os.path.join(r.tmp, "in.mlir")
            with open(path, "w") as f:
                f.write(CASES[name][0](n))
            _, ours = _in_process("memplan", path, a.memplan_timeout)
            if name in timed_out:
                t_up, theirs = math.nan, None
            else:
                t_up, theirs = _in_process("upstream", path, a.timeout)
                if t_up == INF:
                    timed_out.add(name)
            if ours is None:
                r.differ.append(f"in-process {name} N={n} (memplan failed)")
                continue
            mt = ours["parse"] + ours["pass"] + ours["print"]
            cells = [f"{mt:.2f}", f"{ours['pass']:.2f}"]
            if theirs is None:
                cells += [fmt_time(t_up, a.timeout, skipped=math.isnan(t_up)), "-", "-", "-", "-"]
            else:
                ut = theirs["parse"] + theirs["pass"] + theirs["print"]
                same = "yes" if theirs["sha"] == ours["sha"] else "NO"
                if same == "NO":
                    r.differ.append(f"in-process {name} N={n}")
                cells += [
                    f"{ut:.2f}",
                    f"{theirs['pass']:.2f}",
                    f"{ut / mt:.2f}x",
                    f"{theirs['pass'] / ours['pass']:.2f}x",
                    same,
                ]
            print(f"| {name} | {n} | {CASES[name][1](n)} | " + " | ".join(cells) + " |", flush=True)


def section_scaling(r: Runner, cases: list[str], sizes: list[int]) -> None:
    a = r.args
    empty = os.path.join(r.tmp, "empty.mlir")
    with open(empty, "w") as f:
        f.write("module {\n}\n")
    t0 = min(run([MEMPLAN_OPT, empty, *MEMPLAN_ARGS], a.memplan_timeout)[0] for _ in range(3))
    print(
        f"\n### memplan scaling (n = ops; t0 = memplan-opt start-up on an empty module = {t0:.2f} s; "
        f"upstream timeout {a.timeout:.0f} s)\n"
    )
    print(
        "| case | N generics | n (ops) | memplan (s) | us/op | t/(n log2 n), norm. | (t-t0)/(n log2 n), norm. "
        "| upstream (s) | identical |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in cases:
        base = base0 = None
        for n in sizes:
            ops = CASES[name][1](n)
            ours, theirs, same, skipped = r.pair(name, n, upstream=not a.no_upstream_scaling)
            nlogn = ops * math.log2(ops)
            if math.isfinite(ours):
                k, k0 = ours / nlogn, max(ours - t0, 0.0) / nlogn
                base = base or k
                base0 = base0 or k0
                cols = f"{ours:.2f} | {ours / ops * 1e6:.1f} | {k / base:.2f} | {k0 / base0 if base0 else math.nan:.2f}"
            else:
                cols = f"{fmt_time(ours, a.memplan_timeout)} | - | - | -"
            print(
                f"| {name} | {n} | {ops} | {cols} | {fmt_time(theirs, a.timeout, skipped)} | {same} |",
                flush=True,
            )


def section_baseline(r: Runner, cases: list[str], sizes: list[int]) -> None:
    """memplan-opt against another memplan-opt build (``--baseline``, e.g.
    the commit that resolved the in-place analysis issue), analysis only,
    interleaved runs, best of ``--repeat``; peak RSS from ``/usr/bin/time``
    when it exists."""
    a = r.args
    gnu_time = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
    print(
        f"\n### memplan-opt vs a baseline build ({a.baseline}), analysis only, best of {a.repeat}\n"
    )
    print(
        "| case | N | ops | options | memplan (s) | baseline (s) | memplan / baseline | peak RSS memplan / baseline "
        "(MB) | identical |"
    )
    print("|---|---:|---:|---|---:|---:|---:|---:|---|")
    path = os.path.join(r.tmp, "in.mlir")
    runs = [(name, n, OPTIONS) for name in cases for n in sizes]
    runs += [
        (name, n, OPTIONS + " analysis-heuristic=min-copy-bytes")
        for name, n in a.baseline_min_copy_bytes
    ]
    for name, n, options in runs:
        with open(path, "w") as f:
            f.write(CASES[name][0](n))
        pipeline = f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{options}}})"
        best = {"memplan": math.inf, "baseline": math.inf}
        rss = {"memplan": 0, "baseline": 0}
        outs: dict[str, bytes | None] = {}
        for _ in range(a.repeat):
            for who, tool in (("memplan", MEMPLAN_OPT), ("baseline", a.baseline)):
                out_path = os.path.join(r.tmp, f"out-{who}.mlir")
                argv = [tool, path, pipeline, "-o", out_path]
                if gnu_time:
                    argv = [gnu_time, "-f", "%M", "-o", os.path.join(r.tmp, "rss")] + argv
                t, out = run(argv, a.memplan_timeout)
                if out is None:
                    best[who] = math.nan
                    continue
                best[who] = min(best[who], t)
                if gnu_time:
                    with open(os.path.join(r.tmp, "rss")) as f:
                        rss[who] = max(rss[who], int(f.read().split()[-1]) * 1024)
                with open(out_path, "rb") as f:
                    outs[who] = f.read()
        same = (
            "yes"
            if outs.get("memplan") is not None and outs.get("memplan") == outs.get("baseline")
            else "NO"
        )
        if same == "NO":
            r.differ.append(f"baseline {name} N={n} {options}")
        extra = " min-copy-bytes" if "min-copy-bytes" in options else ""
        print(
            f"| {name} | {n} | {CASES[name][1](n)} | analysis only{extra} | {best['memplan']:.2f} "
            f"| {best['baseline']:.2f} | {best['memplan'] / best['baseline']:.2f} "
            f"| {rss['memplan'] / 1e6:.0f} / {rss['baseline'] / 1e6:.0f} | {same} |",
            flush=True,
        )


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3], OPTIONS)
        return
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help=f"small sizes and timeout: {QUICK}")
    ap.add_argument(
        "--sections",
        default="compare,inprocess,scaling",
        help="comma list of: compare, rewrite, workloads, inprocess, baseline, scaling",
    )
    ap.add_argument("--workloads", default=WORKLOADS, help="directory of real-model .mlir files")
    ap.add_argument("--cases", default=",".join(CASES), help="cases of the compare section")
    ap.add_argument("--sizes", help=f"N of the compare section (default {FULL['sizes']})")
    ap.add_argument("--scaling-cases", default=",".join(SCALING_CASES))
    ap.add_argument(
        "--scaling-sizes",
        help=f"N generics of the scaling section (default {FULL['scaling_sizes']})",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        help=f"per-run limit for upstream, s (default {FULL['timeout']:.0f})",
    )
    ap.add_argument(
        "--memplan-timeout", type=float, default=600.0, help="per-run limit for memplan (s)"
    )
    ap.add_argument(
        "--no-upstream-scaling", action="store_true", help="scaling section: memplan only"
    )
    ap.add_argument("--check", action="store_true", help="exit non-zero if any outputs differ")
    ap.add_argument(
        "--baseline", help="baseline section: another build's memplan-opt to compare with"
    )
    ap.add_argument(
        "--repeat", type=int, default=3, help="baseline section: runs per tool (best kept)"
    )
    ap.add_argument("--baseline-sizes", default="4000,20000", help="baseline section: N per case")
    ap.add_argument(
        "--baseline-min-copy-bytes",
        default="plain chain:25000",
        help="baseline section: case:N pairs also run with analysis-heuristic=min-copy-bytes",
    )
    args = ap.parse_args()
    preset = QUICK if args.quick else FULL
    args.sizes = args.sizes or preset["sizes"]
    args.scaling_sizes = args.scaling_sizes or preset["scaling_sizes"]
    args.timeout = args.timeout or preset["timeout"]
    args.baseline_min_copy_bytes = [
        (c.split(":")[0], int(c.split(":")[1]))
        for c in args.baseline_min_copy_bytes.split(",")
        if c
    ]
    if "baseline" in args.sections.split(",") and not args.baseline:
        ap.error("the baseline section needs --baseline PATH (another build's memplan-opt)")
    for c in args.cases.split(",") + args.scaling_cases.split(","):
        if c not in CASES:
            ap.error(f"unknown case {c!r}; known: {', '.join(CASES)}")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(tmp, args)
        sections = args.sections.split(",")
        if "compare" in sections:
            section_compare(r, args.cases.split(","), [int(x) for x in args.sizes.split(",")])
        if "rewrite" in sections:
            r.upstream_timed_out.clear()
            section_compare(
                r, args.cases.split(","), [int(x) for x in args.sizes.split(",")], rewrite=True
            )
        if "workloads" in sections:
            section_workloads(r, args.workloads)
        if "inprocess" in sections:
            section_inprocess(r, args.cases.split(","), [int(x) for x in args.sizes.split(",")])
        if "baseline" in sections:
            section_baseline(
                r, args.cases.split(","), [int(x) for x in args.baseline_sizes.split(",")]
            )
        if "scaling" in sections:
            r.upstream_timed_out.clear()
            section_scaling(
                r, args.scaling_cases.split(","), [int(x) for x in args.scaling_sizes.split(",")]
            )
    print(
        f"\ntotal {time.perf_counter() - start:.0f} s; outputs differ or runs failed: {', '.join(r.differ) or 'none'}"
    )
    if args.check and r.differ:
        sys.exit(1)


if __name__ == "__main__":
    main()


def run_cases() -> list[tuple]:
    """(name, make_input, memplan argv, upstream argv) for bench/run.py."""
    pipeline = f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{OPTIONS}}})"
    out = []
    for name, n in (("shared-read chain", 4000), ("insert_slice chain", 1000)):
        out.append(
            (
                f"in-place analysis: {name} {n // 1000}k, test-analysis-only",
                (lambda f=CASES[name][0], n=n: f(n)),
                [MEMPLAN_OPT, "{input}", pipeline],
                [MLIR_OPT, "{input}", f"--one-shot-bufferize={OPTIONS}"],
            )
        )
    return out
