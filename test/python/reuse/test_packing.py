"""Tests of the memory packer (memplan.reuse.packing).

Correctness is checked twice over: by the C++ `verify` and by a quadratic
Python checker that `verify` itself is tested against.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from memplan.reuse import packing

HEURISTICS = [a for a in packing.ALGORITHMS if a not in ("best", "exact")]


# --- reference implementations ------------------------------------------------


def conflicts(s, e, z, i, j) -> bool:
    """Buffers i and j are live at the same time (and both take bytes)."""
    active = z[i] > 0 and z[j] > 0 and s[i] < e[i] and s[j] < e[j]
    return active and s[i] < e[j] and s[j] < e[i]


def slow_violations(s, e, z, off, alignment) -> set:
    found = set()
    n = len(s)
    for i in range(n):
        if z[i] > 0 and (off[i] < 0 or off[i] % alignment):
            found.add(("negative" if off[i] < 0 else "misaligned", i, -1))
        for j in range(i + 1, n):
            if conflicts(s, e, z, i, j) and off[i] < off[j] + z[j] and off[j] < off[i] + z[i]:
                found.add(("overlap", i, j))
    return found


def slow_lower_bound(s, e, z, alignment) -> tuple[int, int]:
    raw = aligned = max([int(x) for x in z] + [0])
    for t in set(int(x) for x in s):
        live = [int(z[i]) for i in range(len(s)) if z[i] > 0 and s[i] <= t < e[i]]
        if live:
            up = [-(-x // alignment) * alignment for x in live]
            raw = max(raw, sum(live))
            aligned = max(aligned, sum(up) - max(u - x for u, x in zip(up, live)))
    return raw, aligned


def first_fit(s, e, z, order, alignment) -> int:
    """Pool of placing `order` one by one at the lowest free aligned offset."""
    off = {}
    for i in order:
        busy = sorted((off[j], off[j] + z[j]) for j in off if conflicts(s, e, z, i, j))
        at = 0
        for lo, hi in busy:
            if lo - at >= z[i]:
                break
            at = max(at, -(-hi // alignment) * alignment)
        off[i] = at
    return max([off[i] + z[i] for i in off] + [0])


def optimal_pool(s, e, z, alignment) -> int:
    """Exact optimum: placing buffers in the order of their offsets in an
    optimal packing, each at the lowest fitting offset, never lands one higher
    than in that packing; so some order's first fit is optimal."""
    ids = [i for i in range(len(s)) if z[i] > 0 and s[i] < e[i]]
    return min(first_fit(s, e, z, p, alignment) for p in itertools.permutations(ids))


# --- inputs ---------------------------------------------------------------------


