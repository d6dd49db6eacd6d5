"""Values given to their uses: memplan-split-destinations' destinations per
op holding uses (issue #31), and memplan-recompute-cheap-values (issue #30).

Each rewrite runs before and after through the ExecutionEngine
(``memplan.numerics``: bit for bit, fresh memory poisoned), and memplan's
pipeline is run against upstream's on the paths that matter: the run-time
heap peak (``execute(...).heap``) of every path, a loop's zero-trip one
included, is not above upstream's.
"""

from __future__ import annotations

import pytest

from memplan import numerics
from memplan.pipeline import UPSTREAM_BUFFERIZATION
from progs.litcases import rewrite

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
