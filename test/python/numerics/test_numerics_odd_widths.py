"""Integers of odd widths (i3, i12, i24, i48, i1) run through the numerics
harness: held in the integer the LLVM lowering stores them in (i24 in 4
bytes, i48 in 8), compared by their meaningful bits."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from memplan.ir import parse_source
from memplan.numerics import compare, execute
from memplan.numerics.signature import value_spec
from memplan.passes.pipeline import run_pipeline

CHECK = os.path.join(os.path.dirname(sys.executable), "memplan-check")


def program(t: str) -> str:
    """x * y + s elementwise, and s * s, in the integer type ``t``."""
    return f"""
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<8x{t}>, %y: tensor<8x{t}>, %s: {t}) -> (tensor<8x{t}>, {t}) {{
  %e = tensor.empty() : tensor<8x{t}>
  %r = linalg.generic {{indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}}
      ins(%x, %y : tensor<8x{t}>, tensor<8x{t}>) outs(%e : tensor<8x{t}>) {{
  ^bb0(%a: {t}, %b: {t}, %o: {t}):
    %m = arith.muli %a, %b : {t}
    %d = arith.addi %m, %s : {t}
    linalg.yield %d : {t}
  }} -> tensor<8x{t}>
  %s2 = arith.muli %s, %s : {t}
  return %r, %s2 : tensor<8x{t}>, {t}
}}
"""


def planned(text: str) -> str:
    from mlir import ir

    with ir.Context():
        module = parse_source(text, "odd.mlir")
        run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
        return str(module)


def wrap(values: np.ndarray, width: int) -> np.ndarray:
    """Two's complement values of ``width`` bits, sign-extended."""
    values = np.asarray(values, dtype=object) % (1 << width)
    return np.array(
        [v - (1 << width) if v >= 1 << (width - 1) else v for v in values.ravel()], dtype=np.int64
    ).reshape(np.shape(values))


@pytest.mark.parametrize(
    "t, dtype, bits",
    [
        ("i12", np.int16, 12),
        ("i24", np.int32, 24),
        ("i48", np.int64, 48),
        ("ui24", np.uint32, 24),
        ("i3", np.uint8, 0),
        ("i32", np.int32, 0),
    ],
)
def test_odd_widths_are_held_in_their_alloc_size(ctx, t, dtype, bits):
    from mlir import ir

    spec = value_spec(ir.Type.parse(f"memref<4x{t}>"))
    assert spec.dtype == np.dtype(dtype) and spec.bits == bits


@pytest.mark.parametrize("t, width", [("i12", 12), ("i24", 24), ("i48", 48)])
def test_values_wrap_at_their_width(t, width):
    # The largest value times 2, plus 1: -1 in the type; and a value given
    # beyond the width is cut to it.
    top = (1 << (width - 1)) - 1
    x = np.array([top, top, 3, -4, 0, 1, -top - 1, 5])
    y = np.array([2, 1, -2, 3, 7, 1, 2, -1])
    s = 1
    run = execute(program(t), "main", inputs=[x, y, s])
    expected = wrap(x.astype(object) * y.astype(object) + s, width)
    assert run.outputs[0].data.tolist() == expected.tolist()
    assert int(run.outputs[1].data) == 1
    beyond = execute(program(t), "main", inputs=[x + (1 << width), y, s + (3 << width)])
    assert beyond.outputs[0].data.tolist() == expected.tolist()


@pytest.mark.parametrize("t", ["i3", "i12", "i24", "i48", "i1"])
def test_memory_pipeline_output_checks_bit_for_bit(t):
    # Heap buffers of i24 keep their fourth byte from the poison: the two
    # poison runs agree only by the meaningful bits.
    text = (
        program(t)
        if t != "i1"
        else program(t).replace("arith.muli", "arith.andi").replace("arith.addi", "arith.xori")
    )
    result = compare(text, planned(text), "main", poison=True, isolate=True)
    assert result.ok, str(result)
    assert result.heap_after.allocations >= 1


def test_memplan_check_runs_i24(tmp_path):
    # It refused them before ("unsupported integer width in i24").
    (tmp_path / "before.mlir").write_text(program("i24"))
    (tmp_path / "after.mlir").write_text(planned(program("i24")))
    run = subprocess.run(
        [CHECK, "before.mlir", "after.mlir", "--entry", "main"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("OK: 4 outputs identical (poison checked)")


def test_a_difference_in_the_meaningful_bits_is_a_mismatch():
    # s + 1 instead of s: every element differs, by its low bit.
    text = program("i24")
    wrong = text.replace(
        "%d = arith.addi %m, %s : i24",
        "%one = arith.constant 1 : i24\n    %s1 = arith.addi %s, %one : i24\n"
        "    %d = arith.addi %m, %s1 : i24",
    )
    result = compare(text, wrong, "main")
    assert not result.ok and result.mismatch is not None
    assert result.mismatch.output_name == "result #0 (memref<8xi24>)"
    assert result.mismatch.count == 8