def random_buffers(rng: np.random.Generator, n: int, kind: str):
    if kind == "chain":  # model-like: mostly short, some skips, a few long
        s = np.sort(rng.integers(0, n, n))
        life = 1 + rng.geometric(0.5, n)
        skip = rng.random(n) < 0.1
        life[skip] = rng.integers(3, max(4, n // 4), skip.sum())
        long = rng.random(n) < 0.03
        life[long] = rng.integers(n // 2, n + 1, long.sum())
        e = s + life
    elif kind == "random":  # lifetimes of any length, anywhere
        horizon = int(rng.integers(2, 4 * n + 3))
        s = rng.integers(0, horizon, n)
        e = s + np.exp(rng.uniform(0, math.log(horizon), n)).astype(np.int64)
    else:  # "wide": everything long-lived, heavy overlap
        s = rng.integers(0, 10, n)
        e = s + rng.integers(n, 2 * n + 1, n)
    z = np.exp(rng.uniform(0, math.log(1e7), n)).astype(np.int64)
    z[rng.random(n) < 0.3] = rng.choice(z, 1)  # many equal sizes, as in models
    z[rng.random(n) < 0.05] = 0
    empty = rng.random(n) < 0.03
    e[empty] = s[empty]
    shift = int(rng.integers(-(1 << 40), 1 << 40))  # times are arbitrary int64
    return s + shift, e + shift, z


CASES = [(kind, seed) for kind in ("chain", "random", "wide") for seed in range(40)]

BUDGET = 2_000_000
"""Exact-search steps for "best" on random inputs (the default takes seconds)."""


# --- hand cases -----------------------------------------------------------------


@pytest.mark.parametrize("algorithm", packing.ALGORITHMS)
def test_rfc_example_sequential_buffers_share(algorithm):
    r = packing.pack([0, 1], [1, 2], [4096, 4096], algorithm)
    assert list(r.offsets) == [0, 0]
    assert r.pool_size == 4096 == r.lower_bound


@pytest.mark.parametrize("algorithm", packing.ALGORITHMS)
def test_overlapping_buffers_do_not_share(algorithm):
    r = packing.pack([0, 1], [2, 3], [100, 100], algorithm, alignment=1)
    assert sorted(r.offsets) == [0, 100]
    assert r.pool_size == 200


def test_best_reports_every_algorithm_and_the_winner():
    r = packing.pack([0, 0, 1], [1, 2, 2], [100, 50, 60])
    assert r.pool_size == r.lower_bound_aligned  # the heuristics reach the bound
    assert set(r.per_algorithm) == set(HEURISTICS)  # so the exact search does not run
    assert r.algorithm in HEURISTICS
    assert r.pool_size == r.per_algorithm[r.algorithm] == min(r.per_algorithm.values())
    assert r.optimal and r.bound == r.pool_size and r.search_work == r.search_budget == 0
    single = packing.pack([0, 0, 1], [1, 2, 2], [100, 50, 60], "linear-scan")
    assert single.algorithm == "linear-scan" and list(single.per_algorithm) == ["linear-scan"]


def test_linear_scan_reuses_whole_slots():
    # 100 dies at 1 and 60 takes its slot; no slot is free for 80: a new one.
    r = packing.pack([0, 0, 1, 1], [1, 3, 3, 3], [100, 50, 60, 80], "linear-scan", 1)
    assert r.offsets[2] == r.offsets[0]
    assert r.pool_size == 100 + 50 + 80
    assert not packing.verify([0, 0, 1, 1], [1, 3, 3, 3], [100, 50, 60, 80], r.offsets, 1)


def test_greedy_by_size_fills_holes():
    # 400 bytes are live at every point; filling holes reaches that.
    s, e, z = [0, 0, 2, 1], [4, 1, 4, 2], [300, 100, 100, 100]
    r = packing.pack(s, e, z, "greedy-by-size", alignment=1)
    assert r.pool_size == 400 == r.lower_bound


def test_alignment():
    s, e, z = [0, 0, 0], [1, 1, 1], [10, 70, 1]
    for alignment in (1, 8, 64, 4096):
        r = packing.pack(s, e, z, alignment=alignment)
        assert all(o % alignment == 0 for o in r.offsets)
        assert not packing.verify(s, e, z, r.offsets, alignment, r.pool_size)
        assert r.pool_size >= r.lower_bound_aligned >= r.lower_bound == 81
    r = packing.pack(s, e, z, alignment=64)
    assert r.lower_bound_aligned == 64 + 128 + 1  # only the top buffer is unpadded
    assert r.pool_size == r.lower_bound_aligned


def test_zero_sizes_and_empty_lifetimes():
    s, e, z = [0, 0, 0, 5], [4, 4, 4, 5], [0, 100, 0, 1000]
    r = packing.pack(s, e, z, alignment=1)
    assert r.offsets[0] == r.offsets[2] == r.offsets[3] == 0
    assert r.pool_size == 1000  # the empty-lifetime buffer must still fit
    assert r.lower_bound == 1000
    assert not packing.verify(s, e, z, r.offsets, 1, r.pool_size)
    empty = packing.pack([], [], [])
    assert empty.pool_size == 0 and empty.offsets.shape == (0,)


def test_half_open_intervals_touching_do_not_conflict():
    r = packing.pack([0, 5, 10], [5, 10, 15], [64, 64, 64])
    assert r.pool_size == 64
    assert packing.verify([0, 4], [5, 10], [64, 64], [0, 0]) == [packing.Violation("overlap", 0, 1)]


def test_accepts_lists_and_numpy_of_any_int_type():
    a = packing.pack([0, 1], [2, 3], [8, 8])
    b = packing.pack(np.array([0, 1], np.int32), np.array([2, 3], np.uint8), np.array([8, 8]))
    assert list(a.offsets) == list(b.offsets)
    assert a.offsets.dtype == np.int64 and not a.offsets.flags.writeable


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(starts=[0, 1], ends=[1], sizes=[1, 1]), "same length"),
        (dict(starts=[2], ends=[1], sizes=[1]), "start 2 > end 1"),
        (dict(starts=[0], ends=[1], sizes=[-1]), "negative size"),
        (dict(starts=[0], ends=[1], sizes=[1], alignment=48), "power of two"),
        (dict(starts=[0], ends=[1], sizes=[1], alignment=0), "power of two"),
        (dict(starts=[0], ends=[1], sizes=[1], algorithm="first-fit"), "unknown packing"),
        (dict(starts=[0.5], ends=[1], sizes=[1]), "integers"),
        (dict(starts=[[0]], ends=[[1]], sizes=[[1]]), "one-dimensional"),
        (dict(starts=[0, 0], ends=[1, 1], sizes=[1 << 61, 1 << 61]), r"2\^62"),
        (dict(starts=[0], ends=[1], sizes=[1], capacity=-1), "capacity must be >= 0"),
        (dict(starts=[0], ends=[1], sizes=[1], budget=-1), "budget must be >= 0"),
    ],
)
def test_invalid_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        packing.pack(**kwargs)


