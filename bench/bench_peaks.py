"""Heap peaks: upstream's pipeline against memplan-memory-pipeline, and the dataflow bound.

    python bench/bench_peaks.py [--skip-gpt2] [--no-run] [--time N] [--only NAME ...]
                                [--models DIR ...] [--fused] [--ablate] [--dim N]

For every workload of ``../shared/workloads`` (tensor level, entry
``@forward``) and the generated transformer- and CNN-shaped programs of
``bench/workloads.py``, in the same run:

* upstream: ``one-shot-bufferize{bufferize-function-boundaries
  function-boundary-type-conversion=identity-layout-map},
  buffer-deallocation-pipeline, func.func(optimize-allocation-liveness)``;
* memplan: ``memplan-memory-pipeline`` (tensor in, memref out).

Static columns (``memplan.lifetimes.peaks``: every heap byte live at a
program point, pools and every buffer left on the heap, returned ones
included, 64-byte blocks; dynamic sizes are not in the figures):

* upstream peak, memplan peak: the output IR of each pipeline as it is;
* dataflow bound: on upstream's output, every buffer held only while its
  contents are needed (first write to last read, and again from each full
  overwrite): each tensor's storage from its definition to its last use, in
  place only into a destination that dies there, same op order;
* memplan / bound and memplan / upstream;
* heap allocation sites: ``memref.alloc`` ops left in the output.

Run-time columns (``--no-run`` skips them): one run of the entry through the
ExecutionEngine with memplan-check's heap hooks (``memplan.numerics.execute(...).heap``,
random inputs that respect the IR, every dynamic size ``--dim``, 7 by default,
64-byte blocks): the peak heap bytes and the allocator calls, upstream -> memplan.

With ``--time N``, the ExecutionEngine run time of each output, compiled
once, on the C library's heap, in CPU seconds of the calling thread
(``bench/run_time.py``): N rounds (more for programs shorter than 0.5 s)
that each call upstream's output, then memplan's; the median time of a call
of each, upstream -> memplan, and the median over rounds of the round's
ratio memplan / upstream with its 95% interval. memplan's rewrites
(recomputation included) may not make a model more than 5% slower: a ratio
whose whole interval is above 1.05 is **slower**, one whose interval
straddles 1.05 is *undecided* (rerun with more rounds).

The last column says whether memplan is above upstream, statically or at run
time (it must never be), or more than 5% slower.

With ``--fused``, each workload also gets a row ``NAME (fused)``: the
tensor program after upstream's ``linalg-fuse-elementwise-ops,canonicalize,cse``
(a common step before bufferization), both pipelines run on that same fused
input and its dataflow bound taken on upstream's output of it. A fused
input that upstream's pipeline does not bufferize gets a row saying so.

With ``--ablate``, a second table: for each workload, the static peak of
``memplan-memory-pipeline`` with one of its tensor-level passes turned off
(its option set to false), and the bytes that pass removes (the peak
without it minus the peak with every pass on; negative where turning it off
alone is lower, which the pipeline's own checks do not see because each pass
decides on the program the passes before it left).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from mlir import ir  # noqa: E402
from shared_workloads import workload_dir  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

import memplan  # noqa: E402
from memplan.ir import parse_source  # noqa: E402
from memplan.lifetimes.analysis import analyze_module  # noqa: E402
from memplan.lifetimes.peaks import dataflow_bound, input_peak  # noqa: E402
from memplan.passes.declarations import PEAK_PASS_OPTIONS  # noqa: E402
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION  # noqa: E402

WORKLOAD_DIR = workload_dir()
MEMPLAN = "memplan-memory-pipeline"
#: Upstream's elementwise fusion, as a compiler runs it before bufferization.
FUSION = "linalg-fuse-elementwise-ops,canonicalize,cse"
#: The tensor-level passes of the memory pipeline, by the option that turns
#: each off, in pipeline order.
ABLATED = tuple(option.name for option in PEAK_PASS_OPTIONS.values())
#: The most memplan's output may take of upstream's run time.
SLOWER = 1.05


def cases(skip_gpt2: bool, only: list[str], models: list[str] = ()) -> list[tuple[str, str, str]]:
    """(label, tensor-level text, entry function): the shared workloads, the
    generated programs, then every ``.mlir`` of the ``models`` directories
    (e.g. written by ``bench/export_models.py``; entry ``@forward``)."""
    out = []
    paths = sorted(glob.glob(os.path.join(WORKLOAD_DIR, "*.mlir")))
    for directory in models:
        paths += sorted(glob.glob(os.path.join(directory, "*.mlir")))
    for path in paths:
        if skip_gpt2 and "gpt2" in path:
            continue
        out.append((os.path.basename(path)[:-5], open(path).read(), "forward"))
    out += [(f"generated {name}", gen(), entry) for name, (gen, entry) in WORKLOADS.items()]
    if only:
        out = [c for c in out if any(o in c[0] for o in only)]
    return out


def with_fused(plain: list[tuple[str, str, str]], fused: bool) -> list[tuple[str, str, str]]:
    """``plain``, and with ``fused`` after each case its fused twin (upstream's
    ``FUSION`` run on it)."""
    out = []
    for label, text, entry in plain:
        out.append((label, text, entry))
        if fused:
            fused_text, _ = pipeline_output(text, FUSION)
            out.append((f"{label} (fused)", fused_text, entry))
    return out


def static_figures(memref_text: str) -> tuple[int, int, int]:
    """(peak, dataflow bound, allocation sites) of a memref module, summed over functions."""
    with ir.Context():
        module = parse_source(memref_text)
        functions = analyze_module(module)
        peak = sum(input_peak(lt) for lt in functions)
        bound = sum(dataflow_bound(lt) for lt in functions)
        sites = sum(int((~lt.is_alloca).sum()) for lt in functions)
    return peak, bound, sites


def pipeline_output(text: str, pipeline: str) -> tuple[str, float]:
    with ir.Context():
        module = parse_source(text)
        t0 = time.perf_counter()
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        seconds = time.perf_counter() - t0
        return str(module), seconds


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--skip-gpt2", action="store_true", help="leave out the 48-layer GPT-2 (slowest)"
    )
    ap.add_argument("--no-run", action="store_true", help="skip the ExecutionEngine runs")
    ap.add_argument(
        "--only", nargs="*", default=[], help="workloads whose label contains one of these"
    )
    ap.add_argument(
        "--time",
        type=int,
        default=0,
        metavar="N",
        help="time each output in N rounds of paired calls (more for short programs): "
        "median ratio and its 95%% interval, e.g. 20",
    )
    ap.add_argument(
        "--models",
        nargs="*",
        default=[],
        metavar="DIR",
        help="also every .mlir of these directories (entry @forward), e.g. the output of "
        "bench/export_models.py",
    )
    ap.add_argument(
        "--fused",
        action="store_true",
        help=f"also each workload after upstream's {FUSION} (rows 'NAME (fused)')",
    )
    ap.add_argument(
        "--dim",
        type=int,
        default=7,
        metavar="N",
        help="every dynamic size in the runs (e.g. 64 for mlp5_dynbatch at batch 64)",
    )
    ap.add_argument(
        "--ablate",
        action="store_true",
        help="also the bytes each tensor-level pass removes (the peak with it turned off)",
    )
    args = ap.parse_args()
    print(
        "| workload | upstream peak B | memplan peak B | dataflow bound B | memplan / bound "
        "| memplan / upstream | run-time peak B upstream -> memplan | heap allocation sites "
        "upstream -> memplan | allocator calls upstream -> memplan | pipeline s upstream / memplan "
        + ("| run ms upstream -> memplan | run time memplan / upstream " if args.time else "")
        + "| above upstream |"
    )
    print(
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        + ("---:|---:|" if args.time else "")
        + ":---:|"
    )
    above = over_bound = undecided = 0
    ablation: list[str] = []
    for label, text, entry in with_fused(cases(args.skip_gpt2, args.only, args.models), args.fused):
        try:
            up_text, t_up = pipeline_output(text, UPSTREAM_BUFFERIZATION)
        except ir.MLIRError as err:
            lines = [line.strip() for line in str(err).splitlines() if "error:" in line]
            why = (lines or [str(err).strip()])[0].replace("|", "/")
            print(f"| {label} | upstream's pipeline fails: {why} | | | | | | | | | |", flush=True)
            continue
        mp_text, t_mp = pipeline_output(text, MEMPLAN)
        up_peak, bound, up_sites = static_figures(up_text)
        mp_peak, _, mp_sites = static_figures(mp_text)
        run_cell = calls_cell = "-"
        worse = mp_peak > up_peak
        if not args.no_run:
            from memplan.numerics import execute

            dims = {"*": args.dim}
            up_heap, mp_heap = (execute(t, entry, dims=dims).heap for t in (up_text, mp_text))
            run_cell = f"{up_heap.peak_blocks_bytes} -> {mp_heap.peak_blocks_bytes}"
            calls_cell = f"{up_heap.allocations} -> {mp_heap.allocations}"
            worse |= mp_heap.peak_blocks_bytes > up_heap.peak_blocks_bytes
        time_cells = ""
        if args.time:
            from run_time import compare, run_seconds, verdict

            up_t, mp_t = run_seconds([up_text, mp_text], entry, args.time, dims={"*": args.dim})
            ratio = compare(up_t, mp_t)
            decided = verdict(ratio, SLOWER)
            worse |= decided == "above"
            undecided += decided == "undecided"
            flag = {"above": " **slower**", "undecided": " *undecided*"}.get(decided, "")
            time_cells = (
                f"| {ratio.base_seconds * 1e3:.1f} -> {ratio.other_seconds * 1e3:.1f} "
                f"| {ratio.cell()}{flag} "
            )
        above += worse
        over_bound += mp_peak > bound
        print(
            f"| {label} | {up_peak} | {mp_peak} | {bound} | {mp_peak / bound if bound else 1:.3f} "
            f"| {mp_peak / up_peak if up_peak else 1:.3f} | {run_cell} | {up_sites} -> {mp_sites} "
            f"| {calls_cell} | {t_up:.2f} / {t_mp:.2f} {time_cells}| {'**YES**' if worse else 'no'} |",
            flush=True,
        )
        if args.ablate:
            ablation.append(ablation_row(label, text, mp_peak))
    print(
        f"\nWorkloads above upstream: {above}. Workloads above their dataflow bound: {over_bound}."
        + (f" Run times undecided against {SLOWER}x upstream's: {undecided}." if args.time else "")
    )
    if ablation:
        print(
            "\nBytes each pass removes (static peak with the pass off minus with every pass on):\n"
        )
        print("| workload | memplan peak B | " + " | ".join(f"{o}=false" for o in ABLATED) + " |")
        print("|---|---:|" + "---:|" * len(ABLATED))
        print("\n".join(ablation))


def ablation_row(label: str, text: str, peak: int) -> str:
    """One row of the ``--ablate`` table: per pass, the bytes it removes."""
    cells = []
    for option in ABLATED:
        off_text, _ = pipeline_output(text, f"{MEMPLAN}{{{option}=false}}")
        cells.append(f"{static_figures(off_text)[0] - peak:+d}")
    return f"| {label} | {peak} | " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main()
