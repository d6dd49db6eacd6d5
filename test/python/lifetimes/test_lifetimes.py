"""The buffer lifetime analysis: intervals, aliases, eligibility, reports, CLI."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from mlir import ir
from progs.scale import chain

import memplan
from memplan.cli.main import run as memplan_main
from memplan.ir import extract_graph, function_ids, parse_source
from memplan.lifetimes import REASONS, analyze_function, analyze_module
from memplan.lifetimes.analysis import peak_live
from memplan.lifetimes.reasons import bit, names, primary
from memplan.liveness.report import format_text, load_report

MLP = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "mlp.mlir")


def _one(text: str):
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(text)
        (lt,) = analyze_module(module)
        return lt, lt.allocations()


def test_intervals_are_plain_arrays():
    lt, allocs = _one("""
    func.func @f(%x: memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      memref.copy %x, %a : memref<4xf32> to memref<4xf32>
      memref.dealloc %a : memref<4xf32>
      %b = memref.alloc() : memref<8xf64>
      memref.dealloc %b : memref<8xf64>
      return
    }""")
    assert isinstance(lt.start, np.ndarray) and lt.start.dtype == np.int32
    assert [(a.start, a.end) for a in allocs] == [(1, 3), (4, 5)]
    assert list(lt.bytes) == [16, 64]
    assert lt.peak_live_bytes == 64 and lt.total_alloc_bytes == 80
    assert all(a.eligible for a in allocs)
    assert lt.dealloc[0] == lt.op[0] + 2


def test_alias_and_to_tensor_extend_lifetime():
    lt, allocs = _one(
        """
    func.func @f(%x: memref<4xf32>) -> tensor<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      %b = memref.alloc() : memref<4xf32>
      %t = bufferization.to_tensor %a : memref<4xf32> to tensor<4xf32>
      %r = memref.reinterpret_cast %a to offset: [0], sizes: [2], strides: [1] : memref<4xf32> to memref<2xf32>
      %e = memref.expand_shape %r [[0, 1]] output_shape [1, 2] : memref<2xf32> into memref<1x2xf32>
      %v = memref.load %e[%c0, %c0] : memref<1x2xf32>
      memref.dealloc %b : memref<4xf32>
      return %t : tensor<4xf32>
    }""".replace("%c0, %c0", "%i, %i").replace(
            "      %v = ", "      %i = arith.constant 0 : index\n      %v = "
        )
    )
    a, b = allocs
    assert a.reason == "escapes-return"  # through to_tensor
    assert b.eligible and (b.start, b.end) == (2, 3)  # never used: live at its alloc
    assert a.end == 10  # through reinterpret_cast, expand_shape, the load, to the return


def test_scf_if_yield_and_while_carry_aliases():
    lt, allocs = _one("""
    func.func @f(%c: i1, %n: index, %out: memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      %r = scf.if %c -> memref<4xf32> {
        scf.yield %a : memref<4xf32>
      } else {
        scf.yield %out : memref<4xf32>
      }
      %w = scf.while (%m = %r) : (memref<4xf32>) -> memref<4xf32> {
        scf.condition(%c) %m : memref<4xf32>
      } do {
      ^bb0(%m2: memref<4xf32>):
        scf.yield %m2 : memref<4xf32>
      }
      memref.copy %w, %out : memref<4xf32> to memref<4xf32>
      memref.dealloc %a : memref<4xf32>
      return
    }""")
    (a,) = allocs
    # Live through the if, the while and the copy of the while's result.
    assert a.eligible, a.reasons
    assert (a.start, a.end) == (1, 9)  # the copy of the while's result is point 8


def test_unknown_user_is_live_until_dealloc():
    _, (a,) = _one("""
    func.func @f() {
      %a = memref.alloc() : memref<4xf32>
      "test.touch"(%a) : (memref<4xf32>) -> ()
      %c = arith.constant 0 : index
      %d = arith.constant 1 : index
      memref.dealloc %a : memref<4xf32>
      return
    }""")
    assert a.reason == "unknown-user"
    assert (a.start, a.end) == (1, 6)


def test_dynamic_size_expression_and_hoisting():
    lt, allocs = _one("""
    func.func @f(%x: memref<?x8xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?x8xf32>
      %a = memref.alloc(%n) : memref<?x8xf32>
      memref.dealloc %a : memref<?x8xf32>
      return
    }""")
    (a,) = allocs
    assert a.bytes is None and a.size == "32 * %dim"
    assert a.eligible
    assert sorted(lt.dynamic_slices[0]) == [int(lt.op[0]) - 2, int(lt.op[0]) - 1]


def test_reason_helpers():
    assert primary(bit("escapes-call") | bit("no-dealloc")) == "escapes-call"
    assert names(bit("alloca") | bit("memory-space")) == ["alloca", "memory-space"]
    assert primary(0) is None
    assert len(set(REASONS)) == len(REASONS)


def test_peak_live_half_open():
    # [0,2) and [2,4) never overlap; [1,3) overlaps both.
    assert peak_live(np.array([0, 2]), np.array([2, 4]), np.array([10, 20])) == 20
    assert peak_live(np.array([0, 2, 1]), np.array([2, 4, 3]), np.array([10, 20, 5])) == 25
    assert peak_live(np.array([3]), np.array([3]), np.array([7])) == 7


def test_report_json_round_trip(tmp_path):
    with ir.Context():
        module = parse_source(open(MLP).read(), "mlp.mlir")
        memplan.run_pipeline(
            module,
            "builtin.module(one-shot-bufferize{bufferize-function-boundaries "
            "function-boundary-type-conversion=identity-layout-map}, buffer-deallocation-pipeline,"
            " func.func(optimize-allocation-liveness))",
        )
        path = tmp_path / "mlp.json"
        memplan.run_pipeline(
            module, f"builtin.module(memplan-buffer-liveness{{format=json output={path}}})"
        )
    doc = load_report(str(path))
    (func,) = doc["functions"]
    assert func["peak_live_bytes"] == 16384 and func["total_alloc_bytes"] == 18432
    assert func["pool"]["size"] == func["pool"]["lower_bound"] == 16384
    assert [a["reason"] for a in func["allocations"]] == [None, None, "escapes-return"]
    assert "liveness @mlp: 3 allocations, 2 eligible" in format_text(doc)


def test_cli_report_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "timeline.png"
    assert memplan_main(["report", MLP, "--bufferize", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "peak_live_bytes = 16384" in out
    assert png.stat().st_size > 10_000
    assert memplan_main(["report", MLP, "--bufferize", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["functions"][0]["name"] == "mlp"
    assert memplan_main(["report", str(tmp_path / "missing.json")]) == 1
    assert memplan_main([]) == 1  # no subcommand: a bad command line, exit 1


def test_analysis_of_long_chains():
    # How long it takes is bench/bench_scaling.py's; here, that a 20,000-op
    # chain is analyzed whole: every buffer understood, one interval each.
    with ir.Context():
        for n in (2_000, 20_000):
            graph = extract_graph(parse_source(chain(n)))
            lt = analyze_function(graph, function_ids(graph)[0])
            assert lt.eligible.all() and len(lt) >= n - 1


def test_branch_group_shares_one_interval():
    lt, allocs = _one("""
    func.func @f(%c: i1, %x: memref<8xf32>, %out: memref<8xf32>) {
      %r = scf.if %c -> (memref<8xf32>) {
        %a = memref.alloc() : memref<8xf32>
        memref.copy %x, %a : memref<8xf32> to memref<8xf32>
        scf.yield %a : memref<8xf32>
      } else {
        %b = memref.alloc() : memref<4x2xf32>
        %cb = memref.collapse_shape %b [[0, 1]] : memref<4x2xf32> into memref<8xf32>
        memref.copy %x, %cb : memref<8xf32> to memref<8xf32>
        scf.yield %cb : memref<8xf32>
      }
      memref.copy %r, %out : memref<8xf32> to memref<8xf32>
      memref.dealloc %r : memref<8xf32>
      return
    }""")
    (group,) = lt.groups
    assert group.rows == (0, 1) and all(a.eligible for a in allocs)
    assert {(a.start, a.end) for a in allocs} == {(1, 10)}  # the scf.if to the copy
    assert lt.peak_live_bytes == 32  # one of the two at a time


ROLES = """
func.func @f(%src: memref<16xf32>, %t: tensor<4xf32>, %i: i1) -> index {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  %s = memref.alloca() : memref<16xf32>
  gpu.memcpy %a, %src : memref<16xf32>, memref<16xf32>
  %cl = bufferization.clone %a : memref<16xf32> to memref<16xf32>
  %sel = arith.select %i, %a, %cl : memref<16xf32>
  %sub = memref.subview %a[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %p = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %d = memref.dim %a, %c0 : memref<16xf32>
  %e = tensor.extract %t[%c0] : tensor<4xf32>
  memref.store %e, %a[%c0] : memref<16xf32>
  %v = scf.if %i -> (memref<16xf32>) {
    scf.yield %a : memref<16xf32>
  } else {
    scf.yield %cl : memref<16xf32>
  }
  scf.forall (%k) in (2) {
  }
  "mydialect.use"(%a) : (memref<16xf32>) -> ()
  %r = memref.realloc %cl : memref<16xf32> to memref<32xf32>
  memref.dealloc %a : memref<16xf32>
  func.call @g(%s) : (memref<16xf32>) -> ()
  return %p : index
}
func.func private @g(memref<16xf32>)
"""


def test_roles_from_interfaces():
    """Roles come from MLIR's interfaces (memory effects, view-like, call,
    region-branch, parallel region, function), not op names; ops without
    effects information, and pure ops turning a buffer into an integer, are
    unknown users; scf.if's yields forward to its results."""
    from memplan.lifetimes import roles as K

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        g = extract_graph(parse_source(ROLES))
        seen: dict[str, str] = {}
        for op in range(g.num_ops):
            seen.setdefault(g.names[g.op_name[op]], K.describe(int(g.op_role[op])))
        assert seen == {
            "builtin.module": "other",
            "func.func": "func",
            "arith.constant": "access",
            "memref.alloc": "alloc",
            "memref.alloca": "alloca",
            "gpu.memcpy": "access",
            "bufferization.clone": "access+heap-copy",
            "arith.select": "alias",
            "memref.subview": "alias",
            "memref.extract_aligned_pointer_as_index": "other",
            "memref.dim": "access",
            "tensor.extract": "access",
            "memref.store": "access",
            "scf.if": "branch+capture+sequential+exclusive+one-runs",  # it has an else
            "scf.yield": "terminator",
            "scf.forall": "parallel+capture",
            "scf.forall.in_parallel": "other+capture",  # no region-branch terminator
            "mydialect.use": "other",
            "memref.realloc": "other",
            "memref.dealloc": "dealloc",
            "func.call": "call",
            "func.return": "return",
        }
        if_op = next(op for op in range(g.num_ops) if g.names[g.op_name[op]] == "scf.if")
        yields = [op for op in range(g.num_ops) if g.names[g.op_name[op]] == "scf.yield"]
        result = int(g.result_begin[if_op])
        assert [list(K.flows(g, y, 0)) for y in yields] == [[result], [result]]
        assert list(K.flows(g, if_op, 0)) == []  # the condition goes nowhere
