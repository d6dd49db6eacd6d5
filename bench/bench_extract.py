"""IR bridge speed: graph extraction time against ``ir.Module.parse`` time.

Target (foundation issue): extracting the graph of an 80k-op module takes at
most 25% of parsing the same text. Both are measured here, in one process.
"""

from __future__ import annotations

import argparse
import time

from generators import elementwise_chain
from mlir import ir

from memplan.ir import extract_graph


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(n_generics: int, repeat: int = 3) -> dict:
    text = elementwise_chain(n_generics)
    with ir.Context():
        parse_s = best_of(lambda: ir.Module.parse(text), repeat)
        module = ir.Module.parse(text)
        graph = extract_graph(module)
        extract_s = best_of(lambda: extract_graph(module), repeat)
    return {
        "ops": graph.num_ops,
        "values": graph.num_values,
        "parse_s": parse_s,
        "extract_s": extract_s,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, default=80_000, help="approximate op count")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    r = measure(args.ops // 4, args.repeat)
    ratio = r["extract_s"] / r["parse_s"]
    print("| ops | values | parse (s) | extract (s) | extract / parse | target |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {r['ops']} | {r['values']} | {r['parse_s']:.3f} | {r['extract_s']:.4f} "
        f"| {ratio:.1%} | <= 25% {'ok' if ratio <= 0.25 else 'MISSED'} |"
    )


if __name__ == "__main__":
    main()
