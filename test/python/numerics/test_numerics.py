"""Tests of the numerics checker (memplan.numerics) and memplan-check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

from memplan.numerics import (
    DEFAULT_DIM,
    CompareResult,
    HeapStats,
    compare,
    execute,
)

INPUTS = Path(__file__).parents[1] / "inputs" / "numerics"


def src(name: str) -> str:
    return (INPUTS / name).read_text()


# -- identity rewrites pass ---------------------------------------------------


def test_identity_tensor_level():
    text = src("tensor_chain.mlir")
    result = compare(text, text, "main")
    assert isinstance(result, CompareResult)
    assert result.ok, str(result)
    assert result.mismatch is None and result.uninitialized == []
    assert result.outputs == 4  # two returned tensors + two arguments
    # The two result buffers (4x8xf32 and 4xf32) are handed to the caller.
    assert result.heap_before.total_bytes == 4 * 8 * 4 + 4 * 4
    assert result.heap_before.live_at_exit == 4 * 8 * 4 + 4 * 4
    assert str(result).startswith("OK")


def test_tensor_level_values_are_right():
    a = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    b = np.linspace(2, -2, 32, dtype=np.float32).reshape(4, 8)
    out = execute(src("tensor_chain.mlir"), "main", inputs=[a, b]).outputs
    expected = a * b + np.exp(a)
    np.testing.assert_allclose(out[0].data, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[1].data, expected.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_identity_memref_level():
    text = src("two_buffers.mlir")
    result = compare(text, text, "main", seed=5)
    assert result.ok, str(result)
    assert result.heap_before == result.heap_after
    assert (result.heap_before.allocations, result.heap_before.frees) == (2, 2)


def test_modules_are_not_mutated():
    ctx = ir.Context()
    before = ir.Module.parse(src("tensor_chain.mlir"), ctx)
    after = ir.Module.parse(src("tensor_chain.mlir"), ir.Context())  # other context
    text_b, text_a = str(before), str(after)
    assert compare(before, after, "main").ok
    assert str(before) == text_b and str(after) == text_a
    assert "llvm.emit_c_interface" not in str(before)


# -- wrong rewrites fail ------------------------------------------------------


def test_swapped_buffers_mismatch():
    x = np.arange(16, dtype=np.float32) * 0.5
    result = compare(
        src("two_buffers.mlir"),
        src("two_buffers_swapped.mlir"),
        "main",
        inputs=[x, np.zeros(16, np.float32)],
    )
    assert not result.ok
    m = result.mismatch
    assert m is not None and m.kind == "value"
    # Outputs: no results, then arg #0 (%in, untouched) and arg #1 (%out).
    assert m.output == 1
    assert m.output_name.startswith("arg #1")
    # before computes 2x - (x + 1) = x - 1, after (x + 1) - 2x = 1 - x:
    # they agree only where x == 1 (element 2).
    assert m.flat_index == 0
    assert m.before == np.float32(-1.0) and m.after == np.float32(1.0)
    assert m.before_bits == "bf800000" and m.after_bits == "3f800000"
    assert (m.count, m.size) == (15, 16)
    assert result.uninitialized == []
    text = str(result)
    assert text.startswith("MISMATCH") and "element 0" in text and "arg #1" in text


def test_clobbered_input_argument_is_a_mismatch():
    before = """
    func.func @main(%in: memref<4xf32>, %out: memref<4xf32>) {
      memref.copy %in, %out : memref<4xf32> to memref<4xf32>
      return
    }"""
    # Same %out, but uses %in as scratch space on the way.
    after = """
    func.func @main(%in: memref<4xf32>, %out: memref<4xf32>) {
      %c2 = arith.constant 2 : index
      %z = arith.constant 0.0 : f32
      memref.copy %in, %out : memref<4xf32> to memref<4xf32>
      memref.store %z, %in[%c2] : memref<4xf32>
      return
    }"""
    result = compare(before, after, "main")
    assert not result.ok
    assert result.mismatch.output == 0 and result.mismatch.flat_index == 2
    assert result.mismatch.after == 0.0


def test_signature_mismatch():
    a = "func.func @f(%x: memref<4xf32>) { return }"
    b = "func.func @f(%x: memref<8xf32>) { return }"
    result = compare(a, b, "f")
    assert not result.ok and result.mismatch.kind == "signature"


def test_missing_entry():
    with pytest.raises(KeyError, match="no func.func @nope"):
        compare(src("uninit.mlir"), src("uninit.mlir"), "nope")


# -- poison -------------------------------------------------------------------


def test_poison_exposes_uninitialized_read():
    text = src("uninit.mlir")
    result = compare(text, text, "main")
    assert not result.ok
    assert result.mismatch is None  # same program, same poison: same bits
    assert [p.module for p in result.uninitialized] == ["before", "after"]
    problem = result.uninitialized[0]
    assert problem.kind == "uninitialized"
    assert problem.output == 0 and problem.flat_index == 0
    assert problem.before_bits == "ffffffff" and problem.after_bits == "5a5a5a5a"
    assert problem.count == 8
    assert "reads uninitialized memory" in str(result)
    # Without poisoning the garbage is deterministic (zeroed) and not seen.
    assert compare(text, text, "main", poison=False).ok


def test_poison_flags_only_the_guilty_module():
    # after forgets to initialize its temporary before accumulating into it.
    good = """
    func.func @main(%in: memref<8xf32>, %out: memref<8xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %z = arith.constant 0.0 : f32
      %t = memref.alloc() : memref<8xf32>
      linalg.fill ins(%z : f32) outs(%t : memref<8xf32>)
      scf.for %i = %c0 to %c8 step %c1 {
        %x = memref.load %in[%i] : memref<8xf32>
        %a = memref.load %t[%i] : memref<8xf32>
        %s = arith.addf %a, %x : f32
        memref.store %s, %t[%i] : memref<8xf32>
      }
      memref.copy %t, %out : memref<8xf32> to memref<8xf32>
      memref.dealloc %t : memref<8xf32>
      return
    }"""
    bad = good.replace("linalg.fill ins(%z : f32) outs(%t : memref<8xf32>)", "")
    result = compare(good, bad, "main")
    assert not result.ok
    assert [p.module for p in result.uninitialized] == ["after"]
    assert result.mismatch is not None and result.mismatch.output == 1


def test_poison_exposes_use_after_free():
    text = """
    func.func @main(%in: memref<4xf32>, %out: memref<4xf32>) {
      %t = memref.alloc() : memref<4xf32>
      memref.copy %in, %t : memref<4xf32> to memref<4xf32>
      memref.dealloc %t : memref<4xf32>
      memref.copy %t, %out : memref<4xf32> to memref<4xf32>
      return
    }"""
    result = compare(text, text, "main")
    assert [p.module for p in result.uninitialized] == ["before", "after"]


# -- heap figures ---------------------------------------------------------------


@pytest.mark.parametrize("entry, peak", [("sequential", 256), ("nested", 64 + 128 + 256)])
def test_heap_of_a_run_is_exact(entry, peak):
    stats = execute(src("three_allocs.mlir"), entry).heap
    assert isinstance(stats, HeapStats)
    assert stats.allocations == 3
    assert stats.frees == 3
    assert stats.total_bytes == 448
    assert stats.peak_bytes == peak
    assert stats.live_at_exit == 0 and stats.invalid_frees == 0


def test_dropped_alignment_is_still_honoured():
    text = """
    func.func @main() -> index {
      %m = memref.alloc() {alignment = 256 : i64} : memref<3xf32>
      %p = memref.extract_aligned_pointer_as_index %m : memref<3xf32> -> index
      %c256 = arith.constant 256 : index
      %r = arith.remui %p, %c256 : index
      memref.dealloc %m : memref<3xf32>
      return %r : index
    }"""
    run = execute(text, "main")
    assert int(run.outputs[0].data) == 0
    assert run.heap.total_bytes == 12  # not rounded or padded


# -- scalars, dynamic shapes, control flow -----------------------------------------


def test_scalar_results():
    run = execute(src("scalars.mlir"), "main", inputs=[1.5, 2.25, 4, -7])
    values = [o.data for o in run.outputs]
    assert [o.name for o in run.outputs] == [
        "result #0 (f32)",
        "result #1 (f64)",
        "result #2 (index)",
        "result #3 (i32)",
        "result #4 (i1)",
    ]
    assert values[0].dtype == np.float32 and values[0] == 3.75
    assert values[1].dtype == np.float64 and values[1] == 3.75
    assert values[2] == 12 and values[3] == 49 and values[4] == True  # noqa: E712
    assert execute(src("scalars.mlir"), "one", inputs=[3.0]).outputs[0].data == 9.0
    assert compare(src("scalars.mlir"), src("scalars.mlir"), "main").ok


def test_scalar_result_mismatch():
    a = "func.func @f(%x: f32) -> f32 { return %x : f32 }"
    b = """func.func @f(%x: f32) -> f32 {
      %n = arith.negf %x : f32
      return %n : f32
    }"""
    result = compare(a, b, "f", inputs=[0.0])
    # 0.0 and -0.0 compare equal as floats, but not bit for bit.
    assert not result.ok
    assert result.mismatch.output == 0 and result.mismatch.output_name == "result #0 (f32)"
    assert (result.mismatch.before_bits, result.mismatch.after_bits) == ("00000000", "80000000")


def test_one_ulp_in_a_buffer_is_a_mismatch():
    # 1.0 and the next float up differ in the lowest byte of the element only
    # (little-endian 00 00 80 3f against 01 00 80 3f): bit for bit means
    # every byte of every element.
    def program(value: str) -> str:
        return f"""func.func @f(%out: memref<4xf32>) {{
          %v = arith.constant {value} : f32
          linalg.fill ins(%v : f32) outs(%out : memref<4xf32>)
          return
        }}"""

    result = compare(program("1.0"), program("0x3F800001"), "f")
    assert not result.ok
    assert result.mismatch.count == 4
    assert (result.mismatch.before_bits, result.mismatch.after_bits) == ("3f800000", "3f800001")


def test_dynamic_dims():
    text = """
    #id = affine_map<(d0, d1) -> (d0, d1)>
    func.func @main(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
      %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
      %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
      %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
      ^bb0(%x: f32, %o: f32):
        %y = arith.addf %x, %x : f32
        linalg.yield %y : f32
      } -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }"""
    run = execute(text, "main", dims={(0, 0): 3, (0, 1): 5})
    assert run.outputs[0].shape == (3, 5)
    np.testing.assert_array_equal(run.outputs[0].data, 2 * run.outputs[1].data.reshape(3, 5))
    assert run.heap.total_bytes == 3 * 5 * 4
    assert execute(text, "main", dims={"arg0": 2}).outputs[0].shape == (2, 2)
    assert execute(text, "main").outputs[0].shape == (DEFAULT_DIM, DEFAULT_DIM)
    assert compare(text, text, "main", dims={0: 4}).ok


def test_view_alloca_while_if_assert():
    text = src("control_flow.mlir")
    x = np.array([1.0, -2.0, 3.0], np.float32)
    run = execute(text, "main", inputs=[x, np.zeros(3, np.float32), 5])
    # n = 5 halves 3 times before dropping below 1: scale by 2^3.
    assert int(run.outputs[0].data) == 3
    np.testing.assert_array_equal(run.outputs[2].data, np.abs(x) * 8)
    assert run.failed_asserts == [] and run.heap.total_bytes == 12
    assert compare(text, text, "main", dims={"*": 6}).ok


def test_failed_assert_is_reported_not_fatal():
    text = src("control_flow.mlir")
    result = compare(text, text, "main", dims={0: 3, 1: 4})
    # The same assertion failed once in both: reported, not a mismatch.
    assert result.ok
    assert result.asserts_before == ["<before>:12:3: in and out must have the same length"]
    assert result.assert_counts_before == {"in and out must have the same length": 1}
    assert result.assert_counts_after == result.assert_counts_before
    assert "assertion failed 1 time" in str(result)


# -- memplan-check ------------------------------------------------------------------


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.check", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_ok():
    path = str(INPUTS / "two_buffers.mlir")
    proc = check(path, path, "--entry", "main", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK")
    assert "heap before: 2 allocs, 2 frees, 128 B total" in proc.stdout
    assert "heap after:" in proc.stdout


def test_cli_mismatch():
    proc = check(
        str(INPUTS / "two_buffers.mlir"),
        str(INPUTS / "two_buffers_swapped.mlir"),
        "--entry",
        "main",
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith("MISMATCH")
    assert "arg #1 (memref<16xf32>) (output 1), element 0" in proc.stdout


def test_cli_uninitialized_and_no_poison():
    path = str(INPUTS / "uninit.mlir")
    assert check(path, path, "--entry", "main").returncode == 1
    assert check(path, path, "--entry", "main", "--no-poison").returncode == 0


def test_cli_parse_error(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main() {\n  %x = arith.addf\n}\nfunc.func @g() { return }\n")
    proc = check(str(bad), str(INPUTS / "two_buffers.mlir"), "--entry", "main")
    assert proc.returncode == 1
    assert f"{bad}:2:" in proc.stderr and "error" in proc.stderr


def test_cli_usage_error():
    # A bad command line exits 1 like mlir-opt's (argparse would give 2).
    proc = check(str(INPUTS / "uninit.mlir"), "--entry", "main")
    assert proc.returncode == 1 and "the following arguments are required" in proc.stderr


# -- the reference bufferization ----------------------------------------------


def test_reference_falls_back_to_upstream_where_memplans_fails(monkeypatch):
    # memplan's reference bufferization made to fail (its fuzzer order needs
    # a seed: memplan-one-shot-bufferize's own error): upstream's
    # one-shot-bufferize runs on a fresh copy instead, the program says so
    # and why, and it runs as upstream's reference does.
    from memplan.numerics import lowering
    from memplan.numerics.timing import PhaseTimes

    text = src("tensor_chain.mlir")
    failing = lowering.REFERENCES["memplan"].replace("{", "{analysis-heuristic=fuzzer ", 1)
    monkeypatch.setitem(lowering.REFERENCES, "memplan", failing)
    times = PhaseTimes()
    program = lowering.lower(text, "main", reference="memplan", times=times, label="before")
    assert program.reference.startswith("upstream, as memplan's failed (bufferization failed: ")
    assert "analysis-fuzzer-seed" in program.reference, program.reference
    assert program.bufferization.startswith(lowering.REFERENCES["upstream"] + ",")
    assert list(times.seconds)[:3] == [
        "before copy",
        "before bufferization (memplan)",
        "before bufferization (upstream)",
    ]
    assert times.counts["before copy"] == 2  # the fresh copy upstream's runs on
    fallback = compare(text, text, "main", reference="memplan")
    upstream = compare(text, text, "main", reference="upstream")
    assert fallback.ok and upstream.ok, str(fallback)
    assert "bufferized here by upstream, as memplan's failed" in fallback.form_before
    assert fallback.heap_before.total_bytes == upstream.heap_before.total_bytes
    # Upstream's own failure is not hidden behind a fallback.
    monkeypatch.setitem(lowering.REFERENCES, "upstream", failing)
    with pytest.raises(lowering.LoweringError, match="analysis-fuzzer-seed"):
        lowering.lower(text, "main", reference="upstream")
