"""Interface engine benchmark: memplan's in-place engine
(``_core.run_interface_engine``, lib/Inplace/) against upstream
``one-shot-bufferize``, in one Python process each run (parse and print
excluded): analysis only (the IR untouched; what explain and min-copy-bytes
run), test-analysis-only (annotations compared with upstream's) and full
bufferization (memref IR compared with upstream's).

    python bench/bench_interface_engine.py                      # gpt2 + shared-read chain 4000
    python bench/bench_interface_engine.py --chain 2000 --no-upstream-chain
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from mlir import ir, passmanager

import memplan.passes
from memplan import _core
from memplan.ir.parse import parse_source

sys.path.insert(0, os.path.dirname(__file__))
from generators import elementwise_chain  # noqa: E402
from shared_workloads import workload_dir  # noqa: E402

GPT2 = os.path.join(workload_dir(), "gpt2_l48_h512_s128.mlir")
GPT2_OPTIONS = "bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"


def _kwargs(options: str, mode: str) -> dict:
    """run_interface_engine's arguments: the pass options, parsed by MLIR."""
    values = memplan.passes.parse_option_text(
        memplan.passes.lookup("memplan-one-shot-bufferize"), options
    )
    values["test_analysis_only"] = mode == "test-analysis-only"
    return {"options": values, "analysis_only": mode == "analysis-only"}


def _timed(text: str, run) -> tuple[float, str]:
    with ir.Context() as ctx:
        module = parse_source(text, "bench.mlir", ctx)
        start = time.perf_counter()
        run(module)
        elapsed = time.perf_counter() - start
        return elapsed, str(module)


def measure(name: str, text: str, options: str, upstream: bool) -> None:
    for mode in ("analysis-only", "test-analysis-only", "bufferize"):
        t, ours = _timed(
            text,
            lambda m: _core.run_interface_engine(m.operation._CAPIPtr, **_kwargs(options, mode)),
        )
        line = f"{name:28s} {mode:18s} interface engine {t:8.3f} s"
        if mode == "analysis-only":
            line += (
                "  (IR untouched)" if ours == _timed(text, lambda m: None)[1] else "  (IR CHANGED)"
            )
        elif upstream:
            full = options + (" test-analysis-only" if mode == "test-analysis-only" else "")
            tu, up = _timed(
                text,
                lambda m: passmanager.PassManager.parse(
                    f"builtin.module(one-shot-bufferize{{{full}}})"
                ).run(m.operation),
            )
            line += f"   upstream {tu:8.3f} s  ({tu / t:5.1f}x){'  = upstream' if ours == up else '  DIFFERS'}"
        print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chain", type=int, default=4000, help="shared-read chain length")
    parser.add_argument(
        "--no-upstream-chain", action="store_true", help="skip upstream on the chain"
    )
    args = parser.parse_args()
    if os.path.exists(GPT2):
        measure("gpt2_l48_h512_s128", open(GPT2).read(), GPT2_OPTIONS, upstream=True)
    measure(
        f"shared-read chain n={args.chain}",
        elementwise_chain(args.chain, shared_read=True),
        "bufferize-function-boundaries",
        upstream=not args.no_upstream_chain,
    )


if __name__ == "__main__":
    main()
