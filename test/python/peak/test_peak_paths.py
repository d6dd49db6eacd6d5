"""Run-time heap peaks per path (issue #31: "no raised peak on any path"):
reduced generated programs (``bench/bench_generated.py --reduce``) whose
``memplan-memory-pipeline`` output peaked above upstream's pipeline on one
path (a branch not taken, a loop run zero times). Each runs both outputs
through the ExecutionEngine on that path (``memplan.numerics.compare``: bit
for bit, clean heaps) and compares the heaps' peaks.
"""

from __future__ import annotations

import pytest
from progs.litcases import rewrite

from memplan import numerics
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

MEMORY = "builtin.module(memplan-memory-pipeline)"
UPSTREAM = f"builtin.module({UPSTREAM_BUFFERIZATION})"

#: Seed 105 (path: %c false, no trips): the first scf.if's result is never
#: read. memplan yielded the copy %inserted made in the else branch and freed
#: it after the scf.if, so it was still live when the copy %inserted_1 was
#: made, beside %0: 192 B against upstream's 128.
DEAD_IF_RESULT = """
#map = affine_map<(d0) -> (d0)>
module {
  func.func @main(%arg0: tensor<8xf64>, %arg1: tensor<8xf64>, %arg2: tensor<8xf64>, %arg3: tensor<?xf64>, %arg4: i1, %arg5: index, %arg6: index) -> (tensor<8xf64>, tensor<8xf64>) {
    %cst = arith.constant 1.500000e+00 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg1, %arg0 : tensor<8xf64>, tensor<8xf64>) outs(%arg1 : tensor<8xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %4 = arith.mulf %in, %in_1 : f64
      linalg.yield %4 : f64
    } -> tensor<8xf64>
    %extracted_slice = tensor.extract_slice %arg0[%arg5] [4] [1] : tensor<8xf64> to tensor<4xf64>
    %1 = scf.if %arg4 -> (tensor<8xf64>) {
      scf.yield %arg0 : tensor<8xf64>
    } else {
      %extracted = tensor.extract %arg3[%c0] : tensor<?xf64>
      %inserted = tensor.insert %extracted into %arg0[%arg5] : tensor<8xf64>
      %inserted_1 = tensor.insert %cst into %arg1[%arg5] : tensor<8xf64>
      scf.yield %inserted : tensor<8xf64>
    }
    cf.cond_br %arg4, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    cf.br ^bb3(%arg2 : tensor<8xf64>)
  ^bb2:  // pred: ^bb0
    cf.br ^bb3(%0 : tensor<8xf64>)
  ^bb3(%2: tensor<8xf64>):  // 2 preds: ^bb1, ^bb2
    %expanded = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 4] : tensor<8xf64> into tensor<2x4xf64>
    %extracted_slice_0 = tensor.extract_slice %expanded[0, 0] [1, 4] [1, 1] : tensor<2x4xf64> to tensor<4xf64>
    %3 = scf.for %arg7 = %c0 to %arg6 step %c1 iter_args(%arg8 = %2) -> (tensor<8xf64>) {
      %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%extracted_slice_0, %extracted_slice : tensor<4xf64>, tensor<4xf64>) outs(%extracted_slice_0 : tensor<4xf64>) {
      ^bb0(%in: f64, %in_1: f64, %out: f64):
        %6 = arith.mulf %in, %in_1 : f64
        linalg.yield %6 : f64
      } -> tensor<4xf64>
      %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg1, %arg8 : tensor<8xf64>, tensor<8xf64>) outs(%arg8 : tensor<8xf64>) {
      ^bb0(%in: f64, %in_1: f64, %out: f64):
        %6 = arith.subf %in, %in_1 : f64
        linalg.yield %6 : f64
      } -> tensor<8xf64>
      scf.yield %5 : tensor<8xf64>
    }
    return %2, %arg2 : tensor<8xf64>, tensor<8xf64>
  }
}
"""

#: Seed 11: a fill's buffer reaches an arith.select in a nested branch whose
#: result nobody reads. memplan freed it after the outer scf.if, where it was
#: still live when the else branch copied %a: 192 B against upstream's 128.
DEAD_SELECT_IN_BRANCH = """
func.func @main(%a: tensor<8xi12>, %b: tensor<8xi12>, %d: tensor<?xi12>, %c: i1,
                %i: index) -> tensor<8xi12> {
  %c3 = arith.constant 3 : i12
  %f = linalg.fill ins(%c3 : i12) outs(%a : tensor<8xi12>) -> tensor<8xi12>
  %r = scf.if %c -> (tensor<8xi12>) {
    scf.yield %a : tensor<8xi12>
  } else {
    %s = scf.if %c -> (tensor<8xi12>) {
      scf.yield %a : tensor<8xi12>
    } else {
      %t = arith.select %c, %f, %a : tensor<8xi12>
      scf.yield %t : tensor<8xi12>
    }
    %e = tensor.extract %d[%i] : tensor<?xi12>
    %inserted = tensor.insert %e into %a[%i] : tensor<8xi12>
    scf.yield %a : tensor<8xi12>
  }
  return %r : tensor<8xi12>
}
"""


#: Each program, the argument numbers of its branch condition and of its
#: dynamic tensor (5 elements), and its index arguments' values.
CASES = {
    "dead-if-result": (DEAD_IF_RESULT, 4, 3, {5: 0, 6: 0}),
    "dead-select-in-branch": (DEAD_SELECT_IN_BRANCH, 3, 2, {4: 1}),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("cond", [False, True])
def test_dead_aliases_hold_no_buffer_past_its_last_use(name, cond):
    program, cond_arg, dynamic_arg, indices = CASES[name]
    ours = rewrite(program, MEMORY)
    theirs = rewrite(program, UPSTREAM)
    result = numerics.compare(
        theirs, ours, "main", values={cond_arg: cond, **indices}, dims={dynamic_arg: 5}
    )
    assert result.ok, result
    assert not result.heap_after.fault_lines()
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes
