"""Seeded adversarial programs (progs/oddwidths.py): odd element widths, aliases,
guards and zero-trip loops around size computations, escapes and calls,
through memplan-buffer-reuse and memplan-transients. After each pass the
outputs match bit for bit (fresh memory poisoned), the pool checker and the
run-time overlap oracle agree, and the heap peak at run time (64-byte blocks)
is never above the input's."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from progs.oddwidths import generate

import memplan
from memplan import numerics
from memplan.ir import parse_source
from memplan.numerics import oracle
from memplan.numerics import transient_runs as runtime
from memplan.reuse.check import check_module

SEEDS = range(10)


@pytest.mark.parametrize("seed", SEEDS)
def test_reuse_on_adversarial_program(seed):
    text = generate(seed)
    with ir.Context():
        module = parse_source(text, "odd.mlir")
        memplan.run_pipeline(module, "builtin.module(memplan-buffer-reuse)")
        after = str(module)
        assert check_module(module).ok
    for run in range(2):  # %d and %trips are random in [0, 8): guards and zero trips
        result = numerics.compare(text, after, "main", seed=seed * 7 + run, poison=True)
        assert result.ok, str(result)
        assert oracle.run(after, "main", seed=seed * 7 + run).ok
    # Every guard taken and every loop run: the path the static peak is about
    # (a pool is allocated whether or not the guarded code runs).
    rng = np.random.default_rng(seed)
    inputs = [
        rng.uniform(-1, 1, 16).astype(np.float32),
        rng.integers(0, 2, 16).astype(np.bool_),
        np.int64(3),
        np.int64(2),
        np.zeros(16, np.float32),
        np.zeros(16, np.bool_),
    ]
    result = numerics.compare(text, after, "main", inputs=inputs, poison=True)
    assert result.ok, str(result)
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes
    assert result.heap_after.allocations <= result.heap_before.allocations


@pytest.mark.parametrize("seed", SEEDS)
def test_transients_on_adversarial_program(seed):
    with ir.Context():
        module = parse_source(generate(seed), "odd.mlir")
        memplan.run_pipeline(module, "builtin.module(memplan-add-transient-storage{func=main})")
        before = str(module)
        memplan.run_pipeline(module, "builtin.module(memplan-transients)")
        after = str(module)
    rng = np.random.default_rng(seed)
    for d, trips in ((0, 0), (3, 2)):  # %d = 0: the guarded divisions must not run
        inputs = [
            rng.uniform(-1, 1, 16).astype(np.float32),
            rng.integers(0, 2, 16).astype(np.bool_),
            np.int64(d),
            np.int64(trips),
            np.zeros(16, np.float32),
            np.zeros(16, np.bool_),
        ]
        needed = runtime.required_bytes(after, "main", inputs)
        storage = np.zeros(needed, np.uint8)
        result = numerics.compare(
            before, after, "main", inputs=inputs + [storage], scratch=[6], poison=True
        )
        assert result.ok, str(result)
        assert oracle.run(after, "main", inputs=inputs + [storage], scratch=[6]).ok
        assert result.heap_after.allocations <= result.heap_before.allocations
