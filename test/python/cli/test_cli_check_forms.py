"""memplan-check compares a tensor program with its out-params and
transients forms, says how each side was run (which upstream pipeline
bufferized a tensor-level "before"), and checks or saves outputs
(``--expect``, ``--save-outputs``)."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from memplan.numerics import compare, expected_difference
from memplan.passes.pipeline import run_pipeline

CHECK = os.path.join(os.path.dirname(sys.executable), "memplan-check")

TENSOR = """
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<64xf32>, %s: f32) -> (tensor<64xf32>, f32) {
  %e = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%t : tensor<64xf32>) outs(%e2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  %s2 = arith.addf %s, %s : f32
  return %r, %s2 : tensor<64xf32>, f32
}
"""

BUFFERIZE = "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}"
OUT_PARAMS = "buffer-results-to-out-params{modify-public-functions hoist-static-allocs}"


def rewrite(text: str, pipeline: str) -> str:
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(text)
        run_pipeline(module, f"builtin.module({pipeline})")
        return str(module)


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("forms")
    out_params = rewrite(TENSOR, f"{BUFFERIZE},{OUT_PARAMS},buffer-deallocation-pipeline")
    transients = rewrite(out_params, "memplan-add-transient-storage{func=main},memplan-transients")
    # A broken out-params form: the second kernel accumulates into the
    # out-param it never initialized.
    broken = out_params.replace("arith.mulf %in, %arg1", "arith.addf %in, %out", 1)
    assert broken != out_params
    paths = {}
    for name, text in (
        ("tensor", TENSOR),
        ("out", out_params),
        ("transients", transients),
        ("broken", broken),
    ):
        paths[name] = folder / f"{name}.mlir"
        paths[name].write_text(text)
    return paths


def check(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHECK, *map(str, args)], capture_output=True, text=True, timeout=300, **kwargs
    )


@pytest.mark.parametrize(
    "before, after",
    [
        ("tensor", "out"),
        ("tensor", "transients"),
        ("out", "tensor"),
        ("out", "transients"),
        ("transients", "tensor"),
    ],
)
def test_forms_compare(forms, before, after):
    p = check(forms[before], forms[after], "--entry", "main")
    assert p.returncode == 0 and p.stdout.startswith("OK: 3 outputs identical"), p.stdout + p.stderr
    lines = p.stdout.splitlines()

    def form(name: str, other: str) -> str:
        if name == "tensor":  # memplan-check's default reference bufferization
            return (
                "tensor level, bufferized here by memplan's upstream-identical "
                "memplan-one-shot-bufferize"
            )
        # The out-params are a difference only against the tensor form.
        text = "memref level, run as given" + (
            "; results as out-params %arg2" if other == "tensor" else ""
        )
        if name == "transients":
            text += "; transient storage %arg3 (256 bytes, from @main_transient_size)"
        return text

    assert lines[1].startswith(f"  before: {form(before, after)}"), lines[1]
    assert lines[2].startswith(f"  after:  {form(after, before)}"), lines[2]


def test_tensor_before_names_its_pipeline(forms):
    line = check(forms["tensor"], forms["out"], "--entry", "main").stdout.splitlines()[1]
    assert "buffer-deallocation-pipeline" in line and "not optimize-allocation-liveness" in line


def test_broken_out_param_form_is_caught(forms):
    p = check(forms["tensor"], forms["broken"], "--entry", "main")
    assert p.returncode == 1 and p.stdout.startswith("MISMATCH")
    assert "result #0 (memref<64xf32>)" in p.stdout
    assert "after reads uninitialized memory" in p.stdout


def test_forms_that_are_not_one_program():
    a = "func.func @f(%x: memref<4xf32>) -> memref<4xf32> { return %x : memref<4xf32> }"
    b = "func.func @f(%x: memref<4xf32>, %y: memref<8xf32>) { return }"
    result = compare(a, b, "f")
    assert not result.ok and result.mismatch.kind == "signature"
    assert "not before's memref results as out-params" in str(result)


def test_expect_and_save_outputs(forms, tmp_path):
    x = np.linspace(-1, 1, 64).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", (x + x) * np.float32(0.5))
    np.save(tmp_path / "wrong.npy", (x + x) * np.float32(0.25))
    out = tmp_path / "out"
    p = check(
        forms["tensor"],
        forms["transients"],
        "--entry",
        "main",
        "--input",
        f"arg0={tmp_path / 'x.npy'}",
        "--value",
        "1=0.5",
        "--expect",
        tmp_path / "y.npy",
        "--save-outputs",
        out,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "expect result0 = " in p.stdout and "(bit for bit): before and after match" in p.stdout
    np.testing.assert_array_equal(np.load(out / "result0.npy"), (x + x) * np.float32(0.5))
    assert float(np.load(out / "result1.npy")) == 1.0
    np.testing.assert_array_equal(np.load(out / "arg0.npy"), x)
    p = check(
        forms["tensor"],
        forms["out"],
        "--entry",
        "main",
        "--input",
        f"0={tmp_path / 'x.npy'}",
        "--value",
        "1=0.5",
        "--expect",
        f"result0={tmp_path / 'wrong.npy'}",
    )
    # The first line is the verdict; the largest errors say how far off it is.
    assert p.returncode == 1 and p.stdout.startswith(
        "MISMATCH: an output differs from --expect"
    ), p.stdout
    assert (
        "expect result0 = " in p.stdout
        and "(bit for bit): MISMATCH: before and after: 64 of 64 "
        "elements differ; largest absolute error 0.5 at [0] (-1.0, expected -0.5)"
        in p.stdout
    ), p.stdout


def test_bad_expect_and_save_arguments(forms, tmp_path):
    (tmp_path / "file").write_text("")
    for args, needle in (
        (["--expect", "nope=x.npy"], "invalid --expect 'nope=x.npy'"),
        (["--expect", str(tmp_path / "missing.npy")], "cannot read"),
        (["--save-outputs", str(tmp_path / "file")], "Not a directory"),
        (["--rtol", "-1"], "tolerances are numbers >= 0"),
        (["--rtol", "nan"], "tolerances are numbers >= 0"),
    ):
        p = check(forms["tensor"], forms["out"], "--entry", "main", *args)
        assert p.returncode == 1 and needle in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_expected_difference():
    a = np.array([1.0, 2.0, np.nan], np.float32)
    assert expected_difference(a, a.copy()) is None
    assert expected_difference(a, a.astype(np.float64)) is None
    assert "at [1] (2.0, expected 2.5)" in expected_difference(
        a, np.array([1.0, 2.5, np.nan], np.float32)
    )
    # With a tolerance: the count, and the largest absolute and relative
    # errors with where they are (not the first element that differs).
    got = np.array([[1.0, 100.0], [0.001, 5.0]], np.float32)
    want = np.array([[1.1, 100.5], [0.002, 5.0]], np.float32)
    text = expected_difference(got, want, rtol=1e-4, atol=1e-5)
    assert text.startswith("3 of 4 elements differ; largest absolute error 0.5 at [0, 1]"), text
    assert "largest relative error 0.5 at [1, 0] (0.001" in text, text
    assert expected_difference(a, np.array([1.0, 2.0001, np.nan]), rtol=1e-3) is None
    assert "shape" in expected_difference(a, a[:2])


#: Loads at an index the caller gives: out of bounds for a large one.
GATHER = """
func.func @main(%x: memref<4xf32>, %i: index) -> f32 {
  %v = memref.load %x[%i] : memref<4xf32>
  return %v : f32
}
"""


def test_verdict_into_a_closed_pipe(forms):
    # `memplan-check ... | head` whose reader left before the verdict: exit 1
    # without a word (no BrokenPipeError traceback, no signal).
    p = subprocess.Popen(
        [CHECK, str(forms["tensor"]), str(forms["out"]), "--entry", "main", "-v"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdout.close()  # the reader goes away
    err = p.stderr.read().decode()
    assert p.wait() == 1 and err == "", err


def test_a_crash_of_after_in_its_own_process_is_reported_as_one(tmp_path):
    # AFTER reads 10^11 elements further on: it crashes in the second process
    # (--jobs 2), and the error says which side, as with --jobs 1.
    before, after = tmp_path / "before.mlir", tmp_path / "after.mlir"
    before.write_text(GATHER)
    after.write_text(
        GATHER.replace(
            "%v = memref.load %x[%i]",
            "%far = arith.constant 100000000000 "
            ": index\n  %j = arith.addi %i, %far : index\n"
            "  %v = memref.load %x[%j]",
        )
    )
    for jobs in ("2", "1"):
        p = check(before, after, "--entry", "main", "--value", "1=2", "--jobs", jobs)
        assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
        assert (
            "memplan-check: error: after: @main crashed (signal 11, SIGSEGV)" in p.stderr
        ), p.stderr


def test_a_crashing_program_is_an_error_not_a_signal(tmp_path):
    from memplan.numerics import ExecutionCrash, execute

    path = tmp_path / "gather.mlir"
    path.write_text(GATHER)
    p = check(path, path, "--entry", "main", "--value", "1=100000000000")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert (
        "memplan-check: error: before: @main crashed (signal 11, SIGSEGV) on these inputs"
        in p.stderr
    )
    # In bounds the isolated run gives the same answer as an in-process one.
    x = np.arange(4, dtype=np.float32)
    assert float(execute(GATHER, "main", inputs=[x, 2], isolate=True).outputs[0].data) == 2.0
    with pytest.raises(ExecutionCrash, match="SIGSEGV"):
        execute(GATHER, "main", inputs=[x, 10**11], isolate=True)


def test_reference_bufferization_is_stated_and_upstream_can_be_forced(forms):
    # The default reference is memplan's upstream-identical bufferization;
    # --reference upstream runs upstream's pass. Both say which ran, and the
    # same decisions give the same heap traffic and the same verdict.
    runs = {}
    for reference in ("memplan", "upstream"):
        p = check(forms["tensor"], forms["out"], "--entry", "main", "--reference", reference)
        assert p.returncode == 0 and p.stdout.startswith("OK: 3 outputs identical"), p.stdout
        runs[reference] = p.stdout.splitlines()
    assert runs["memplan"][1].startswith(
        "  before: tensor level, bufferized here by memplan's upstream-identical "
        "memplan-one-shot-bufferize{bufferize-function-boundaries"
    )
    assert runs["upstream"][1].startswith(
        "  before: tensor level, bufferized here by upstream one-shot-bufferize{"
    )
    heaps = {
        ref: [line for line in lines if line.startswith("  heap before")]
        for ref, lines in runs.items()
    }
    assert heaps["memplan"] == heaps["upstream"] and heaps["memplan"]
    p = check(forms["tensor"], forms["out"], "--entry", "main", "--reference", "mine")
    assert p.returncode == 1 and "invalid choice: 'mine'" in p.stderr  # usage errors: 1


def test_verbose_prints_phase_times_after_the_verdict(forms):
    p = check(forms["tensor"], forms["transients"], "--entry", "main", "-v")
    assert p.returncode == 0 and p.stdout.startswith("OK: 3 outputs identical"), p.stdout
    lines = p.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  times (s, wall clock;"))
    phases = [line.strip().split(":")[0] for line in lines[start + 1 :]]
    # Each phase: wall-clock seconds, then CPU seconds (its children's included).
    assert "CPU s in all" in lines[start]
    assert all(
        re.fullmatch(r"[^:]+: \d+\.\d\d s, \d+\.\d\d CPU s( \(\d+ runs\))?", line.strip())
        for line in lines[start + 1 :]
    ), lines[start + 1 :]
    # AFTER is compiled and run in a second process (--jobs 2, the default)
    # while BEFORE is, or after it with --jobs 1: the phases say which.
    for name in (
        "before parsing",
        "before bufferization (memplan)",
        "before lowering to loops",
        "before lowering to LLVM",
        "after lowering to LLVM",
        "before JIT compilation",
        "before runs",
        "after JIT compilation (in parallel)",
        "after runs (in parallel)",
        "comparison",
    ):
        assert name in phases, (name, phases)
    serial = check(forms["tensor"], forms["transients"], "--entry", "main", "-v", "--jobs", "1")
    lines_1 = serial.stdout.splitlines()
    start_1 = next(
        i for i, line in enumerate(lines_1) if line.startswith("  times (s, wall clock;")
    )
    assert lines_1[:start_1] == lines[:start]  # the same verdict, forms and heaps
    phases_1 = [line.strip().split(":")[0] for line in lines_1[start_1 + 1 :]]
    assert "after runs" in phases_1 and "after runs (in parallel)" not in phases_1
    # A memref-level AFTER is not bufferized; poison mode runs each side twice.
    assert "after bufferization (memplan)" not in phases
    assert not any(
        line.startswith("  times")
        for line in check(forms["tensor"], forms["out"], "--entry", "main").stdout.splitlines()
    )


#: Upstream's buffer-deallocation-pipeline aborts on this program (an
#: assertion in its ValueComparator: a value forwarded along both edges of
#: two diamonds, written in one of them), after its bufferization succeeds.
DEALLOCATION_ABORTS = """
func.func @main(%a: tensor<8xi24>, %c: i1, %i: index) -> (tensor<8xi24>, tensor<8xi24>) {
  %k = arith.constant 3 : i24
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : tensor<8xi24>)
^bb2:
  %w = tensor.insert %k into %a[%i] : tensor<8xi24>
  cf.br ^bb3(%a : tensor<8xi24>)
