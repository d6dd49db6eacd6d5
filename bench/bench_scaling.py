"""Growth of the lifetime analysis and of the packer: the timing targets that
used to sit in unit tests (a unit test reads no clock: it would fail on a
loaded machine for a reason that is not a bug).

    python bench/bench_scaling.py [--repeat 3]

Rows, each the minimum over ``--repeat`` runs in this process:

* the lifetime analysis of one function, a chain of 2,000 and of 20,000
  elementwise ops (``test/python/progs/scale.py``): seconds and their ratio
  (near-linear: at most 40x for 10x the ops, and the 20,000 in under 0.5 s);
* the packer on 3,000 buffers that all overlap (nothing can share): at most
  10 s;
* the packer on a 50,000-buffer chain with model-like sizes: at most 5 s, and
  within 1% of the lower bound.

Each row says whether its target holds; the exit code is 1 if one does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable

import numpy as np
from mlir import ir

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "python"))

from progs.scale import chain  # noqa: E402

from memplan.ir import extract_graph, function_ids, parse_source  # noqa: E402
from memplan.lifetimes import analyze_function  # noqa: E402
from memplan.reuse import packing  # noqa: E402


def best_of(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


def analysis_seconds(n: int, repeat: int) -> float:
    with ir.Context():
        graph = extract_graph(parse_source(chain(n)))
        func = function_ids(graph)[0]
        return best_of(repeat, lambda: analyze_function(graph, func))


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []

    small, large = analysis_seconds(2_000, args.repeat), analysis_seconds(20_000, args.repeat)
    ratio = large / max(small, 1e-3)
    rows.append(
        (
            "lifetime analysis, 2k -> 20k ops",
            f"{small:.4f} s -> {large:.4f} s ({ratio:.1f}x)",
            large < 0.5 and ratio < 40,
        )
    )

    n = 3000
    z = np.random.default_rng(7).integers(1, 10_000, n)
    s, e = np.zeros(n, np.int64), np.ones(n, np.int64)
    t = best_of(args.repeat, lambda: packing.pack(s, e, z, alignment=1))
    rows.append(("pack, 3,000 buffers all overlapping", f"{t:.2f} s", t < 10))

    n = 50_000
    rng = np.random.default_rng(11)
    s = np.arange(n)
    e = s + 1 + rng.geometric(0.5, n)
    z = rng.choice([4096, 65536, 1 << 20, 3 << 20], n)
    result = []
    t = best_of(args.repeat, lambda: result.append(packing.pack(s, e, z)))
    gap = result[-1].pool_size / result[-1].lower_bound
    rows.append(
        ("pack, 50,000-buffer chain", f"{t:.2f} s, pool / bound {gap:.4f}", t < 5 and gap <= 1.01)
    )

    print("| what | measured | target met |\n|---|---|:---:|")
    for what, measured, ok in rows:
        print(f"| {what} | {measured} | {'yes' if ok else '**NO**'} |")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
