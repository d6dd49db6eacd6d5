"""Dynamic sizes in liveness reports: sizes and the peak over named argument
dimensions, and for given sizes the numbers a run measures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from memplan import numerics
from memplan.ir.parse import parse_source
from memplan.lifetimes import symbolic
from memplan.lifetimes.analysis import analyze_module
from memplan.liveness.report import function_dict

CASE = (Path(__file__).parents[2] / "lit" / "lifetimes" / "report-dynamic.mlir").read_text()


def _report(sizes=None) -> dict:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        (lt,) = analyze_module(parse_source(CASE, "case.mlir"))
        return function_dict(lt, sizes=sizes)


@pytest.mark.parametrize("n, m", [(10, 3), (1, 40), (100, 100), (0, 0)])
def test_given_sizes_match_a_measured_run(n, m):
    """The peak for given sizes is the peak a run of the function measures
    (live bytes as asked for), for either buffer being the larger."""
    doc = _report(symbolic.ArgumentSizes({(0, 0): n}, {1: m}))
    assert doc["peak_live_bytes"] == max(4 * n, 8 * m) + 64
    x = np.arange(n, dtype=np.float32)
    heap = numerics.execute(
        CASE, "dyn", inputs=[x, np.int64(m), np.zeros(n, np.float32), np.zeros(16, np.float32)]
    ).heap
    assert heap.peak_bytes == doc["peak_live_bytes"]


def test_symbolic_peak_names_argument_dimensions():
    doc = _report()
    assert doc["peak_live"] == "max(4 * arg0.dim0 + 64, 8 * arg1 + 64)"
    assert [a["size"] for a in doc["allocations"]] == ["4 * arg0.dim0", "64", "8 * arg1"]
    assert doc["size_leaves"] == ["arg0.dim0", "arg1"]
    assert "sizes" not in doc


def test_missing_size_is_an_error_naming_it():
    with pytest.raises(ValueError, match="no value for arg1"):
        _report(symbolic.ArgumentSizes({(0, 0): 4}, {}))


def test_peak_drops_dominated_live_sets():
    a, b, c = symbolic._leaf("arg0.dim0"), symbolic._leaf("arg1.dim0"), symbolic.const(8)
    start, end = np.array([0, 0, 2]), np.array([4, 2, 4])
    # {a, b} then {a, c}: neither dominates; a alone is dominated by both.
    assert (
        symbolic.max_text(symbolic.peak(start, end, [a, b, c]))
        == "max(arg0.dim0 + arg1.dim0, arg0.dim0 + 8)"
    )
    assert (
        symbolic.max_text(symbolic.peak(np.array([0, 1]), np.array([3, 2]), [a, b]))
        == "arg0.dim0 + arg1.dim0"
    )


def test_dominance_needs_leaves_that_are_never_negative():
    """4 * x + 4 * y against 8 * x + 4 * y: larger only if x >= 0. Argument
    dimensions and size operands are; an arbitrary index value is not (then
    only a multiple compares)."""
    x, y = symbolic._leaf("%x"), symbolic._leaf("%y")
    small = symbolic.add(symbolic.mul(symbolic.const(4), x), symbolic.mul(symbolic.const(4), y))
    big = symbolic.add(symbolic.mul(symbolic.const(8), x), symbolic.mul(symbolic.const(4), y))
    assert not symbolic.dominates(big, small)
    assert symbolic.dominates(big, small, frozenset({"%x", "%y"}))
    assert symbolic.dominates(symbolic.mul(symbolic.const(2), small), small)
    assert not symbolic.dominates(small, symbolic.mul(symbolic.const(2), small))


CAST_CASE = """
func.func @cast(%x: memref<?xf32>, %y: tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.memory_space_cast %x : memref<?xf32> to memref<?xf32, 1>
  %n = memref.dim %s, %c0 : memref<?xf32, 1>
  %a = memref.alloc(%n) : memref<?xf32>
  "test.use"(%a) : (memref<?xf32>) -> ()
  memref.dealloc %a : memref<?xf32>
  %t = tensor.bitcast %y : tensor<?x4xf32> to tensor<?x4xi32>
  %m = tensor.dim %t, %c0 : tensor<?x4xi32>
  %b = memref.alloc(%m) : memref<?xf64>
  "test.use"(%b) : (memref<?xf64>) -> ()
  memref.dealloc %b : memref<?xf64>
  return
}
"""


def test_sizes_name_dimensions_through_any_cast():
    """A dimension of a cast of an argument is that argument's dimension,
    through any cast op (CastOpInterface), not only memref.cast/tensor.cast."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        (lt,) = analyze_module(parse_source(CAST_CASE, "case.mlir"))
        doc = function_dict(lt)
    assert [a["size"] for a in doc["allocations"]] == ["4 * arg0.dim0", "8 * arg1.dim0"]
