"""The lowest peak (issue #19): memplan's tensor passes, its own
deallocation and the memory pipeline, checked by running them.

Every rewrite runs before and after through the ExecutionEngine
(``memplan.numerics.compare``: bit for bit, fresh memory poisoned), the
run-time overlap oracle checks every pool, and the heap hooks check that
every buffer is freed once (the live bytes at exit are the returned
buffers') and that memplan's run-time peak is not above upstream's pipeline.
"""

from __future__ import annotations

import pytest
from mlir import ir
from progs.layers import shared_destination_layers
from progs.litcases import lit_cases, rewrite
from progs.randprog import random_program

import memplan
from memplan import numerics
from memplan.ir import parse_source
from memplan.lifetimes.analysis import analyze_module
from memplan.lifetimes.peaks import dataflow_bound, input_peak
from memplan.numerics import oracle
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

MEMORY = "builtin.module(memplan-memory-pipeline)"
UPSTREAM = f"builtin.module({UPSTREAM_BUFFERIZATION})"


def static_peak_and_bound(memref_text: str) -> tuple[int, int]:
    with ir.Context():
        functions = analyze_module(parse_source(memref_text))
        return sum(input_peak(lt) for lt in functions), sum(dataflow_bound(lt) for lt in functions)


def check_against_upstream(src: str, entry: str, **kwargs) -> tuple[numerics.CompareResult, str]:
    """memplan's pipeline against upstream's on ``src``: same bits, pools
    without overlap, every buffer freed once, run-time peak not above."""
    ours = rewrite(src, MEMORY)
    theirs = rewrite(src, UPSTREAM)
    result = numerics.compare(theirs, ours, entry, **kwargs)
    assert result.ok, result
    before, after = result.heap_before, result.heap_after
    assert after.invalid_frees == 0
    # The returned buffers, nothing leaked; a value returned twice that the
    # function does not own is copied once (upstream: twice).
    assert after.clean, after
    assert after.live_at_exit <= before.live_at_exit
    assert after.peak_blocks_bytes <= before.peak_blocks_bytes
    assert oracle.run(
        ours, entry, **{k: v for k, v in kwargs.items() if k in ("inputs", "seed")}
    ).ok
    return result, ours


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in lit_cases(
            "peak/split-destinations.mlir",
            "peak/reuse-dying-inputs.mlir",
            "peak/reorder-for-memory.mlir",
        )
        if c.runnable
    ],
    ids=str,
)
def test_tensor_passes_keep_the_numerics(case):
    for fn in case.functions:
        for pipeline in (
            "memplan-split-destinations",
            "memplan-reuse-dying-inputs",
            "memplan-reorder-for-memory",
        ):
            after = rewrite(case.text, f"builtin.module({pipeline})")
            assert numerics.compare(case.text, after, fn).ok, (pipeline, fn)
        check_against_upstream(case.text, fn)


@pytest.mark.parametrize("layers", [3, 5])
def test_shared_destinations_reach_the_dataflow_bound(layers):
    # A tensor.empty CSE'd across layers: upstream holds a shared buffer
    # between its layers' uses; splitting the destinations alone gets to the
    # dataflow bound of upstream's own output, and the whole pipeline stays
    # at or below it, with fewer heap bytes at run time than upstream.
    src = shared_destination_layers(layers)
    upstream = rewrite(src, UPSTREAM)
    up_peak, bound = static_peak_and_bound(upstream)
    assert bound < up_peak
    split_only = rewrite(
        src,
        "builtin.module(memplan-memory-pipeline{fold-transposes=false "
        "reuse-dying-inputs=false reorder=false})",
    )
    assert static_peak_and_bound(split_only)[0] == bound
    result, ours = check_against_upstream(src, "main")
    assert static_peak_and_bound(ours)[0] <= bound
    assert result.heap_after.peak_blocks_bytes < result.heap_before.peak_blocks_bytes


def bufferizable_random_programs(first_seed: int, count: int) -> list[str]:
    """``count`` random tensor programs that upstream's pipeline bufferizes
    (the generator also makes loops whose yields One-Shot rejects)."""
    out = []
    seed = first_seed
    while len(out) < count:
        src = random_program(seed, n_ops=14)
        seed += 1
        try:
            rewrite(src, UPSTREAM)
        except ir.MLIRError:
            continue
        out.append(src)
    return out


def reads_undefined_contents(result: numerics.CompareResult) -> bool:
    """The reference (upstream's output) itself reads a tensor.empty's
    undefined contents: the generator makes such programs too, and their
    outputs mean nothing."""
    return any(u.module == "before" for u in result.uninitialized)


def test_random_programs_through_the_memory_pipeline():
    checked = 0
    for src in bufferizable_random_programs(3000, 24):
        ours = rewrite(src, MEMORY)
        theirs = rewrite(src, UPSTREAM)
        result = numerics.compare(theirs, ours, "main")
        if reads_undefined_contents(result):
            continue
        check_against_upstream(src, "main")
        checked += 1
    assert checked >= 12


DEALLOCATION = (
    "builtin.module(memplan-one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}, "
    "memplan-buffer-deallocation)"
)


def test_memplan_deallocation_frees_everything_once():
    # Without pools: memplan's deallocation alone against upstream's
    # ownership-based deallocation, on random programs (calls, loops,
    # branches): memplan's ownership analysis reasons about nearly every
    # function (all but one here), upstream's pass runs only for the ones it
    # leaves, and no attribute marks what memplan frees.
    left = freed = checked = 0
    for src in bufferizable_random_programs(4000, 16):
        with ir.Context():
            module = parse_source(src, "prog.mlir")
            passes = memplan.run_pipeline(module, DEALLOCATION)
            ours = str(module)
        stats = {name: value for p in passes for name, (value, _) in p.statistics.items()}
        theirs = rewrite(src, UPSTREAM)
        result = numerics.compare(theirs, ours, "main")
        if reads_undefined_contents(result):
            continue
        assert result.ok, result
        # Clean heap: every block freed once or returned, and no more
        # returned bytes than upstream's: a value returned at two positions
        # is one buffer there (upstream's too when it owns it; one it does
        # not own upstream copies twice, memplan once).
        assert result.heap_after.clean, result.heap_after
        assert result.heap_after.live_at_exit <= result.heap_before.live_at_exit
        assert "bufferization.manual_deallocation" not in ours
        left += stats["functions-left-to-upstream"]
        freed += stats["freed-by-memplan"]
        checked += 1
    assert checked >= 8
    assert 0 <= left < checked // 4 and freed > 0
