"""Benchmark the memory packer on random model-like buffer lifetimes.

Each op of a chain-like program produces one buffer that most often dies a few
ops later; some live across a skip connection and a few for most of the
program. Sizes come from per-stage shape palettes, so many are equal, as in a
real network. Prints, per n and algorithm, the time and pool / lower bound
(geometric mean over seeds).

    python bench/bench_packing.py [--sizes 1000 10000 100000] [--seeds 5]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from memplan import packing


def model_like(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    starts = np.arange(n, dtype=np.int64)
    life = 1 + rng.geometric(0.5, n)
    skip = rng.random(n) < 0.05
    life[skip] = rng.integers(5, 200, skip.sum())
    long = rng.random(n) < 0.005
    life[long] = rng.integers(n // 4 + 1, n + 1, long.sum())
    ends = np.minimum(starts + life, n)
    # A new stage every ~n/20 ops, each with its own few base shapes.
    stage = np.minimum(np.arange(n) * 20 // n, 19)
    base = np.exp(rng.uniform(np.log(16 << 10), np.log(4 << 20), (20, 4)))
    sizes = base[stage, rng.integers(0, 4, n)] * rng.choice([1, 1, 1, 2, 4, 0.25], n)
    tiny = rng.random(n) < 0.1
    sizes[tiny] = rng.integers(1, 4096, tiny.sum())
    return starts, ends, sizes.astype(np.int64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--alignment", type=int, default=64)
    args = ap.parse_args()

    algs = packing.ALGORITHMS
    print(f"{'n':>7} {'algorithm':<24} {'time ms':>9} {'pool/lb':>8} {'pool/lb_al':>10} {'wins':>5}")
    for n in args.sizes:
        times = {a: [] for a in algs}
        ratio = {a: [] for a in algs}
        ratio_al = {a: [] for a in algs}
        wins = {a: 0 for a in algs}
        for seed in range(args.seeds):
            s, e, z = model_like(n, seed)
            for a in algs:
                t0 = time.perf_counter()
                r = packing.pack(s, e, z, a, args.alignment)
                times[a].append(time.perf_counter() - t0)
                assert not packing.verify(s, e, z, r.offsets, args.alignment, r.pool_size, 1)
                ratio[a].append(r.pool_size / r.lower_bound)
                ratio_al[a].append(r.pool_size / r.lower_bound_aligned)
                if a == "best":
                    wins[r.algorithm] += 1
        for a in algs:
            gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
            print(
                f"{n:>7} {a:<24} {1e3 * np.median(times[a]):>9.1f} "
                f"{gm(ratio[a]):>8.4f} {gm(ratio_al[a]):>10.4f} "
                f"{wins[a] if a != 'best' else '':>5}"
            )
        s, e, z = model_like(n, 0)
        t0 = time.perf_counter()
        bad = packing.verify(s, e, z, packing.pack(s, e, z).offsets)
        print(f"{n:>7} {'(verify)':<24} {1e3 * (time.perf_counter() - t0):>9.1f}")
        assert not bad


if __name__ == "__main__":
    main()
