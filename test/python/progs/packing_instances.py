"""Seeded packing instances whose optimum is known: it equals the lower bound.

A rectangle of ``capacity`` bytes by time is cut into buffers, so a packing
at the capacity exists (the cut itself) and, since some program point keeps
``capacity`` live bytes, nothing smaller does.

The cut is built over time: at each program point a run of adjacent buffers
(in bytes) ends and its byte range is cut anew into buffers that start there.
This makes non-guillotine cuts with lifetimes that overlap in every way, the
hard case for packers that place one buffer at a time (accelerator-style
allocation problems). Knobs:

``width``
    About how many buffers are live at once.
``spread``
    How far sizes range: ``"even"`` cuts uniformly, ``"wide"`` makes sizes
    log-uniform over three orders of magnitude, ``"few"`` puts cuts on a
    coarse grid so that many buffers have equal sizes.
``longevity``
    0 gives every live buffer the same chance to end at each point; more
    makes lifetimes heavy-tailed (a few buffers live through most of the
    program, as weights and long-lived activations do).
``slack``
    The fraction of buffers removed afterwards, and ``shrink`` the fraction of
    its bytes each buffer may lose, except those live at one chosen program
    point, which keeps the bound and the optimum at the capacity. Both leave
    holes, so the instance is no longer tight everywhere.

Sizes are multiples of ``alignment``, so the aligned lower bound is the
capacity as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Instance:
    """Buffers live over ``[starts[i], ends[i])`` with ``sizes[i]`` bytes."""

    starts: np.ndarray
    ends: np.ndarray
    sizes: np.ndarray
    optimum: int
    """The smallest pool: the capacity that was cut."""
    offsets: np.ndarray
    """The cut itself: a packing with pool ``optimum``."""


def _cut(rng: np.random.Generator, units: int, pieces: int, spread: str) -> list[int]:
    """Sizes (in alignment units) of ``pieces`` buffers that add up to ``units``."""
    pieces = max(1, min(pieces, units))
    if spread == "few":  # cuts on a grid of eighths of the range, where possible
        step = max(1, units // 8)
        grid = np.arange(step, units, step)
        if len(grid) >= pieces - 1:
            cuts = np.sort(rng.choice(grid, pieces - 1, replace=False))
            return np.diff(np.concatenate([[0], cuts, [units]])).tolist()
    if spread == "wide":
        weights = np.exp(rng.uniform(0, np.log(1000), pieces))
    else:
        weights = rng.uniform(0.2, 1.0, pieces)
    # Every piece gets one unit, the rest is shared by weight.
    extra = (units - pieces) * weights / weights.sum()
    sizes = 1 + np.floor(extra).astype(np.int64)
    short = units - int(sizes.sum())
    for k in np.argsort(-(extra - np.floor(extra)))[:short]:
        sizes[k] += 1
    return [int(s) for s in rng.permutation(sizes)]


def tiled(
    n: int,
    seed: int,
    *,
    width: int = 12,
    spread: str = "wide",
    slack: float = 0.0,
    shrink: float = 0.0,
    longevity: float = 0.0,
    units: int = 4096,
    alignment: int = 64,
) -> Instance:
    """About ``n`` buffers cut from ``units * alignment`` bytes (see the module
    docstring for the knobs); the same arguments give the same instance."""
    if spread not in ("even", "wide", "few"):
        raise ValueError(f"unknown spread {spread!r}")
    rng = np.random.default_rng(seed)
    total = int(n / (1 - slack)) if slack else n
    starts: list[int] = []
    ends: list[int] = []
    size: list[int] = []
    offset: list[int] = []
    rate: list[float] = []
    # The live buffers in byte order: (buffer, offset, units).
    live: list[tuple[int, int, int]] = []

    def open_(at: int, t: int, cut: list[int]) -> list[tuple[int, int, int]]:
        out = []
        for s in cut:
            out.append((len(starts), at, s))
            starts.append(t)
            ends.append(-1)
            size.append(s)
            offset.append(at)
            rate.append(float(np.exp(-longevity * rng.exponential())) if longevity else 1.0)
            at += s
        return out

    live = open_(0, 0, _cut(rng, units, width, spread))
    t = 0
    while len(starts) < total:
        t += 1
        # End a run of adjacent buffers; fewer when many are live.
        run = int(rng.integers(1, 4))
        if longevity:
            w = np.array([rate[b] for b, _, _ in live])
            first = int(rng.choice(len(live), p=w / w.sum()))
            first = min(first, max(0, len(live) - run))
        else:
            first = int(rng.integers(0, max(1, len(live) - run + 1)))
        run = min(run, len(live) - first)
        ended = live[first : first + run]
        for b, _, _ in ended:
            ends[b] = t
        lo = ended[0][1]
        span = sum(u for _, _, u in ended)
        # Cut the range anew, steering the live count towards `width`.
        want = run + int(np.clip(width - len(live), -run + 1, 3))
        if want == run and run == 1:
            want = int(rng.integers(1, 3))  # a lone buffer is replaced by 1 or 2
        pieces = int(np.clip(want + rng.integers(-1, 2), 1, span))
        live[first : first + run] = open_(lo, t, _cut(rng, span, pieces, spread))
    t += 1
    for b, _, _ in live:
        ends[b] = t

    s = np.array(starts, np.int64)
    e = np.array(ends, np.int64)
    z = np.array(size, np.int64)
    off = np.array(offset, np.int64)
    # One point keeps all its bytes live, so the bound stays at the capacity.
    point = int(rng.integers(0, t))
    tight = (s <= point) & (point < e)
    if shrink:
        cut = np.floor(z * rng.uniform(0, shrink, len(z))).astype(np.int64)
        z = np.where(tight, z, np.maximum(1, z - cut))
    if slack:
        keep = tight
        others = np.flatnonzero(~keep)
        drop = rng.choice(others, min(len(others), len(s) - n), replace=False)
        keep = np.ones(len(s), bool)
        keep[drop] = False
        s, e, z, off = s[keep], e[keep], z[keep], off[keep]
    # Buffers in random order: the packer must not see the cut's order.
    perm = rng.permutation(len(s))
    return Instance(
        starts=s[perm],
        ends=e[perm],
        sizes=z[perm] * alignment,
        optimum=units * alignment,
        offsets=off[perm] * alignment,
    )


FAMILIES: dict[str, dict] = {
    "cut-narrow": dict(width=8),
    "cut-wide": dict(width=24),
    "cut-long-lived": dict(width=16, longevity=4),
    "cut-few-sizes": dict(width=16, spread="few"),
    "cut-holes": dict(width=16, slack=0.25),
}
"""Named knob settings, each a family of instances (one per count and seed)."""


def family(name: str, n: int, seed: int, alignment: int = 64) -> Instance:
    """Instance ``seed`` of about ``n`` buffers of family ``name``."""
    return tiled(n, seed, alignment=alignment, **FAMILIES[name])
