"""memplan's deallocation inside the memory pipeline, on programs that broke
it: every output is proven by the deallocation checker and run through the
ExecutionEngine on each path (bit for bit with the tensor program, fresh
memory poisoned), with no invalid free and nothing left on the heap but
the results."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import memplan
from memplan.deallocation import verify
from memplan.ir import parse_source
from memplan.numerics import compare, execute

MEMORY = "builtin.module(memplan-memory-pipeline)"


def plan(source: str, pipeline: str = MEMORY) -> str:
    """``source`` through ``pipeline``; the checker must prove the output."""
    with ir.Context():
        module = parse_source(source, "prog.mlir")
        memplan.run_pipeline(module, pipeline)
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
        returned = sum(o.data.nbytes for o in run.outputs[:_memref_results(planned, entry)])
        assert run.heap.live_at_exit == returned, (values, run.heap)


def _memref_results(text: str, entry: str) -> int:
    with ir.Context():
        module = ir.Module.parse(text)
        for op in module.body.operations:
            if op.attributes["sym_name"].value == entry:
                return sum(isinstance(t, ir.MemRefType) for t in op.type.results)
    raise KeyError(entry)


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
    planned = plan(BRANCH_BUFFERS, f"builtin.module(memplan-memory-pipeline{{promote-to-stack={promote}}})")
    if promote:
        assert "memref.alloca" in planned
    run_paths(BRANCH_BUFFERS, planned, "main", [{0: True}, {0: False}])
