"""The numerics checker on the kinds of programs real models are made of.

Each test is a small program that reproduces one problem seen on real models
(issue #12): ``i1`` masks, importer ``cf.assert``s, allocations in an
``scf.for``, tensor programs that write their argument, memplan's default
(inferred-layout) function boundaries, scalar and ``.npy`` inputs, several
results, strided arguments, token ids used as positions, size queries of
transient storage, and the checker's own speed-ups (loop order, outlining,
one compilation per module) giving the same bits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir import execution_engine, ir

import memplan
from memplan.ir import parse_source
from memplan.numerics import compare, execute
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION

WORKLOADS = Path(__file__).resolve().parents[3] / ".." / "shared" / "workloads"


def bufferize(text: str, pipeline: str = UPSTREAM_BUFFERIZATION) -> str:
    """``text`` after a (memplan or upstream) pipeline, as text."""
    with ir.Context():
        module = parse_source(text, "input.mlir")
        memplan.run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memplan.cli.check", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout
    assert 0 <= proc.returncode < 128


# -- i1 and other sub-byte element types ------------------------------------------

MASK = """
func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<6xi1>, tensor<6xf32>) {
  %e = tensor.empty() : tensor<6xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xi1>) {
  ^bb0(%x: f32, %y: f32, %o: i1):
    %c = arith.cmpf olt, %x, %y : f32
    linalg.yield %c : i1
  } -> tensor<6xi1>
  %e2 = tensor.empty() : tensor<6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%m, %a, %b : tensor<6xi1>, tensor<6xf32>, tensor<6xf32>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%c: i1, %x: f32, %y: f32, %o: f32):
    %r = arith.select %c, %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  return %m, %s : tensor<6xi1>, tensor<6xf32>
}
"""


def test_i1_mask_values():
    a = np.array([1, 5, -2, 0, 3, -1], np.float32)
    b = np.array([2, 4, -3, 0, 9, 0], np.float32)
    out = execute(MASK, "main", inputs=[a, b]).outputs
    np.testing.assert_array_equal(out[0].data, a < b)
    assert out[0].data.dtype == np.bool_
    np.testing.assert_array_equal(out[1].data, np.minimum(a, b))


def test_i1_mask_bufferized_against_tensor_program():
    result = compare(MASK, bufferize(MASK), "main")
    assert result.ok, str(result)
    assert result.outputs == 4  # two results, two arguments


def test_sub_byte_memrefs_load_and_store():
    text = """
    func.func @main(%m: memref<4xi1>, %n: memref<3xi4>, %v: i1) -> (i1, i4) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      memref.store %v, %m[%c1] : memref<4xi1>
      %x = memref.load %m[%c2] : memref<4xi1>
      %q = memref.load %n[%c2] : memref<3xi4>
      %k = arith.constant -3 : i4
      memref.store %k, %n[%c1] : memref<3xi4>
      return %x, %q : i1, i4
    }"""
    run = execute(
        text, "main", inputs=[np.array([0, 0, 1, 0], bool), np.array([1, 2, 15], np.uint8), True]
    )
    assert bool(run.outputs[0].data) is True and int(run.outputs[1].data) == 15
    np.testing.assert_array_equal(run.outputs[2].data, [False, True, True, False])
    np.testing.assert_array_equal(run.outputs[3].data, [1, 13, 15])  # -3 as i4, zero-extended
    assert compare(text, text, "main").ok


# -- cf.assert -------------------------------------------------------------------

ASSERTING = """
func.func @main(%x: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %nz = arith.cmpf one, %v, %zero : f32
    cf.assert %nz, "variance must not be zero"
    %r = arith.divf %v, %v : f32
    memref.store %r, %out[%i] : memref<4xf32>
  }
  return
}
"""


def test_asserts_compared_by_message_and_count_not_location():
    x = np.array([1, 0, 2, 0], np.float32)
    # Same program, but the assert sits on another line in after.
    after = "\n\n\n" + ASSERTING
    result = compare(ASSERTING, after, "main", inputs=[x, np.zeros(4, np.float32)])
    assert result.ok, str(result)
    assert result.assert_counts_before == {"variance must not be zero": 2}
    assert result.assert_counts_after == {"variance must not be zero": 2}
    assert result.asserts_before[0].startswith("<before>:10:")
    assert result.asserts_after[0].startswith("<after>:13:")
    assert "assertion failed 2 times: 'variance must not be zero'" in str(result)


def test_asserts_firing_differently_is_a_mismatch():
    fewer = ASSERTING.replace("%nz = arith.cmpf one, %v, %zero : f32", "%nz = arith.constant true")
    x = np.array([1, 0, 2, 0], np.float32)
    result = compare(ASSERTING, fewer, "main", inputs=[x, np.zeros(4, np.float32)])
    assert not result.ok
    assert result.mismatch is None  # same values
    assert result.assert_counts_after == {}
    assert "failed assertions differ" in str(result)


def test_cli_reports_asserts(tmp_path):
    path = tmp_path / "a.mlir"
    path.write_text(ASSERTING)
    x = tmp_path / "x.npy"
    np.save(x, np.array([0, 0, 2, 0], np.float32))
    proc = check(str(path), str(path), "--entry", "main", "--input", f"0={x}")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "both: assertion failed 3 times: 'variance must not be zero'" in proc.stdout


# -- scf.for with allocations, tensor programs, layouts -----------------------------

LOOP = """
func.func @main(%h0: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<3x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %ys0 = tensor.empty() : tensor<3x4x8xf32>
  %r:2 = scf.for %t = %c0 to %c3 step %c1 iter_args(%h = %h0, %ys = %ys0) -> (tensor<4x8xf32>, tensor<3x4x8xf32>) {
    %e = tensor.empty() : tensor<4x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %g = linalg.matmul ins(%h, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
    %hn = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<4x8xf32>) outs(%h : tensor<4x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.tanh %x : f32
      linalg.yield %y : f32
    } -> tensor<4x8xf32>
    %ys1 = tensor.insert_slice %hn into %ys[%t, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<4x8xf32> into tensor<3x4x8xf32>
    scf.yield %hn, %ys1 : tensor<4x8xf32>, tensor<3x4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<3x4x8xf32>
}
"""


def test_loop_with_allocations_after_upstream_bufferization():
    memref_level = bufferize(LOOP)
    assert "bufferization.clone" in memref_level or "scf.for" in memref_level
    result = compare(LOOP, memref_level, "main", seed=2)
    assert result.ok, str(result)
    h0 = np.random.default_rng(0).uniform(-1, 1, (4, 8)).astype(np.float32)
    w = np.random.default_rng(1).uniform(-1, 1, (8, 8)).astype(np.float32)
    out = execute(memref_level, "main", inputs=[h0, w]).outputs
    h = h0
    for t in range(3):
        h = np.tanh((h.astype(np.float64) @ w)).astype(np.float32)
        np.testing.assert_allclose(out[1].data[t], h, rtol=1e-5, atol=1e-5)


INSERT = """
func.func @main(%a: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %r = tensor.insert %v into %a[%c1] : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_tensor_insert_into_argument_and_return():
    run = execute(INSERT, "main", inputs=[np.zeros(4, np.float32), 2.5])
    np.testing.assert_array_equal(run.outputs[0].data, [0, 2.5, 0, 0])
    result = compare(INSERT, bufferize(INSERT), "main")
    assert result.ok, str(result)


def test_inferred_layout_boundaries_compare_as_values():
    # memplan's default bufferization: function boundaries get fully dynamic
    # layouts, memref<4x8xf32, strided<[?, ?], offset: ?>>.
    inferred = bufferize(LOOP, "memplan-one-shot-bufferize{bufferize-function-boundaries}")
    assert "strided<[?, ?], offset: ?>" in inferred
    result = compare(LOOP, inferred, "main")
    assert result.ok, str(result)
    inferred = bufferize(INSERT, "memplan-one-shot-bufferize{bufferize-function-boundaries}")
    assert compare(INSERT, inferred, "main").ok


def test_static_strided_arguments_compare_by_element():
    plain = """
    func.func @main(%x: memref<2x3xf32>, %y: memref<2x3xf32>) {
      memref.copy %x, %y : memref<2x3xf32> to memref<2x3xf32>
      return
    }"""
    strided = """
    func.func @main(%x: memref<2x3xf32, strided<[5, 1], offset: 2>>, %y: memref<2x3xf32>) {
      memref.copy %x, %y : memref<2x3xf32, strided<[5, 1], offset: 2>> to memref<2x3xf32>
      return
    }"""
    assert compare(plain, strided, "main").ok
    wrong = strided.replace(
        "memref.copy %x, %y",
        "linalg.transpose ins(%x : memref<2x3xf32, strided<[5, 1], offset: 2>>) outs(%y : memref<2x3xf32>) permutation = [0, 1]\n      // ",
    )
    assert compare(plain, wrong, "main").ok  # the identity permutation: same values
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    run = execute(strided, "main", inputs=[x, np.zeros((2, 3), np.float32)])
    np.testing.assert_array_equal(run.outputs[1].data, x.reshape(-1))


def test_several_results_and_scalars():
    text = """
    func.func @main(%x: memref<3xf32>, %s: f32, %k: i32) -> (f32, i32, memref<3xf32>) {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<3xf32>
      %p = arith.mulf %v, %s : f32
      %q = arith.addi %k, %k : i32
      %m = memref.alloc() : memref<3xf32>
      memref.copy %x, %m : memref<3xf32> to memref<3xf32>
      return %p, %q, %m : f32, i32, memref<3xf32>
    }"""
    run = execute(text, "main", values={1: 3.0, 2: 21})
    x = run.outputs[3].data
    assert float(run.outputs[0].data) == np.float32(x[0] * 3.0)
    assert int(run.outputs[1].data) == 42
    np.testing.assert_array_equal(run.outputs[2].data, x)
    result = compare(text, text, "main", values={2: 5})
    assert result.ok and result.outputs == 4


def test_cli_value_input_and_seed(tmp_path):
    text = """
    func.func @main(%x: memref<?xf32>, %s: f32, %n: i64) -> (f32, i64) {
      %c1 = arith.constant 1 : index
      %v = memref.load %x[%c1] : memref<?xf32>
      %p = arith.mulf %v, %s : f32
      return %p, %n : f32, i64
    }"""
    path = tmp_path / "s.mlir"
    path.write_text(text)
    x = tmp_path / "x.npy"
    np.save(x, np.array([0, 2, 4, 6, 8], np.float32))
    proc = check(
        str(path),
        str(path),
        "--entry",
        "main",
        "--value",
        "1=1.5",
        "--value",
        "2=7",
        "--input",
        f"0={x}",
        "--seed",
        "4",
    )
    no_traceback(proc)
    assert proc.returncode == 0 and proc.stdout.startswith("OK"), proc.stdout + proc.stderr
    run = execute(text, "main", values={0: np.load(x), 1: 1.5, 2: 7})
    assert float(run.outputs[0].data) == 3.0 and int(run.outputs[1].data) == 7
    # A seed changes the random inputs.
    a = execute(text, "main", seed=1, dims={"*": 3}).outputs[2].data
    b = execute(text, "main", seed=2, dims={"*": 3}).outputs[2].data
    assert a.shape == (3,) and not np.array_equal(a, b)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--value", "x=1"], "invalid --value"),
        (["--input", "0"], "invalid --input"),
    ],
)
def test_cli_bad_flags(args, message):
    path = str(Path(__file__).parents[1] / "inputs" / "numerics" / "two_buffers.mlir")
    proc = check(path, path, "--entry", "main", *args)
    assert proc.returncode == 1 and message in proc.stderr


def test_cli_bad_inputs_are_diagnostics(tmp_path):
    path = str(Path(__file__).parents[1] / "inputs" / "numerics" / "two_buffers.mlir")
    proc = check(path, path, "--entry", "main", "--input", f"0={tmp_path / 'missing.npy'}")
    no_traceback(proc)
    assert proc.returncode == 1 and "cannot read" in proc.stderr
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((2, 2), np.float32))
    proc = check(path, path, "--entry", "main", "--input", f"0={wrong}")
    no_traceback(proc)
    assert proc.returncode == 1 and "argument #0" in proc.stderr
    proc = check(path, path, "--entry", "main", "--value", "9=1")
    no_traceback(proc)
    assert proc.returncode == 1 and "no argument %arg9" in proc.stderr


