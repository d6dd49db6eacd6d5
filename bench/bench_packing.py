"""Benchmark the memory packer: model-like lifetimes, and hard instances.

Model-like: each op of a chain-like program produces one buffer. Most die one
to three ops later; 5% are skip connections living up to 200 ops; a few (16)
live for a quarter of the program or more. Sizes come from per-stage shape
palettes, so many are equal, as in a real network. The "training" family
instead makes 0.5% of the buffers long-lived (activations kept for a backward
pass), which makes every buffer conflict with hundreds of others: the
packer's slow case. Prints, per family, n and algorithm: the median wall and
CPU time (CPU adds up the threads of "best"; on a busy machine it is the
steadier figure), the geometric mean over seeds of pool / lower bound (and of
pool / aligned lower bound), and how often each algorithm won "best".

Hard: instances cut from a capacity x time rectangle, so the optimum is
known and equals the lower bound (``test/python/progs/packing_instances.py``,
its families). Prints, per family, n and algorithm: how many instances end
at the optimum, the median and worst CPU time (the search's budget is in
steps, so only times depend on the machine and its load), and the worst pool
/ optimum, for
greedy-by-size, best-fit, "best" without the exact search (budget 0: the
heuristics alone) and "best" with its default budget. Every packing is
checked with memplan.reuse.packing.verify.

MiniMalloc's challenging instances (``--minimalloc DIR``: the A-K ``.csv``
files of its repository's ``benchmarks/challenging``, not shipped here; a
file ``NAME.CAPACITY.csv`` holds ``id,lower,upper,size`` rows, a buffer live
over ``[lower, upper)``): "best" given the capacity, as MiniMalloc is, with
the default search budget (or ``--minimalloc-budget``). Prints per instance
whether it fits, the pool / capacity, the CPU time and the search steps.

    python bench/bench_packing.py [--sizes 1000 10000 100000] [--seeds 5]
        [--hard-sizes 100 300 500 1000] [--hard-seeds 5] [--skip model hard]
        [--minimalloc DIR [--minimalloc-budget STEPS]]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

from memplan.reuse import packing

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "python"))
from progs.packing_instances import FAMILIES as HARD_FAMILIES  # noqa: E402
from progs.packing_instances import family


def model_like(n: int, seed: int, long_lived: int | float = 16):
    """(starts, ends, sizes); `long_lived` is a count, or a fraction if < 1."""
    rng = np.random.default_rng(seed)
    starts = np.arange(n, dtype=np.int64)
    life = 1 + rng.geometric(0.5, n)
    skip = rng.random(n) < 0.05
    life[skip] = rng.integers(5, 200, skip.sum())
    count = min(n, round(long_lived * n) if long_lived < 1 else int(long_lived))
    long = rng.choice(n, count, replace=False)
    life[long] = rng.integers(n // 4 + 1, n + 1, count)
    ends = np.minimum(starts + life, n)
    # A new stage every ~n/20 ops, each with its own few base shapes.
    stage = np.minimum(np.arange(n) * 20 // n, 19)
    base = np.exp(rng.uniform(np.log(16 << 10), np.log(4 << 20), (20, 4)))
    sizes = base[stage, rng.integers(0, 4, n)] * rng.choice([1, 1, 1, 2, 4, 0.25], n)
    tiny = rng.random(n) < 0.1
    sizes[tiny] = rng.integers(1, 4096, tiny.sum())
    return starts, ends, sizes.astype(np.int64)


FAMILIES = {"model": 16, "training": 0.005}


def geomean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


HARD_ALGORITHMS = {
    "greedy-by-size": dict(algorithm="greedy-by-size"),
    "best-fit": dict(algorithm="best-fit"),
    "best, heuristics only": dict(algorithm="best", budget=0),
    "best": dict(algorithm="best"),
}


def bench_model(args) -> None:
    algs = [a for a in packing.ALGORITHMS if a != "exact"]  # "best" runs it
    print(
        f"{'family':<9} {'n':>7} {'algorithm':<24} {'ms':>8} {'cpu ms':>8} "
        f"{'pool/lb':>8} {'pool/lb_al':>10} {'wins':>5}"
    )
    for family_ in args.families:
        for n in args.sizes:
            times = {a: [] for a in algs}
            cpu = {a: [] for a in algs}
            ratio = {a: [] for a in algs}
            ratio_al = {a: [] for a in algs}
            wins = {a: 0 for a in packing.ALGORITHMS}
            verify_ms = []
            for seed in range(args.seeds):
                s, e, z = model_like(n, seed, FAMILIES[family_])
                for a in algs:
                    t0, c0 = time.perf_counter(), time.process_time()
                    r = packing.pack(s, e, z, a, args.alignment)
                    times[a].append(time.perf_counter() - t0)
                    cpu[a].append(time.process_time() - c0)
                    ratio[a].append(r.pool_size / r.lower_bound)
                    ratio_al[a].append(r.pool_size / r.lower_bound_aligned)
                    if a == "best":
                        wins[r.algorithm] += 1
                t0 = time.perf_counter()
                bad = packing.verify(s, e, z, r.offsets, args.alignment, r.pool_size)
                verify_ms.append(time.perf_counter() - t0)
                assert not bad, bad[:5]
            for a in algs:
                print(
                    f"{family_:<9} {n:>7} {a:<24} {1e3 * np.median(times[a]):>8.1f} "
                    f"{1e3 * np.median(cpu[a]):>8.1f} "
                    f"{geomean(ratio[a]):>8.4f} {geomean(ratio_al[a]):>10.4f} "
                    f"{wins[a] if a != 'best' else '':>5}"
                )
            print(f"{family_:<9} {n:>7} {'(verify best)':<24} {1e3 * np.median(verify_ms):>8.1f}")


def bench_hard(args) -> None:
    print(
        "| family | n | algorithm | at optimum | median CPU s | worst CPU s | worst pool / optimum |"
    )
    print("|---|---:|---|---:|---:|---:|---:|")
    total = {a: [0, 0] for a in HARD_ALGORITHMS}
    for name in args.hard_families:
        for n in args.hard_sizes:
            rows = {a: [] for a in HARD_ALGORITHMS}
            for seed in range(args.hard_seeds):
                ins = family(name, n, seed, args.alignment)
                for a, kw in HARD_ALGORITHMS.items():
                    t0 = time.process_time()
                    r = packing.pack(
                        ins.starts, ins.ends, ins.sizes, alignment=args.alignment, **kw
                    )
                    dt = time.process_time() - t0
                    bad = packing.verify(
                        ins.starts, ins.ends, ins.sizes, r.offsets, args.alignment, r.pool_size
                    )
                    assert not bad, (name, n, seed, a, bad[:5])
                    assert r.pool_size >= ins.optimum, (name, n, seed, a)
                    rows[a].append((r.pool_size == ins.optimum, dt, r.pool_size / ins.optimum))
            for a, got in rows.items():
                hits = sum(g[0] for g in got)
                if n <= 500:
                    total[a][0] += hits
                    total[a][1] += len(got)
                times = [g[1] for g in got]
                print(
                    f"| {name} | {n} | {a} | {hits}/{len(got)} | {np.median(times):.2f} | "
                    f"{max(times):.2f} | {max(g[2] for g in got):.3f} |",
                    flush=True,
                )
    for a, (hits, count) in total.items():
        if count:
            print(f"| all, n <= 500 | | {a} | {hits}/{count} ({100 * hits / count:.0f}%) | | | |")


def read_minimalloc(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(starts, ends, sizes, capacity) of a MiniMalloc instance file."""
    rows = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    capacity = int(os.path.basename(path).split(".")[1])
    return rows[:, 1], rows[:, 2], rows[:, 3], capacity


