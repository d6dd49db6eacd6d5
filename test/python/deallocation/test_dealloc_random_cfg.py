"""memplan-buffer-deallocation on random memref programs of unstructured
control flow (progs/memref_cfg.py: cf.switch, successors that name one
block several times, blocks no branch reaches): each is memplan's (upstream's
deallocation rejects cf.switch), memplan-verify-deallocation proves it, and
it runs bit for bit with a clean heap on every edge."""

from __future__ import annotations

import pytest
from mlir import ir
from progs.memref_cfg import SELECTORS, random_memref_cfg

import memplan
from memplan.deallocation import verify
from memplan.ir import parse_source
from memplan.numerics import compare, execute


@pytest.mark.parametrize("seed", range(24))
def test_random_cfg_freed_once_on_every_edge(seed: int) -> None:
    text = random_memref_cfg(seed)
    with ir.Context():
        module = parse_source(text, f"cfg{seed}.mlir")
        memplan.run_pipeline(module, "builtin.module(memplan-buffer-deallocation)")
        issues = [str(v) for v in verify(module)]
        planned = str(module)
    assert issues == [], "\n".join(issues)
    for selector in SELECTORS:
        result = compare(text, planned, "main", values={0: selector})
        assert result.ok, (selector, str(result))
        heap = execute(planned, "main", values={0: selector}).heap
        assert heap.invalid_frees == 0 and heap.live_at_exit == 0, (selector, heap)