def test_untranslatable_op_is_a_diagnostic(tmp_path):
    path = tmp_path / "u.mlir"
    path.write_text("""
    func.func @main(%x: memref<4xf32>) {
      %t = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
      memref.copy %x, %t : memref<4xf32> to memref<4xf32, #gpu.address_space<workgroup>>
      return
    }""")
    proc = check(str(path), str(path), "--entry", "main")
    no_traceback(proc)
    assert proc.returncode == 1 and "memory space" in proc.stderr


def test_undefined_function_is_a_diagnostic(tmp_path):
    path = tmp_path / "ext.mlir"
    path.write_text("""
    func.func private @external(memref<4xf32>)
    func.func @main(%x: memref<4xf32>) {
      call @external(%x) : (memref<4xf32>) -> ()
      return
    }""")
    proc = check(str(path), str(path), "--entry", "main")
    no_traceback(proc)
    assert proc.returncode == 1 and "unresolved symbols" in proc.stderr


def test_complex_arithmetic_is_lowered():
    text = """
    func.func @main(%x: memref<2xcomplex<f32>>) -> complex<f32> {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<2xcomplex<f32>>
      %w = complex.mul %v, %v : complex<f32>
      return %w : complex<f32>
    }"""
    x = np.array([1 + 2j, 0], np.complex64)
    assert execute(text, "main", inputs=[x]).outputs[0].data == np.complex64(-3 + 4j)


