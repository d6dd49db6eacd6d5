"""memplan's deallocation inside the memory pipeline, on programs that broke
it: every output is proven by the deallocation checker and run through the
ExecutionEngine on each path (bit for bit with the tensor program, fresh
memory poisoned), with no invalid free and nothing left on the heap but
the results."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mlir import ir

import memplan
from memplan.deallocation import verify
from memplan.ir import parse_source
from memplan.numerics import compare, execute
from memplan.passes.pipeline import MEMPLAN_ONE_SHOT

MEMORY = "builtin.module(memplan-memory-pipeline)"


def plan(source: str, pipeline: str = MEMORY, verified: bool = True) -> str:
    """``source`` through ``pipeline``; the checker must prove the output."""
    with ir.Context():
        module = parse_source(source, "prog.mlir")
        memplan.run_pipeline(module, pipeline)
        if verified:
            issues = [str(v) for v in verify(module)]
            assert issues == [], "\n".join(issues)
        return str(module)


def run_paths(source: str, planned: str, entry: str, paths: list[dict[int, object]]) -> None:
    """Each path (fixed argument values) bit for bit, with a clean heap: no
    invalid free, every allocation freed but the returned buffers."""
    for values in paths:
        result = compare(source, planned, entry, values=values)
        assert result.ok, result
        run = execute(planned, entry, values=values)
        assert run.heap.invalid_frees == 0, (values, run.heap)
        returned = sum(o.data.nbytes for o in run.outputs[: _memref_results(planned, entry)])
        assert run.heap.live_at_exit == returned, (values, run.heap)


def _memref_results(text: str, entry: str) -> int:
    with ir.Context():
        module = ir.Module.parse(text)
        for op in module.body.operations:
            if op.attributes["sym_name"].value == entry:
                return sum(isinstance(t, ir.MemRefType) for t in op.type.results)
    raise KeyError(entry)


# The 10-line program of issue 31: the copy of %a (a memref.alloc(%dim)
# whose size folds to a constant) was freed by memplan and again by
# upstream's deallocation, which lost memplan's marker on the fold.
CAST_CHAIN_LOOP = """
func.func @main(%a: tensor<16xf32>, %b: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.cast %a : tensor<16xf32> to tensor<?xf32>
  %s = tensor.cast %d : tensor<?xf32> to tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (tensor<16xf32>) {
    %y = linalg.mul ins(%s, %b : tensor<16xf32>, tensor<16xf32>) outs(%it : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
"""


def test_cast_chain_loop_is_freed_once():
    planned = plan(CAST_CHAIN_LOOP)
    assert "bufferization.manual_deallocation" not in planned
    assert "cf.assert" not in planned
    run_paths(CAST_CHAIN_LOOP, planned, "main", [{2: 0}, {2: 1}, {2: 2}])


# Buffers yielded by an scf.if, promoted to the stack: promoted after the
# deallocation, the free of the merged value stayed (a free of stack memory).
BRANCH_BUFFERS = """
func.func @main(%c: i1, %a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %r = scf.if %c -> tensor<16xf32> {
    %e = tensor.empty() : tensor<16xf32>
    %y = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  } else {
    %e = tensor.empty() : tensor<16xf32>
    %y = linalg.mul ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  }
  %e2 = tensor.empty() : tensor<16xf32>
  %z = linalg.add ins(%r, %r : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  return %z : tensor<16xf32>
}
"""


@pytest.mark.parametrize("promote", [False, True])
def test_branch_buffers_promoted_to_the_stack_are_not_freed(promote):
    planned = plan(
        BRANCH_BUFFERS, f"builtin.module(memplan-memory-pipeline{{promote-to-stack={promote}}})"
    )
    if promote:
        assert "memref.alloca" in planned
    run_paths(BRANCH_BUFFERS, planned, "main", [{0: True}, {0: False}])


# Upstream's ownership-based deallocation, which memplan handed the call's
# result (and so the function), crashed here: it replaces the scf.for and
# reads its erased result, live across the cf.cond_br (SIGSEGV in
# getMemrefsToRetain). memplan frees everything itself now.
CALL_AND_BRANCHES = """
func.func private @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.add ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @main(%c: i1, %x: tensor<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = call @f(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %k = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> index {
    %t = arith.addi %s, %i : index
    %m = arith.remui %t, %n : index
    scf.yield %m : index
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %v = tensor.extract %a[%k] : tensor<8xf32>
  return %v : f32
^bb2:
  %w = tensor.extract %x[%k] : tensor<8xf32>
  return %w : f32
}
"""


def test_call_and_branches_do_not_reach_upstream(tmp_path):
    # In a process of its own: the old failure was a signal.
    source = tmp_path / "prog.mlir"
    source.write_text(CALL_AND_BRANCHES)
    opt = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
    done = subprocess.run(
        [
            opt,
            str(source),
            "--mlir-pass-statistics",
            "--pass-pipeline=builtin.module(memplan-memory-pipeline,"
            "memplan-verify-deallocation)",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "0 functions-left-to-upstream" in done.stderr and "0 violations" in done.stderr
    # The reference: memplan's bufferization without frees (numerics would
    # bufferize the tensor program with upstream's pipeline, which crashes).
    reference = plan(CALL_AND_BRANCHES, f"builtin.module({MEMPLAN_ONE_SHOT})", verified=False)
    run_paths(reference, done.stdout, "main", [{0: True, 2: 3}, {0: False, 2: 3}, {0: True, 2: 1}])


# Memref programs whose ownership the paths disagree on (a tensor program's
# bufferization never yields a loop-allocated buffer; these come from
# memref-level producers): flags, checked on every path against the
# program without frees.
FLAGGED = {
    "loop": (
        """
func.func @main(%x: memref<8xf32>, %n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %x) -> memref<8xf32> {
    %y = memref.alloc() : memref<8xf32>
    linalg.add ins(%it, %x : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
    scf.yield %y : memref<8xf32>
  }
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  return
}""",
        [{1: 0}, {1: 1}, {1: 3}],
    ),
    "while": (
        """
func.func @main(%x: memref<8xf32>, %n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  %r:2 = scf.while (%buf = %a, %i = %c0) : (memref<8xf32>, index) -> (memref<8xf32>, index) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %buf, %i : memref<8xf32>, index
  } do {
  ^bb0(%b: memref<8xf32>, %j: index):
    %next = memref.alloc() : memref<8xf32>
    linalg.add ins(%b, %x : memref<8xf32>, memref<8xf32>) outs(%next : memref<8xf32>)
    %k = arith.addi %j, %c1 : index
    scf.yield %next, %k : memref<8xf32>, index
  }
  memref.copy %r#0, %out : memref<8xf32> to memref<8xf32>
  return
}""",
        [{1: 0}, {1: 1}, {1: 3}],
    ),
    "branches": (
        """
func.func @main(%c: i1, %d: i1, %x: memref<8xf32>, %out: memref<8xf32>) -> memref<8xf32> {
  %r = scf.if %c -> memref<8xf32> {
    %a = memref.alloc() : memref<8xf32>
    linalg.add ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  cf.cond_br %d, ^bb1(%r : memref<8xf32>), ^bb2
^bb1(%m: memref<8xf32>):
  %b = memref.alloc() : memref<8xf32>
  linalg.add ins(%m, %x : memref<8xf32>, memref<8xf32>) outs(%b : memref<8xf32>)
  cf.br ^bb3(%b : memref<8xf32>)
^bb2:
  cf.br ^bb3(%r : memref<8xf32>)
^bb3(%z: memref<8xf32>):
  memref.copy %z, %out : memref<8xf32> to memref<8xf32>
  return %z : memref<8xf32>
}""",
        [{0: c, 1: d} for c in (True, False) for d in (True, False)],
    ),
}


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged_ownership_on_every_path(name):
    source, paths = FLAGGED[name]
    planned = plan(source, "builtin.module(memplan-buffer-deallocation)")
    assert " i1" in planned.split("{", 1)[1]  # a flag where the paths disagree
    run_paths(source, planned, "main", paths)


# A loop that writes its iteration argument and reads its init %a on every
# trip (generated seed 322 at 10 ops, reduced): %a is copied before the loop
# and the copy is returned. memplan-buffer-deallocation's
# copy-where-loops-run makes the copy only where the loop makes a trip; with
# none, the function returns a copy of %a made at the return, after %w (into
# which %t is written) is freed.
LOOP_INIT_COPY = """
func.func @main(%a: tensor<8xi32>, %b: tensor<8xi32>, %n: index) -> (tensor<8xi32>, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xi32>
  %w = linalg.add ins(%b, %b : tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (tensor<8xi32>) {
    %y = linalg.sub ins(%w, %a : tensor<8xi32>, tensor<8xi32>) outs(%it : tensor<8xi32>) -> tensor<8xi32>
    scf.yield %y : tensor<8xi32>
  }
  %e2 = tensor.empty() : tensor<8xi32>
  %t = linalg.mul ins(%r, %w : tensor<8xi32>, tensor<8xi32>) outs(%e2 : tensor<8xi32>) -> tensor<8xi32>
  %v = tensor.extract %t[%c0] : tensor<8xi32>
  return %r, %v : tensor<8xi32>, i32
}
"""


def test_loop_init_copied_where_the_loop_runs():
    planned = plan(LOOP_INIT_COPY)
    before = plan(
        LOOP_INIT_COPY, "builtin.module(memplan-memory-pipeline{copy-where-loops-run=false})"
    )
    assert "arith.cmpi ult" in planned and "arith.cmpi ult" not in before
    peaks = {}
    for n in range(4):
        # Upstream's bufferization is wrong with two trips (no copy of %a):
        # memplan's, which copies it, is the reference.
        result = compare(LOOP_INIT_COPY, planned, "main", values={2: n}, reference="memplan")
        assert result.ok, result
        assert compare(before, planned, "main", values={2: n}).ok
        run = execute(planned, "main", values={2: n})
        assert run.heap.invalid_frees == 0, (n, run.heap)
        assert run.heap.live_at_exit == run.outputs[0].data.nbytes, (n, run.heap)
        peaks[n] = result.heap_after.peak_blocks_bytes
    before_zero = compare(before, planned, "main", values={2: 0}).heap_before.peak_blocks_bytes
    # No trip, no copy: %w alone (%t is written into it), then the copy at
    # the return; the copy before the loop was held with %w.
    assert (peaks[0], before_zero) == (64, 128)
    assert peaks[1] == peaks[2] == peaks[3] == 128
