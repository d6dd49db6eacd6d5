"""A branch whose successors name one block twice, with other tensors on each
edge: upstream's one-shot-bufferize reads one edge per successor block and
bufferizes it into IR that does not verify; memplan-one-shot-bufferize gives
the later edge a block of its own first (lib/Inplace/RepeatedSuccessors.cpp).
Its output is upstream's for the program with that edge split by hand, and
the memory pipeline runs bit for bit against that program on both edges."""

from __future__ import annotations

import importlib.util
import os
import subprocess

import pytest
from mlir import ir

import memplan
from memplan.ir import parse_source
from memplan.numerics import compare

MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)

#: ^bb1 is both successors; the edges swap which of exp(x) and x they pass.
REPEATED = """
func.func @main(%c: i1, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  cf.cond_br %c, ^bb1(%a, %x : tensor<8xf32>, tensor<8xf32>),
                 ^bb1(%x, %a : tensor<8xf32>, tensor<8xf32>)
^bb1(%m: tensor<8xf32>, %k: tensor<8xf32>):
  %e2 = tensor.empty() : tensor<8xf32>
  %n = linalg.sub ins(%m, %k : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %f = linalg.mul ins(%n, %m : tensor<8xf32>, tensor<8xf32>) outs(%n : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}
"""

#: The same program with the second edge split by hand.
SPLIT = """
func.func @main(%c: i1, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  cf.cond_br %c, ^bb2(%a, %x : tensor<8xf32>, tensor<8xf32>),
                 ^bb1(%x, %a : tensor<8xf32>, tensor<8xf32>)
^bb1(%p: tensor<8xf32>, %q: tensor<8xf32>):
  cf.br ^bb2(%p, %q : tensor<8xf32>, tensor<8xf32>)
^bb2(%m: tensor<8xf32>, %k: tensor<8xf32>):
  %e2 = tensor.empty() : tensor<8xf32>
  %n = linalg.sub ins(%m, %k : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %f = linalg.mul ins(%n, %m : tensor<8xf32>, tensor<8xf32>) outs(%n : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}
"""

BUFFERIZE = "one-shot-bufferize{bufferize-function-boundaries}"


def _memplan(source: str, pipeline: str) -> str:
    with ir.Context():
        module = parse_source(source, "repeated.mlir")
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


def _upstream(source: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MLIR_OPT, f"--pass-pipeline=builtin.module({BUFFERIZE})"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )


def test_upstream_cannot_bufferize_the_repeated_edge() -> None:
    # What the split works around: upstream gives the block argument the
    # first edge's buffer type.
    result = _upstream(REPEATED)
    assert result.returncode != 0
    assert "type mismatch for bb argument #0 of successor #1" in result.stderr


def test_bufferized_as_upstream_bufferizes_the_split_program() -> None:
    upstream = _upstream(SPLIT)
    assert upstream.returncode == 0, upstream.stderr
    # mlir-opt ends its output with a newline of its own.
    assert _memplan(REPEATED, "memplan-" + BUFFERIZE) + "\n" == upstream.stdout


@pytest.mark.parametrize("condition", [0, 1])
def test_memory_pipeline_bit_for_bit_on_both_edges(condition: int) -> None:
    planned = _memplan(REPEATED, "memplan-memory-pipeline")
    # The reference is upstream's bufferization of the split program.
    result = compare(SPLIT, planned, "main", values={0: condition})
    assert result.ok, result