# -- inputs that respect the IR ---------------------------------------------------


def test_index_arguments_stay_in_bounds():
    text = """
    func.func @main(%m: memref<5xf32>, %i: index, %n: index) -> (f32, index) {
      %v = memref.load %m[%i] : memref<5xf32>
      %a = memref.alloc(%n) : memref<?xf32>
      memref.dealloc %a : memref<?xf32>
      return %v, %n : f32, index
    }"""
    for seed in range(12):
        run = execute(text, "main", seed=seed)
        n = int(run.outputs[1].data)
        assert 1 <= n <= 7
    assert int(execute(text, "main", dims={2: 3}).outputs[1].data) == 3


def test_token_ids_index_inside_the_table():
    # As in BERT/GPT-2 imports: i64 ids, cast to index, used to gather rows.
    text = """
    func.func @main(%ids: tensor<16xi64>, %table: tensor<3x2xf32>) -> tensor<16x2xf32> {
      %e = tensor.empty() : tensor<16x2xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%ids : tensor<16xi64>) outs(%e : tensor<16x2xf32>) {
      ^bb0(%id: i64, %o: f32):
        %i = arith.index_cast %id : i64 to index
        %j = linalg.index 1 : index
        %x = tensor.extract %table[%i, %j] : tensor<3x2xf32>
        linalg.yield %x : f32
      } -> tensor<16x2xf32>
      return %r : tensor<16x2xf32>
    }"""
    run = execute(text, "main", seed=3)
    ids = run.outputs[1].data
    assert ids.min() >= 0 and ids.max() <= 2 and len(set(ids.tolist())) > 1
    np.testing.assert_array_equal(run.outputs[0].data, run.outputs[2].data.reshape(3, 2)[ids])
    assert compare(text, bufferize(text), "main").ok


