"""Interface engine benchmark: ``_core.run_interface_engine`` (lib/analysis/)
vs memplan's table-driven C++ core (``memplan-one-shot-bufferize{analysis-engine=cpp}``)
vs upstream ``one-shot-bufferize``, in one Python process each run (parse
and print excluded), in test-analysis-only and full bufferization, outputs
compared with upstream's.

    python bench/bench_interface_engine.py                      # gpt2 + shared-read chain 4000
    python bench/bench_interface_engine.py --chain 2000 --no-upstream-chain
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mlir import ir, passmanager

import memplan
from memplan import _core
from memplan.ir.parse import parse_source

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "test", "python"))
from test_inplace_core import _shared_read_chain  # noqa: E402

GPT2 = "/work/shared/workloads/gpt2_l48_h512_s128.mlir"
GPT2_OPTIONS = "bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"


def _kwargs(options: str, analysis_only: bool) -> dict:
    kw = {"function_boundaries": "bufferize-function-boundaries" in options, "test_analysis_only": analysis_only}
    for token in options.split():
        if token.startswith("function-boundary-type-conversion="):
            kw["function_boundary_type_conversion"] = token.split("=", 1)[1]
    return kw


def _timed(text: str, run) -> tuple[float, str]:
    with ir.Context() as ctx:
        module = parse_source(text, "bench.mlir", ctx)
        start = time.perf_counter()
        run(module)
        elapsed = time.perf_counter() - start
        return elapsed, str(module)


def measure(name: str, text: str, options: str, upstream: bool) -> None:
    for analysis_only in (True, False):
        full = options + (" test-analysis-only" if analysis_only else "")
        mode = "analysis-only" if analysis_only else "bufferize"
        rows = []
        t, ours = _timed(text, lambda m: _core.run_interface_engine(m.operation._CAPIPtr, **_kwargs(options, analysis_only)))
        rows.append(("interface engine", t, ours))
        t, core = _timed(text, lambda m: memplan.run_pipeline(
            m, f"builtin.module(memplan-one-shot-bufferize{{{full} analysis-engine=cpp}})"))
        rows.append(("table-driven C++ core", t, core))
        if upstream:
            t, up = _timed(text, lambda m: passmanager.PassManager.parse(
                f"builtin.module(one-shot-bufferize{{{full}}})").run(m.operation))
            rows.append(("upstream one-shot-bufferize", t, up))
        for label, t, out in rows:
            same = "" if not upstream else ("  (= upstream)" if out == rows[-1][2] else "  (DIFFERS from upstream)")
            print(f"{name:28s} {mode:14s} {label:28s} {t:8.3f} s{same}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chain", type=int, default=4000, help="shared-read chain length")
    parser.add_argument("--no-upstream-chain", action="store_true", help="skip upstream on the chain")
    args = parser.parse_args()
    if os.path.exists(GPT2):
        measure("gpt2_l48_h512_s128", open(GPT2).read(), GPT2_OPTIONS, upstream=True)
    measure(f"shared-read chain n={args.chain}", _shared_read_chain(args.chain),
            "bufferize-function-boundaries", upstream=not args.no_upstream_chain)


if __name__ == "__main__":
    main()
