"""Values given to their uses: memplan-split-destinations' destinations per
op holding uses (issue #31), and memplan-recompute-cheap-values (issue #30).

Each rewrite runs before and after through the ExecutionEngine
(``memplan.numerics``: bit for bit, fresh memory poisoned), and memplan's
pipeline is run against upstream's on the paths that matter: the run-time
heap peak (``execute(...).heap``) of every path, a loop's zero-trip one
included, is not above upstream's.
"""

from __future__ import annotations

import os

import pytest
from progs.layers import shared_fill_layers
from progs.litcases import lit_cases, rewrite
from test_peak import check_against_upstream, static_peak_and_bound

from memplan import numerics
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

MEMORY = "builtin.module(memplan-memory-pipeline)"
UPSTREAM = f"builtin.module({UPSTREAM_BUFFERIZATION})"

#: One tensor.empty written twice in a loop body, each result dead before
#: the next write: upstream holds one 64-byte buffer before the loop.
TWO_USES_IN_ONE_LOOP = """
func.func @main(%x: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16xf32>
  %y = linalg.exp ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>) -> tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> tensor<16xf32> {
    %a = linalg.exp ins(%acc : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %s = linalg.add ins(%a, %acc : tensor<16xf32>, tensor<16xf32>) outs(%acc : tensor<16xf32>) -> tensor<16xf32>
    %b = linalg.negf ins(%s : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %t = linalg.add ins(%b, %s : tensor<16xf32>, tensor<16xf32>) outs(%s : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %t : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
"""


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_destinations_in_one_loop_hold_no_more_than_upstream(trips):
    # memplan-split-destinations gave each use in the loop a destination of
    # its own, both before the loop: 128 bytes where upstream holds 64, on
    # every path. Each op holding uses now gets one.
    ours = rewrite(TWO_USES_IN_ONE_LOOP, MEMORY)
    theirs = rewrite(TWO_USES_IN_ONE_LOOP, UPSTREAM)
    result = numerics.compare(theirs, ours, "main", values={1: trips})
    assert result.ok, result
    assert result.heap_after.invalid_frees == 0
    assert result.heap_after.live_at_exit == result.heap_before.live_at_exit
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes
    ours_heap = numerics.execute(ours, "main", values={1: trips}).heap
    theirs_heap = numerics.execute(theirs, "main", values={1: trips}).heap
    assert ours_heap.peak_blocks_bytes <= theirs_heap.peak_blocks_bytes == 64


# --- memplan-recompute-cheap-values ------------------------------------------------------------

RECOMPUTE = "builtin.module(memplan-recompute-cheap-values{max-added-work-percent=-1})"
WORKLOADS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "workloads")


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in lit_cases(
            "peak/recompute-cheap-values.mlir", "peak/recompute-cheap-values-budget.mlir"
        )
        if c.runnable
    ],
    ids=str,
)
def test_recomputed_values_keep_the_numerics(case):
    # The pass alone, bit for bit with fresh memory poisoned; then the memory
    # pipeline (which runs it) against upstream's: same bits, pools without
    # overlap, every buffer freed once, run-time peak not above upstream's.
    after = rewrite(case.text, RECOMPUTE)
    for fn in case.functions:
        assert numerics.compare(case.text, after, fn, dims={"*": 5}).ok, fn
        check_against_upstream(case.text, fn, dims={"*": 5})


@pytest.mark.parametrize("layers", [3, 5])
def test_a_shared_fill_is_recomputed_per_layer(layers):
    # One zero fill serves the matmul of every layer: held (or copied) from
    # the first layer to the last. Recomputed at each matmul, the static
    # peak goes down; the run-time peak is below upstream's and not above
    # the pipeline's without recomputation.
    src = shared_fill_layers(layers)
    without = rewrite(src, "builtin.module(memplan-memory-pipeline{recompute=false})")
    result, ours = check_against_upstream(src, "main")
    assert static_peak_and_bound(ours)[0] < static_peak_and_bound(without)[0]
    held = numerics.execute(without, "main").heap.peak_blocks_bytes
    assert result.heap_after.peak_blocks_bytes < held
    assert result.heap_after.peak_blocks_bytes < result.heap_before.peak_blocks_bytes


@pytest.mark.parametrize("name", ["bert_l4_h256_s128", "lstm_scf_for"])
def test_shared_workloads_bit_for_bit(name):
    # Real models imported by torch-mlir: the pipeline with recomputation
    # against upstream's (poisoned memory, the overlap oracle, frees, peaks),
    # and its static peak not above the pipeline's without it.
    path = os.path.join(WORKLOADS, f"{name}.mlir")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not here")
    src = open(path).read()
    without = rewrite(src, "builtin.module(memplan-memory-pipeline{recompute=false})")
    _, ours = check_against_upstream(src, "forward")
    assert static_peak_and_bound(ours)[0] <= static_peak_and_bound(without)[0]