# -- transient storage -------------------------------------------------------------


def test_transient_storage_is_sized_by_its_query():
    before = bufferize(LOOP, UPSTREAM_BUFFERIZATION + ",memplan-add-transient-storage{func=main}")
    after = bufferize(before, "memplan-transients")
    assert "memplan.transients" in after
    result = compare(before, after, "main")
    assert result.ok, str(result)
    assert result.heap_after.allocations < result.heap_before.allocations


# -- the checker's own speed-ups keep the bits -------------------------------------

KERNELS = """
func.func @main(%a: tensor<6x20xf32>, %b: tensor<20x7xf32>, %img: tensor<1x3x9x9xf32>, %f: tensor<4x3x3x3xf32>)
    -> (tensor<6x7xf32>, tensor<1x4x7x7xf32>, tensor<6xf32>, tensor<6x20xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x20xf32>, tensor<20x7xf32>) outs(%z : tensor<6x7xf32>) -> tensor<6x7xf32>
  %ec = tensor.empty() : tensor<1x4x7x7xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %cv = linalg.conv_2d_nchw_fchw ins(%img, %f : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%zc : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %er = tensor.empty() : tensor<6xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<6x20xf32>) outs(%zr : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %ei = tensor.empty() : tensor<6x20xf32>
  %pos = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%ei : tensor<6x20xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    linalg.yield %kf : f32
  } -> tensor<6x20xf32>
  return %mm, %cv, %sum, %pos : tensor<6x7xf32>, tensor<1x4x7x7xf32>, tensor<6xf32>, tensor<6x20xf32>
}
"""