def bench_minimalloc(args) -> None:
    files = sorted(f for f in os.listdir(args.minimalloc) if f.endswith(".csv"))
    budget = "default" if args.minimalloc_budget is None else f"{args.minimalloc_budget}"
    print(
        f"| instance | n | capacity | fits | pool / capacity | CPU s | search steps (budget {budget}) |"
    )
    print("|---|---:|---:|:---:|---:|---:|---:|")
    for name in files:
        starts, ends, sizes, capacity = read_minimalloc(os.path.join(args.minimalloc, name))
        t0 = time.process_time()
        try:
            r = packing.pack(
                starts,
                ends,
                sizes,
                alignment=args.alignment,
                capacity=capacity,
                budget=args.minimalloc_budget,
            )
        except packing.CapacityError as err:
            r = err.result
        dt = time.process_time() - t0
        assert r is not None, name
        assert not packing.verify(starts, ends, sizes, r.offsets, args.alignment, r.pool_size), name
        fits = r.pool_size <= capacity
        print(
            f"| {name.split('.')[0]} | {len(sizes)} | {capacity} | {'yes' if fits else 'no'} | "
            f"{r.pool_size / capacity:.4f} | {dt:.1f} | {r.search_work} of {r.search_budget} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--alignment", type=int, default=64)
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    ap.add_argument("--hard-sizes", type=int, nargs="+", default=[100, 300, 500, 1000])
    ap.add_argument("--hard-seeds", type=int, default=5)
    ap.add_argument(
        "--hard-families", nargs="+", default=list(HARD_FAMILIES), choices=list(HARD_FAMILIES)
    )
    ap.add_argument("--skip", nargs="*", default=[], choices=["model", "hard"])
    ap.add_argument("--minimalloc", metavar="DIR", help="MiniMalloc's A-K .csv files (see above)")
    ap.add_argument("--minimalloc-budget", type=int, default=None, metavar="STEPS")
    args = ap.parse_args()
    if args.minimalloc:
        bench_minimalloc(args)
        return
    if "model" not in args.skip:
        bench_model(args)
    if "hard" not in args.skip:
        bench_hard(args)


if __name__ == "__main__":
    main()
