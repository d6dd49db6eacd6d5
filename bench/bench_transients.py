"""External transient storage on model-shaped workloads.

For each workload of ``workloads.py``: bufferize with upstream passes, give
the entry function a storage argument, run ``memplan-transients``, and print
the storage it requires (its size query, folded to a constant) against the sum
of the transient allocations it replaces and their peak live bytes (the lower
bound for any placement). The runtime columns call the function through the
ExecutionEngine with storage of exactly the queried size: heap allocations per
call before and after (only the returned result is left), and whether the
outputs are bit-identical.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from mlir import ir

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import WORKLOADS  # noqa: E402

import memplan  # noqa: E402
from memplan import numerics  # noqa: E402
from memplan.ir import extract_graph, function_ids, parse_source  # noqa: E402
from memplan.lifetimes.analysis import LifetimeAnalysis  # noqa: E402
from memplan.numerics import transient_runs as runtime  # noqa: E402
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION as BUFFERIZE  # noqa: E402


def measure(name: str, run: bool) -> dict:
    make, entry = WORKLOADS[name]
    with ir.Context():
        before = parse_source(make(), f"{name}.mlir")
        memplan.run_pipeline(
            before, f"builtin.module({BUFFERIZE},memplan-add-transient-storage{{func={entry}}})"
        )
        graph = extract_graph(before)
        lt = LifetimeAnalysis(graph).function(function_ids(graph)[0])
        transient = lt.eligible & (lt.bytes >= 0)
        total = int(lt.bytes[transient].sum())
        peak = lt.eligible_peak_bytes
        after = parse_source(str(before), f"{name}.mlir")
        memplan.run_pipeline(after, "builtin.module(memplan-transients)")
        text = str(after)
        marker = "memplan.transient_size = "
        required = int(text.split(marker, 1)[1].split(" ", 1)[0])
        row = {
            "name": name,
            "allocs": int(transient.sum()),
            "sum": total,
            "peak": peak,
            "required": required,
        }
        if run:
            rng = np.random.default_rng(0)
            sig = numerics.signature.entry_signature(ir.Module.parse(str(after)), entry)
            index = runtime.storage_index(ir.Module.parse(str(after)), entry)
            inputs = [
                rng.uniform(-1, 1, a.shape).astype(np.float32)
                for i, a in enumerate(sig.args)
                if i != index
            ]
            storage = np.zeros(required, dtype=np.uint8)
            args = inputs[:index] + [storage] + inputs[index:]
            result = numerics.compare(before, after, entry, inputs=args, scratch=[index])
            row.update(
                ok=result.ok,
                heap_before=result.heap_before.allocations,
                heap_after=result.heap_after.allocations,
            )
        return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--no-run", action="store_true", help="skip the ExecutionEngine columns")
    args = ap.parse_args()
    print(
        "| workload | transient allocs | sum of allocs (B) | peak live (B) | required storage (B) | required / peak | heap allocs per call before -> after | outputs |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name in WORKLOADS:
        r = measure(name, not args.no_run)
        runtime_cols = (
            f"{r['heap_before']} -> {r['heap_after']} | {'identical' if r['ok'] else 'MISMATCH'}"
            if "ok" in r
            else "- | -"
        )
        print(
            f"| {name} | {r['allocs']} | {r['sum']} | {r['peak']} | {r['required']} | "
            f"{r['required'] / max(r['peak'], 1):.3f} | {runtime_cols} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