def test_loop_order_and_outlining_keep_the_bits(monkeypatch):
    import memplan.numerics.lowering as lowering

    fast = execute(KERNELS, "main", seed=1)
    a, b, img, f = (fast.outputs[i].data for i in range(4, 8))
    a, b = a.reshape(6, 20), b.reshape(20, 7)
    np.testing.assert_allclose(fast.outputs[0].data, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(fast.outputs[3].data, np.add.outer(np.arange(6), np.arange(20)))
    monkeypatch.setattr(lowering, "hoist_reductions", lambda module: 0)
    monkeypatch.setattr(lowering, "outline_generics", lambda module: 0)
    plain = execute(KERNELS, "main", seed=1)
    for x, y in zip(fast.outputs, plain.outputs):
        assert x.data.tobytes() == y.data.tobytes(), x.name


def test_each_module_is_compiled_once(monkeypatch):
    built = []
    real = execution_engine.ExecutionEngine

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(execution_engine, "ExecutionEngine", counting)
    result = compare(LOOP, bufferize(LOOP), "main")  # poison: 4 runs
    assert result.ok and len(built) == 2


def test_wide_fpowi_exponent_compiles():
    # GPT-2's GELU: x^3 with an i64 exponent (LLVM's powi takes a C int; a
    # vectorized i64 powi was a fatal code generation error).
    text = """
    func.func @main(%x: memref<8xf32>, %n: i64) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      scf.for %i = %c0 to %c8 step %c1 {
        %v = memref.load %x[%i] : memref<8xf32>
        %y = math.fpowi %v, %n : f32, i64
        memref.store %y, %x[%i] : memref<8xf32>
      }
      return
    }"""
    run = execute(text, "main", inputs=[np.full(8, 2, np.float32), 3])
    np.testing.assert_array_equal(run.outputs[0].data, np.full(8, 8, np.float32))


# -- a real model, when the workloads are there ------------------------------------


def test_lstm_workload_reuse_output():
    path = WORKLOADS / "lstm_scf_for.mlir"
    if not path.exists():
        pytest.skip(f"workloads not found at {WORKLOADS} (CI keeps shared/ beside the clone)")
    text = path.read_text()
    before = bufferize(text)
    after = bufferize(before, "memplan-buffer-reuse")
    result = compare(before, after, "forward")
    assert result.ok, str(result)
    assert result.heap_after.allocations < result.heap_before.allocations


#: cf.switch, which upstream's buffer-deallocation-pipeline rejects ("Terminators
#: with more than one successor are not supported"): ^bb1 is three of its
#: successors, with other tensors on each edge.
SWITCH = """
func.func @main(%i: i32, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.exp ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %b = linalg.negf ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  cf.switch %i : i32, [
    default: ^bb1(%a, %b : tensor<8xf32>, tensor<8xf32>),
    0: ^bb1(%b, %x : tensor<8xf32>, tensor<8xf32>),
    1: ^bb2(%x : tensor<8xf32>),
    2: ^bb1(%x, %a : tensor<8xf32>, tensor<8xf32>)
  ]
^bb1(%m: tensor<8xf32>, %k: tensor<8xf32>):
  %e2 = tensor.empty() : tensor<8xf32>
  %n = linalg.sub ins(%m, %k : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %f = linalg.mul ins(%n, %m : tensor<8xf32>, tensor<8xf32>) outs(%n : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
^bb2(%z: tensor<8xf32>):
  %g = linalg.exp ins(%z : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %g : tensor<8xf32>
}
"""


@pytest.mark.parametrize("case", [0, 1, 2, 3])
def test_reference_without_frees_where_upstream_deallocation_rejects_it(case):
    # The reference runs without frees, said in its form; its values are
    # compared all the same (memplan's pipeline frees them itself).
    with ir.Context():
        module = parse_source(SWITCH)
        memplan.run_pipeline(module, "builtin.module(memplan-memory-pipeline)")
        planned = str(module)
    result = compare(SWITCH, planned, "main", values={0: case}, reference="memplan")
    assert result.ok, str(result)
    assert "without frees: upstream's buffer-deallocation-pipeline rejected it" in (
        result.form_before
    )
    assert "Terminators with more than one successor" in result.form_before
    assert result.heap_before.frees == 0 and result.heap_after.frees > 0