def test_capacity_and_budget_past_int64_are_the_largest():
    # An MLIR uint64 option may pass 2**64 - 1; the core's int64 largest
    # means the same (no pool reaches 2**62), so the plan is the one of 2**63 - 1.
    s, e, z = [0, 1, 2], [2, 3, 4], [64, 128, 64]
    big = packing.pack(s, e, z, capacity=2**64 - 1, budget=2**64 - 1)
    same = packing.pack(s, e, z, capacity=2**63 - 1, budget=2**63 - 1)
    assert list(big.offsets) == list(same.offsets) and big.pool_size == same.pool_size == 192


def test_invalid_input_verify_and_lower_bound():
    with pytest.raises(ValueError, match="one entry per buffer"):
        packing.verify([0], [1], [1], [0, 0])
    with pytest.raises(ValueError, match="start 3 > end 1"):
        packing.lower_bound([3], [1], [1])
    with pytest.raises(ValueError, match="pool_size"):
        packing.verify([0], [1], [1], [0], pool_size=-5)


# --- random inputs ---------------------------------------------------------------


@pytest.mark.parametrize("kind, seed", CASES)
def test_random_packings_are_valid_and_bounded(kind, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    alignment = int(rng.choice([1, 16, 64, 256]))
    s, e, z = random_buffers(rng, n, kind)
    lb = packing.lower_bound(s, e, z, alignment)
    best = packing.pack(s, e, z, "best", alignment, budget=BUDGET)
    assert (best.lower_bound, best.lower_bound_aligned) == lb
    for alg in HEURISTICS:
        r = packing.pack(s, e, z, alg, alignment)
        assert packing.verify(s, e, z, r.offsets, alignment, r.pool_size) == [], alg
        assert r.pool_size == max([0, *(np.asarray(r.offsets) + z)]), alg
        assert r.pool_size >= lb[1] >= lb[0], alg
        assert r.pool_size == best.per_algorithm[alg], alg  # deterministic
        assert best.pool_size <= r.pool_size, alg
    assert packing.verify(s, e, z, best.offsets, alignment, best.pool_size) == []
    assert best.bound <= best.pool_size and best.optimal == (best.pool_size == best.bound)
    again = packing.pack(s, e, z, "best", alignment, budget=BUDGET)
    assert np.array_equal(again.offsets, best.offsets) and again.algorithm == best.algorithm


@pytest.mark.parametrize("kind, seed", CASES[::4])
def test_squeaky_wheel_never_loses_to_its_start(kind, seed):
    rng = np.random.default_rng(500 + seed)
    s, e, z = random_buffers(rng, int(rng.integers(1, 400)), kind)
    greedy = packing.pack(s, e, z, "greedy-by-size").pool_size
    for alg in ("squeaky-wheel", "squeaky-wheel-to-front"):
        r = packing.pack(s, e, z, alg)
        assert r.pool_size <= greedy, alg
        assert packing.verify(s, e, z, r.offsets, 64, r.pool_size) == [], alg


@pytest.mark.parametrize("seed", range(15))
def test_lower_bound_matches_reference(seed):
    rng = np.random.default_rng(1000 + seed)
    s, e, z = random_buffers(rng, int(rng.integers(1, 60)), ("chain", "random", "wide")[seed % 3])
    alignment = int(rng.choice([1, 64, 4096]))
    assert packing.lower_bound(s, e, z, alignment) == slow_lower_bound(s, e, z, alignment)


@pytest.mark.parametrize("seed", range(30))
def test_verify_matches_reference_on_bad_packings(seed):
    rng = np.random.default_rng(2000 + seed)
    n = int(rng.integers(1, 80))
    s, e, z = random_buffers(rng, n, ("chain", "random", "wide")[seed % 3])
    z = z % 1000
    off = rng.integers(-50, 3000, n)
    off[rng.random(n) < 0.5] &= ~63  # some aligned, some not
    got = packing.verify(s, e, z, off, 64)
    assert len(got) == len(set(got))
    assert set(got) == slow_violations(s, e, z, off, 64)
    if got:
        assert len(packing.verify(s, e, z, off, 64, limit=1)) == 1


def test_verify_out_of_pool():
    got = packing.verify([0, 0], [1, 1], [64, 64], [0, 64], 64, pool_size=100)
    assert got == [packing.Violation("out-of-pool", 1, -1)]


def test_best_is_optimal_on_tiny_instances():
    for seed in range(40):
        rng = np.random.default_rng(3000 + seed)
        n = 7 if seed % 8 == 0 else 6
        s = rng.integers(0, 6, n)
        e = s + rng.integers(1, 5, n)
        z = rng.choice([64, 128, 192, 320, 448, 1000], n)
        opt = optimal_pool(s, e, z, 64)
        r = packing.pack(s, e, z, "best", 64)
        assert r.pool_size == opt and r.optimal and r.bound == opt, seed


# --- scale -------------------------------------------------------------------------


def test_worst_case_all_overlapping():
    n = 3000
    rng = np.random.default_rng(7)
    z = rng.integers(1, 10_000, n)
    r = packing.pack(
        np.zeros(n, np.int64), np.ones(n, np.int64), z, alignment=1
    )  # time: bench/bench_scaling.py
    assert r.pool_size == z.sum()  # nothing can share
    assert packing.verify(np.zeros(n, int), np.ones(n, int), z, r.offsets, 1, r.pool_size) == []


def test_threaded_best_is_deterministic():
    # Large enough for pack to use threads.
    rng = np.random.default_rng(5)
    n = 12_000
    s = np.arange(n)
    e = s + rng.geometric(0.3, n)
    e[rng.random(n) < 0.01] += n // 3
    z = rng.integers(1, 1 << 20, n)
    a = packing.pack(s, e, z)
    b = packing.pack(s, e, z)
    assert np.array_equal(a.offsets, b.offsets) and a.per_algorithm == b.per_algorithm
    assert packing.verify(s, e, z, a.offsets, 64, a.pool_size) == []


def test_large_chain_is_tight():
    n = 50_000
    rng = np.random.default_rng(11)
    s = np.arange(n)
    e = s + 1 + rng.geometric(0.5, n)
    z = rng.choice([4096, 65536, 1 << 20, 3 << 20], n)
    r = packing.pack(s, e, z)  # its time: bench/bench_scaling.py
    assert r.pool_size <= 1.01 * r.lower_bound
    assert packing.verify(s, e, z, r.offsets, 64, r.pool_size) == []