^bb3(%m: tensor<8xi24>):
  cf.cond_br %c, ^bb4, ^bb5
^bb4:
  %s = tensor.extract_slice %a[0] [4] [1] : tensor<8xi24> to tensor<4xi24>
  %t = tensor.extract_slice %s[2] [2] [1] : tensor<4xi24> to tensor<2xi24>
  %u = tensor.insert_slice %t into %s[0] [2] [1] : tensor<2xi24> into tensor<4xi24>
  cf.br ^bb6(%a : tensor<8xi24>)
^bb5:
  cf.br ^bb6(%a : tensor<8xi24>)
^bb6(%z: tensor<8xi24>):
  return %a, %m : tensor<8xi24>, tensor<8xi24>
}
"""


@pytest.mark.parametrize("reference", ["upstream", "memplan"])
def test_reference_deallocation_crash_is_not_the_checkers(tmp_path, reference):
    """Where upstream's deallocation of a tensor-level BEFORE aborts, the
    checker does not die with it (it runs in a child): BEFORE runs without
    frees, and the report says so and why. (Upstream's own bufferization
    writes %a in place, in ^bb2 or through the slice in ^bb4, and returns the
    written value: a miscompile memplan's analysis avoids, so the upstream
    reference and memplan's output differ on both paths.)"""
    before = tmp_path / "before.mlir"
    before.write_text(DEALLOCATION_ABORTS)
    after = tmp_path / "after.mlir"
    after.write_text(rewrite(DEALLOCATION_ABORTS, "memplan-memory-pipeline"))
    for c in ("0", "1"):
        proc = subprocess.run(
            [
                CHECK,
                str(before),
                str(after),
                "--entry",
                "main",
                "--value",
                f"1={c}",
                "--value",
                "2=1",
                "--reference",
                reference,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        lines = proc.stdout.splitlines()
        if reference == "upstream":
            assert proc.returncode == 1, proc.stdout + proc.stderr
            assert lines[0] == "MISMATCH" and lines[1].startswith("  result #0"), proc.stdout
        else:
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert lines[0].startswith("OK: 3 outputs identical"), proc.stdout
        assert (
            "without frees: upstream's buffer-deallocation-pipeline died (signal 6) "
            "before it reported"
        ) in proc.stdout, proc.stdout
        assert "Assertion" not in proc.stderr, proc.stderr
