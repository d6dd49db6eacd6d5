"""Heap peaks: upstream's pipeline against memplan-buffer-reuse and transients.

    python bench/bench_peaks.py [--skip-gpt2]

For every workload of ``../shared/workloads`` (tensor level, entry
``@forward``) and the generated ones of ``bench/workloads.py``: upstream's
pipeline (``one-shot-bufferize``, ``buffer-deallocation-pipeline``,
``optimize-allocation-liveness``), then ``memplan-buffer-reuse``, measured in
the same run. Columns, all from the pass statistics (every heap byte live at a
program point, pools and every buffer left on the heap, returned ones
included, 64-byte blocks; buffers with dynamic sizes are not in the figures):

* upstream peak: the memref IR as upstream's pipeline leaves it;
* memplan peak: after ``memplan-buffer-reuse``;
* lower bound: poolable buffers live from allocation to last use only;
* heap allocations: allocation sites left (pools included), upstream -> memplan;
* transients: the storage ``memplan-transients`` asks for (its buffers are
  not on the heap), against the single-pool lower bound of the same buffers.

* allocator calls: ``malloc`` calls of one run of the entry through the
  ExecutionEngine (``memplan.numerics.measure_heap``, random inputs that
  respect the IR), upstream -> memplan (``--no-run`` skips these runs).

The last column says whether memplan's peak is above upstream's (it must
never be).
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

import memplan  # noqa: E402
from memplan.ir import parse_source  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

WORKLOAD_DIR = os.path.join(HERE, "..", "..", "shared", "workloads")
UPSTREAM = (
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, "
    "buffer-deallocation-pipeline, func.func(optimize-allocation-liveness)"
)


def cases(skip_gpt2: bool) -> list[tuple[str, str, str]]:
    """(label, tensor-level text, entry function)."""
    out = []
    for path in sorted(glob.glob(os.path.join(WORKLOAD_DIR, "*.mlir"))):
        if skip_gpt2 and "gpt2" in path:
            continue
        out.append((os.path.basename(path)[:-5], open(path).read(), "forward"))
    out += [(f"generated {name}", gen(), entry) for name, (gen, entry) in WORKLOADS.items()]
    return out


def stats_of(passes) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in passes:
        for k, (v, _) in getattr(p, "statistics", {}).items():
            out[k] = out.get(k, 0) + v
    return out


def run_case(text: str, entry: str, run: bool) -> dict[str, object]:
    with ir.Context():
        module = parse_source(text)
        memplan.run_pipeline(module, f"builtin.module({UPSTREAM})")
        memref_text = str(module)
        t0 = time.perf_counter()
        reuse = stats_of(memplan.run_pipeline(module, "builtin.module(memplan-buffer-reuse)"))
        t_reuse = time.perf_counter() - t0
        reuse_text = str(module)
    row: dict[str, object] = {"reuse": reuse, "t_reuse": t_reuse}
    if run:
        from memplan.numerics import measure_heap

        row["calls"] = tuple(measure_heap(t, entry).allocations for t in (memref_text, reuse_text))
    with ir.Context():
        module = parse_source(memref_text)
        try:
            memplan.run_pipeline(
                module, f"builtin.module(memplan-add-transient-storage{{func={entry}}}, memplan-transients)")
            size = None
            for op in module.regions[0].blocks[0].operations:
                if op.operation.name == "func.func" and "memplan.transient_size" in op.attributes:
                    if ir.StringAttr(op.attributes["sym_name"]).value == entry:
                        size = ir.IntegerAttr(op.attributes["memplan.transient_size"]).value
            row["transients"] = size if size is not None else "dynamic"
        except Exception as err:  # reported in the table
            row["transients"] = f"error: {str(err).splitlines()[0][:60]}"
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-gpt2", action="store_true", help="leave out the 48-layer GPT-2 (slowest)")
    ap.add_argument("--no-run", action="store_true", help="skip the ExecutionEngine runs (allocator calls)")
    args = ap.parse_args()
    print("| workload | upstream peak B | memplan peak B | lower bound B | memplan / upstream "
          "| heap allocations upstream -> memplan | allocator calls upstream -> memplan "
          "| transient storage B | reuse s | above upstream |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    above = 0
    for label, text, entry in cases(args.skip_gpt2):
        row = run_case(text, entry, not args.no_run)
        s = row["reuse"]
        up, mp, lb = s.get("peak-upstream", 0), s.get("peak-planned", 0), s.get("peak-lower-bound", 0)
        before = s.get("heap-allocations-left", 0) + s.get("pooled-allocations", 0) - s.get("pools", 0)
        worse = mp > up
        above += worse
        print(f"| {label} | {up} | {mp} | {lb} | {mp / up if up else 1:.3f} | {before} -> "
              f"{s.get('heap-allocations-left', 0)} | "
              f"{' -> '.join(map(str, row['calls'])) if 'calls' in row else '-'} | "
              f"{row['transients']} | {row['t_reuse']:.2f} "
              f"| {'**YES**' if worse else 'no'} |", flush=True)
    print(f"\nWorkloads above upstream: {above}.")


if __name__ == "__main__":
    main()
