"""In-place analysis benchmark: memplan-one-shot-bufferize vs upstream
one-shot-bufferize, both with ``test-analysis-only``, end to end (process
start, parse, analysis, annotation, print), on the two shapes that make
upstream One-Shot Analysis super-linear.

    python bench/bench_inplace.py [--sizes 1000,4000,20000] [--timeout 120] [--check]

``--check`` also diffs the two outputs (they must be identical).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time


def _tool(package: str, name: str) -> str:
    spec = importlib.util.find_spec(package)
    return os.path.join(list(spec.submodule_search_locations)[0], "bin", name)


MLIR_OPT = _tool("mlir", "mlir-opt")
MEMPLAN_OPT = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
OPTIONS = "bufferize-function-boundaries test-analysis-only"


def shared_read_chain(n: int, size: int = 64) -> str:
    """N linalg.generic in a chain, each also reading the function argument."""
    t = f"tensor<{size}xf32>"
    lines = ["#id = affine_map<(d0) -> (d0)>", "module {",
             f"func.func @chain(%arg0: {t}) -> {t} {{"]
    prev = "%arg0"
    for i in range(n):
        lines.append(f"  %e{i} = tensor.empty() : {t}")
        lines.append(
            f"  %v{i} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\"]}}"
            f" ins({prev}, %arg0 : {t}, {t}) outs(%e{i} : {t}) {{")
        lines.append("  ^bb0(%a: f32, %b: f32, %o: f32):")
        lines.append("    %s = arith.addf %a, %b : f32")
        lines.append("    linalg.yield %s : f32")
        lines.append(f"  }} -> {t}")
        prev = f"%v{i}"
    lines += [f"  return {prev} : {t}", "}", "}"]
    return "\n".join(lines) + "\n"


def insert_slice_chain(n: int) -> str:
    """N tensor.insert_slice of one small tensor into one big tensor, chained."""
    lines = ["module {", f"func.func @ins(%t: tensor<{n}x4xf32>, %s: tensor<1x4xf32>) -> tensor<{n}x4xf32> {{"]
    prev = "%t"
    for i in range(n):
        lines.append(f"  %r{i} = tensor.insert_slice %s into {prev}[{i}, 0] [1, 4] [1, 1]"
                     f" : tensor<1x4xf32> into tensor<{n}x4xf32>")
        prev = f"%r{i}"
    lines += [f"  return {prev} : tensor<{n}x4xf32>", "}", "}"]
    return "\n".join(lines) + "\n"


CASES = {"shared-read chain": shared_read_chain, "insert_slice chain": insert_slice_chain}


def run(argv: list[str], timeout: float) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    try:
        out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return float("inf"), b""
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,4000,20000")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--timeout", type=float, default=120.0, help="per-run limit for upstream (s)")
    ap.add_argument("--check", action="store_true", help="require identical outputs")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print("| case | N | memplan (s) | upstream (s) | upstream / memplan | identical |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.cases.split(","):
            for n in sizes:
                path = os.path.join(tmp, "in.mlir")
                with open(path, "w") as f:
                    f.write(CASES[name](n))
                ours, out1 = run([MEMPLAN_OPT, path, f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{OPTIONS}}})"], 3600)
                theirs, out2 = run([MLIR_OPT, path, f"--one-shot-bufferize={OPTIONS}"], args.timeout)
                same = "-" if theirs == float("inf") else ("yes" if out1 == out2 else "NO")
                up = f"> {args.timeout:.0f}" if theirs == float("inf") else f"{theirs:.2f}"
                ratio = f"> {args.timeout / ours:.1f}x" if theirs == float("inf") else f"{theirs / ours:.1f}x"
                print(f"| {name} | {n} | {ours:.2f} | {up} | {ratio} | {same} |", flush=True)
                if args.check and same == "NO":
                    sys.exit(f"outputs differ: {name} N={n}")


if __name__ == "__main__":
    main()


def run_cases() -> list[tuple]:
    """(name, make_input, memplan argv, upstream argv) for bench/run.py."""
    pipeline = f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{OPTIONS}}})"
    out = []
    for name, n in (("shared-read chain", 4000), ("insert_slice chain", 1000)):
        out.append((f"in-place analysis: {name} {n // 1000}k, test-analysis-only",
                    (lambda f=CASES[name], n=n: f(n)),
                    [MEMPLAN_OPT, "{input}", pipeline],
                    [MLIR_OPT, "{input}", f"--one-shot-bufferize={OPTIONS}"]))
    return out
