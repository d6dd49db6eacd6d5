"""memplan-buffer-reuse: pools are valid (checker), outputs are bit-identical
(numerics, poison mode) on every runnable lit case and on generated programs,
and rejected allocations are left exactly as they were."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from progs.generator import generate
from progs.litcases import lit_cases, nested_module, parse_text, rewrite, run_reuse

import memplan
import memplan.passes
from memplan import numerics
from memplan.ir import extract_graph, function_ids, function_name, parse_source
from memplan.lifetimes import LifetimeAnalysis
from memplan.numerics import oracle
from memplan.passes.pipeline import parse_pipeline
from memplan.reuse import packing, plan_function
from memplan.reuse.check import check_module

REUSE = "builtin.module(memplan-buffer-reuse)"
LIT_FILES = (
    "reuse/static.mlir",
    "reuse/regions.mlir",
    "reuse/dynamic.mlir",
    "reuse/branches.mlir",
    "reuse/skip.mlir",
)
CASES = lit_cases(*LIT_FILES)
RUNNABLE = [c for c in CASES if c.runnable]


_run_reuse = run_reuse


def test_lit_cases_found():
    assert len(CASES) >= 25
    assert len(RUNNABLE) >= 18


@pytest.mark.parametrize("case", RUNNABLE, ids=str)
def test_lit_case_bit_identical(case):
    before = parse_text(case.text)
    after, _, check = _run_reuse(case.text)
    assert check.ok, check.violations
    for func in case.functions:
        result = numerics.compare(before, after, func, poison=True)
        # A few inputs leak by design (a branch buffer merged with an argument
        # cannot simply be freed): the rewrite keeps exactly that leak.
        before_heap, after_heap = result.heap_before, result.heap_after
        leaky_input = (
            before_heap.leaks
            and not before_heap.invalid_frees
            and (after_heap.leaks, after_heap.leaked_bytes, after_heap.invalid_frees)
            == (before_heap.leaks, before_heap.leaked_bytes, 0)
        )
        same = (
            result.mismatch is None
            and not result.uninitialized
            and result.assert_counts_before == result.assert_counts_after
        )
        assert result.ok or (leaky_input and same), (func, str(result))
        # Every heap byte counted (returned buffers too): never above the input.
        assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes, func
        assert oracle.run(after, func).ok, func


@pytest.mark.parametrize("seed", range(12))
def test_generated_program_bit_identical(seed):
    text = generate(seed)
    before = parse_text(text)
    after, stats, check = _run_reuse(text)
    assert check.ok, check.violations
    assert stats["skipped-escapes-return"] == 1  # %ret
    assert stats.get("bytes-after", 0) <= stats.get("bytes-before", 0)
    assert stats["peak-lower-bound"] <= stats["peak-planned"] <= stats["peak-input"]
    result = numerics.compare(before, after, "main", seed=seed, poison=True)
    assert result.ok, (result.mismatch, result.uninitialized)
    assert oracle.run(after, "main", seed=seed).ok
    # Never more allocator calls, never a higher heap peak.
    assert result.heap_after.allocations <= result.heap_before.allocations
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes


@pytest.mark.parametrize("algorithm", ["linear-scan", "greedy-by-size", "best-fit"])
def test_every_algorithm_is_valid(algorithm):
    for seed in (3, 4):
        text = generate(seed)
        after, _, check = _run_reuse(text, algorithm=algorithm, alignment=16)
        assert check.ok, check.violations
        assert numerics.compare(parse_text(text), after, "main").ok


def test_pool_close_to_lower_bound_on_generated_programs():
    pool = bound = calls = pooled = 0
    for seed in range(30):
        _, stats, _ = _run_reuse(generate(seed, stages=14))
        pool += stats.get("bytes-after", 0)
        bound += stats.get("pool-lower-bound", 0)
        calls += stats.get("skipped-escapes-call", 0)
        pooled += stats.get("pooled-allocations", 0)
        # The whole heap, not the pool alone: never above the input.
        assert stats["peak-lower-bound"] <= stats["peak-planned"] <= stats["peak-input"], seed
    assert calls > 0  # the generator does exercise escaping buffers
    assert pooled > 30  # pools where they do not raise the heap peak
    # Each pool within 1% of the most bytes live at once among its members.
    assert pool <= bound * 1.01


def test_skipped_cases_are_unchanged():
    for case in lit_cases("reuse/skip.mlir"):
        before = parse_text(case.text)
        after, stats, _ = _run_reuse(case.text)
        assert after == before, str(case)
        assert any(k.startswith("skipped-") for k in stats), str(case)


def test_second_run_changes_nothing():
    after, _, _ = _run_reuse(generate(5))
    again, stats, check = _run_reuse(after)
    assert again == after
    assert "pools" not in stats and check.ok


def test_checker_finds_overlap():
    bad = """
    func.func @bad(%x: memref<16xf32>) {
      %pool = memref.alloc() : memref<128xi8>
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %a = memref.view %pool[%c0][] : memref<128xi8> to memref<16xf32>
      %b = memref.view %pool[%c32][] : memref<128xi8> to memref<16xf32>
      memref.copy %x, %a : memref<16xf32> to memref<16xf32>
      memref.copy %x, %b : memref<16xf32> to memref<16xf32>
      memref.copy %a, %x : memref<16xf32> to memref<16xf32>
      memref.dealloc %pool : memref<128xi8>
      return
    }
    """
    with ir.Context():
        result = check_module(parse_source(bad))
    assert not result.ok
    assert result.violations[0].startswith("overlap")


def test_plan_api_does_not_touch_ir():
    text = generate(2)
    with ir.Context():
        module = parse_source(text)
        printed = str(module)
        graph = extract_graph(module)
        (main,) = [f for f in function_ids(graph) if function_name(graph, f) == "main"]
        lt = LifetimeAnalysis(graph).function(main)
        fplan = plan_function(lt, algorithm="best-fit", alignment=64)
        plans = fplan.pools
        assert str(module) == printed
    assert fplan.lower_bound <= fplan.peak <= fplan.input_peak
    assert plans and all(p.static_size >= p.lower_bound for p in plans)
    for p in plans:
        assert np.all(p.offsets % p.alignment == 0)


def test_options_and_errors():
    with pytest.raises(Exception):
        memplan.passes.buffer_reuse(algorithm="first-fit")
    text = generate(1)
    with ir.Context():
        module = parse_source(text)
        # A bad option value is an error when the pipeline is parsed.
        with pytest.raises(memplan.PipelineError, match="positive power of two, got 48"):
            memplan.run_pipeline(module, "builtin.module(memplan-buffer-reuse{alignment=48})")


def test_memory_pipeline_alias_expands():
    with ir.Context():
        text = str(
            parse_pipeline(
                "builtin.module(memplan-memory-pipeline{algorithm=best-fit promote-to-stack reorder})"
            )
        )
    # memplan's tensor passes, its bufferization, promotion to the stack
    # before deallocation (upstream's order: a promoted buffer is never
    # freed), then pools.
    order = [
        "memplan-fold-transposes",
        "memplan-split-destinations",
        "memplan-recompute-cheap-values",
        "memplan-reorder-for-memory",
        "memplan-reuse-dying-inputs",
        "memplan-eliminate-subset-copies",
        "memplan-one-shot-bufferize",
        "promote-buffers-to-stack",
        "memplan-buffer-deallocation",
        "memplan-buffer-reuse",
    ]
    positions = [text.index(p) for p in order]
    assert positions == sorted(positions)
    # Upstream's deallocation runs inside memplan-buffer-deallocation, only when needed.
    assert (
        "ownership-based-buffer-deallocation" not in text
        and "optimize-allocation-liveness" not in text
    )
    # MLIR prints the options of memplan's passes, as of upstream ones.
    assert text.endswith(
        ",memplan-buffer-reuse{algorithm=best-fit alignment=64 capacity= remarks=false "
        f"search-budget={packing.DEFAULT_BUDGET}}})"
    )
    # The alias' own text; each tensor pass can be turned off.
    info = memplan.passes.lookup("memplan-memory-pipeline")
    expansion = info.expand(
        memplan.passes.parse_option_text(info, "algorithm=best-fit promote-to-stack")
    )
    assert expansion.endswith("memplan-buffer-reuse{algorithm=best-fit alignment=64}")
    # The memory-aware order is on by default (it keeps the importer's order
    # where its modeled peak does not go down), and models the dying-input
    # writes only where that pass runs.
    assert "memplan-reorder-for-memory, memplan-reuse-dying-inputs" in expansion
    no_reuse = info.expand(memplan.passes.parse_option_text(info, "reuse-dying-inputs=false"))
    assert "memplan-reorder-for-memory{dying-inputs=false}" in no_reuse
    off = info.expand(
        memplan.passes.parse_option_text(
            info,
            "fold-transposes=false split-destinations=false recompute=false reorder=false "
            "reuse-dying-inputs=false eliminate-subset-copies=false",
        )
    )
    assert off.startswith("memplan-one-shot-bufferize{")


def test_memory_pipeline_numerics_on_mlp():
    src = open(__file__.replace("test/python/reuse/test_reuse.py", "examples/mlp.mlir")).read()
    prepared = rewrite(
        src,
        "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}, "
        "buffer-deallocation-pipeline, func.func(optimize-allocation-liveness))",
    )
    pooled = rewrite(src, "builtin.module(memplan-memory-pipeline)")
    result = numerics.compare(src, pooled, "mlp")
    assert result.ok
    prepared_result = numerics.compare(prepared, pooled, "mlp")
    assert prepared_result.ok
    # The bias+relu writes into the hidden buffer it reads, which dies there:
    # one 8 KiB hidden buffer instead of two, next to the 2 KiB result. Two
    # buffers are left, and a pool of them would not lower the peak.
    assert "memref.view" not in pooled
    after, before = prepared_result.heap_after, prepared_result.heap_before
    assert (after.peak_blocks_bytes, before.peak_blocks_bytes) == (10240, 16384)
    assert after.allocations == after.frees + 1 and before.allocations == before.frees + 1


@pytest.mark.parametrize(
    "case", lit_cases("reuse/pipeline.mlir", "reuse/pipeline-regions.mlir"), ids=str
)
def test_memory_pipeline_lit_cases_bit_identical(case):
    pooled = rewrite(case.text, "builtin.module(memplan-memory-pipeline)")
    with ir.Context():
        assert check_module(parse_source(pooled)).ok
    for func in case.functions:
        for seed in (0, 1):
            result = numerics.compare(case.text, pooled, func, seed=seed)
            assert result.ok, (func, result.mismatch, result.uninitialized)


@pytest.mark.parametrize("nested", ["inner", "deepest"])
def test_nested_module_functions_are_pooled_bit_identical(nested):
    """Functions of nested modules are pooled (they were skipped): each nested
    module, before and after, runs as a module of its own."""
    text = (
        __import__("pathlib").Path(__file__).parents[2] / "lit" / "reuse" / "nested-modules.mlir"
    ).read_text()
    after, stats, check = _run_reuse(text)
    assert check.ok, check.violations
    assert stats["pools"] == 3
    before_inner, after_inner = nested_module(text, nested), nested_module(after, nested)
    assert "memref<4096xi8>" in after_inner and "memref<4096xi8>" not in before_inner
    result = numerics.compare(before_inner, after_inner, "nested", poison=True)
    assert result.ok, (result.mismatch, result.uninitialized)
    assert oracle.run(after_inner, "nested").ok
