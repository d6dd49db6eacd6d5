"""memplan's passes in MLIR's own pass registry: importing memplan registers
them, so plain ``PassManager.parse`` pipelines (no memplan API) run them."""

import subprocess
import sys
import textwrap

import pytest
from mlir import ir, passmanager
from test_import_graph import START_UP_MODULES

import memplan
import memplan.passes
from memplan import _core

TENSOR_FN = """
func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %0 = tensor.insert %cst into %a[%c0] : tensor<8xf32>
  %1 = tensor.extract %a[%c0] : tensor<8xf32>
  %2 = tensor.insert %1 into %b[%c0] : tensor<8xf32>
  return %0, %2 : tensor<8xf32>, tensor<8xf32>
}
"""


def _run_parsed(text: str, pipeline: str) -> str:
    with ir.Context():
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(pipeline).run(module.operation)
        return str(module)


def _run_memplan(text: str, pipeline: str) -> str:
    with ir.Context():
        module = ir.Module.parse(text)
        memplan.run_pipeline(module, pipeline)
        return str(module)


def test_every_pass_and_pipeline_is_registered():
    for info in memplan.passes.registered_passes():
        assert _core.is_registered_pass(info.argument), info.argument
    assert not _core.is_registered_pass("memplan-no-such-pass")


def test_plain_pass_manager_runs_memplan_passes():
    # One memplan pass between upstream ones, and a pipeline alias, parsed by
    # MLIR: the same IR as memplan's own pipeline runner.
    for pipeline in (
        "builtin.module(canonicalize,memplan-one-shot-bufferize{bufferize-function-boundaries},cse)",
        "builtin.module(memplan-memory-pipeline{alignment=128})",
    ):
        ours = _run_parsed(TENSOR_FN, pipeline)
        assert "memref" in ours and "tensor<8xf32>" not in ours
        assert ours == _run_memplan(TENSOR_FN, pipeline)


def test_bad_option_fails_to_parse():
    with pytest.raises(ValueError, match="option 'alignment' expects int, got 'abc'"):
        passmanager.PassManager.parse(
            "builtin.module(memplan-buffer-reuse{alignment=abc})", ir.Context()
        )
    with pytest.raises(ValueError, match="no such option nope"):
        passmanager.PassManager.parse(
            "builtin.module(memplan-memory-pipeline{nope=1})", ir.Context()
        )


def test_module_pass_rejected_inside_func():
    # Like upstream's module passes: anchored on builtin.module.
    with pytest.raises(ValueError, match="restricted to 'builtin.module'"):
        passmanager.PassManager.parse(
            "builtin.module(func.func(memplan-buffer-reuse))", ir.Context()
        )


#: Two functions that each share one tensor.empty between two writers.
TWO_WRITERS = """
func.func @NAME(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %x = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %y = linalg.mul ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %x, %y : tensor<16xf32>, tensor<16xf32>
}
"""

#: The passes on functions, as a pipeline.
ON_FUNCTIONS = "memplan-split-destinations,memplan-recompute-cheap-values,memplan-fold-transposes"


def _functions(count: int) -> str:
    return "".join(TWO_WRITERS.replace("NAME", f"f{i}") for i in range(count))


def test_passes_on_functions_run_per_function_on_threads():
    # Nested in func.func, the pass manager runs a pass on functions once per
    # function, on its threads (memplan.run_pipeline releases the GIL; each
    # run takes it): the same IR as the pass on the whole module, and the
    # clones' statistics merge (each clone declares the same ones).
    text = _functions(16)
    whole = _run_memplan(text, f"builtin.module({ON_FUNCTIONS})")
    assert whole.count("tensor.empty") == 32
    for _ in range(3):
        with ir.Context() as ctx:
            ctx.enable_multithreading(True)
            module = ir.Module.parse(text)
            runs = memplan.run_pipeline(module, f"builtin.module(func.func({ON_FUNCTIONS}))")
            assert str(module) == whole
        split = [r for r in runs if r.info.argument == "memplan-split-destinations"]
        assert len(split) == 16 and all(r.statistics["split-destinations"][0] == 2 for r in split)


def test_passes_on_functions_under_a_gil_holding_pass_manager():
    # PassManager.run holds the GIL: a memplan pass on a worker thread fails
    # with a located error saying so, instead of waiting for the GIL forever;
    # without multithreading, the same pipeline runs on the calling thread.
    text = _functions(8)
    whole = _run_memplan(text, "builtin.module(memplan-split-destinations)")
    with ir.Context() as ctx:
        module = ir.Module.parse(text)
        pm = passmanager.PassManager.parse("builtin.module(func.func(memplan-split-destinations))")
        with pytest.raises(ir.MLIRError, match="on a worker thread while the Python thread"):
            pm.run(module.operation)
        ctx.enable_multithreading(False)
        module = ir.Module.parse(text)
        pm.run(module.operation)
        assert str(module) == whole


def test_pass_on_functions_reports_only_declared_statistics():
    # Clones' statistics are merged by position: a pass on functions that
    # reports a statistic it did not declare fails with a located error.
    def run(_op, _values, _run_pipeline):
        return True, [("declared", "", 1), ("undeclared", "", 1)], True

    assert _core.register_pass(
        "memplan-test-undeclared-statistic",
        "MemplanTestUndeclaredStatistic",
        "test",
        [],
        lambda _values: "",
        run,
        on_functions=True,
        statistics=[("declared", "a declared statistic")],
    )
    with ir.Context():
        module = ir.Module.parse(TWO_WRITERS.replace("NAME", "f"))
        pm = passmanager.PassManager.parse("builtin.module(memplan-test-undeclared-statistic)")
        with pytest.raises(ir.MLIRError, match="statistic 'undeclared' is not declared"):
            pm.run(module.operation)


def test_pass_on_functions_is_not_scheduled_elsewhere():
    # A module or a function, nothing else (upstream's function passes).
    loop = """
    func.func @f(%n: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
      }
      return
    }
    """
    with ir.Context():
        module = ir.Module.parse(loop)
        pm = passmanager.PassManager.parse(
            "builtin.module(func.func(scf.for(memplan-split-destinations)))"
        )
        with pytest.raises(
            ir.MLIRError, match="unable to schedule pass 'MemplanSplitDestinationsPass'"
        ):
            pm.run(module.operation)


def test_pass_failure_is_a_pipeline_failure():
    bad = 'func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = "test.unknown"(%a) : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n'
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(bad)
        pm = passmanager.PassManager.parse("builtin.module(memplan-one-shot-bufferize)")
        with pytest.raises(ir.MLIRError) as err:
            pm.run(module.operation)
    assert ":2:8: op was not bufferized" in str(err.value)


def test_import_registers_every_pass_without_importing_pass_modules():
    # memplan-opt's start-up: importing memplan (and the driver's module)
    # declares every pass in MLIR's registry from memplan.passes.declarations
    # alone. No pass module, nothing of numpy, of mlir.ir's Python layer
    # (which imports numpy) or of dataclasses is imported; a pass' module is
    # imported when it first runs. A pass module or a heavy import reached
    # from memplan/__init__.py fails this: declare the pass in
    # memplan/passes/declarations.py with run="module:function".
    script = textwrap.dedent("""
        import sys
        import memplan.cli.opt
        from memplan import _core
        from memplan.passes.declarations import ALGORITHMS
        assert _core.is_registered_pass("memplan-memory-pipeline")
        assert _core.is_registered_pass("memplan-buffer-reuse")
        print(" ".join(sorted(sys.modules)))
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert {m for m in loaded if m.startswith("memplan")} == START_UP_MODULES
    heavy = {"numpy", "mlir.ir", "mlir.passmanager", "dataclasses", "matplotlib"}
    assert not heavy & loaded, heavy & loaded


def test_every_declared_pass_body_and_description_resolves():
    # The "module:function" of each declaration names a callable, and a
    # description left to the module's docstring is not empty: a typo there
    # would only show when the pass first runs.
    for info in memplan.passes.registered_passes():
        if info.is_pipeline:
            assert info.run is None and callable(info.expand), info.argument
            continue
        assert callable(info.runner()), info.argument
        assert info.description.strip(), info.argument
        assert info.summary and "\n" not in info.summary, info.argument


def test_first_use_from_two_threads():
    # Registration happens once, under a lock, when memplan is imported: two
    # threads starting pipelines at once both find every pass.
    script = textwrap.dedent("""
        import threading
        from mlir import ir
        import memplan
        errors = []
        def work():
            try:
                with ir.Context():
                    m = ir.Module.parse('func.func @f() { return }')
                    memplan.run_pipeline(m, 'builtin.module(memplan-buffer-liveness{format=none})')
            except Exception as e:
                errors.append(repr(e))
        ts = [threading.Thread(target=work) for _ in range(2)]
        [t.start() for t in ts]; [t.join() for t in ts]
        print(errors)
    """)
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("preserved", [False, True])
def test_pass_that_preserves_all_analyses_is_not_verified_again(preserved):
    # A pass reporting that it preserved every analysis (memplan's
    # test-analysis-only annotation) tells the pass manager the IR did not
    # change, so MLIR skips its verifier after the pass; otherwise the
    # verifier runs. The pass breaks the IR to show which happened.
    argument = f"memplan-test-break-ir-{'preserved' if preserved else 'changed'}"

    def run(op, _options, _run_pipeline):
        func = op.regions[0].blocks[0].operations[0]
        func.attributes["function_type"] = ir.StringAttr.get("not a type")
        return True, [], preserved

    assert _core.register_pass(argument, argument, "test", [], lambda _text: "", run)
    with ir.Context():
        module = ir.Module.parse(TENSOR_FN)
        pm = passmanager.PassManager.parse(f"builtin.module({argument})")
        if preserved:
            pm.run(module.operation)
        else:
            with pytest.raises(ir.MLIRError, match="function_type"):
                pm.run(module.operation)


@pytest.mark.parametrize("analysis_only", [False, True])
def test_one_shot_annotation_preserves_all_analyses(analysis_only):
    # test-analysis-only only adds discardable attributes; bufferization
    # rewrites the IR.
    info = next(
        i for i in memplan.passes.registered_passes() if i.argument == "memplan-one-shot-bufferize"
    )
    with ir.Context():
        module = ir.Module.parse(TENSOR_FN)
        values = info.resolve_options(
            {"bufferize_function_boundaries": True, "test_analysis_only": analysis_only}
        )
        ctx = memplan.passes.execute(info, values, module.operation)
        assert not ctx.failed
        assert ctx.preserves_all_analyses == analysis_only
        assert ("__inplace_operands_attr__" in str(module)) == analysis_only


def test_hooks_get_the_values_mlir_parsed():
    # MLIR parses the options (hexadecimal, braces, choices) and the hooks
    # get typed values: nothing reads the text again.
    seen = []

    def check(values):
        seen.append(("check", list(values)))
        return "" if dict(values)["n"] != 13 else "n may not be 13"

    def run(_op, values, _run_pipeline):
        seen.append(("run", list(values)))
        return True, [], True

    options = [
        ("flag", "bool", "false", "a flag", []),
        ("n", "int", "7", "a number", []),
        ("u", "uint64", "0", "a wide number", []),
        ("s", "str", "x", "a string", []),
        ("c", "str", "b", "a choice", ["a", "b"]),
    ]
    assert _core.register_pass(
        "memplan-test-typed-options", "MemplanTestTypedOptions", "test", options, check, run
    )
    with ir.Context():
        module = ir.Module.parse("func.func @f() { return }")
        passmanager.PassManager.parse(
            "builtin.module(memplan-test-typed-options{flag n=0x10 "
            "u=18446744073709551615 s={a b} c=a})"
        ).run(module.operation)
        with pytest.raises(ValueError, match="n may not be 13"):
            passmanager.PassManager.parse("builtin.module(memplan-test-typed-options{n=13})")
        with pytest.raises(ValueError, match="option 'c' must be one of a, b; got 'z'"):
            passmanager.PassManager.parse("builtin.module(memplan-test-typed-options{c=z})")
    expected = [("flag", True), ("n", 16), ("u", 2**64 - 1), ("s", "a b"), ("c", "a")]
    assert seen[:2] == [("check", expected), ("run", expected)]
    assert [type(v) for _, v in seen[1][1]] == [bool, int, int, str, str]
    # The same parse from Python, defaults for what is not given.
    assert _core.parse_pass_options("memplan-test-typed-options", "n=-3") == [
        ("flag", False),
        ("n", -3),
        ("u", 0),
        ("s", "x"),
        ("c", "b"),
    ]


def test_statistics_saturate_at_32_bits(tmp_path):
    # MLIR's pass statistics are 32-bit unsigned counters: 2^33 bytes of
    # allocations are counted as 2^32 - 1, not wrapped around.
    src = tmp_path / "big.mlir"
    src.write_text(
        "func.func @f() {\n  %0 = memref.alloc() : memref<8589934592xi8>\n"
        "  memref.dealloc %0 : memref<8589934592xi8>\n  return\n}\n"
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "memplan.cli.opt",
            str(src),
            "--mlir-pass-statistics",
            "--pass-pipeline=builtin.module(memplan-buffer-liveness{format=none})",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "(S) 4294967295 total-alloc-bytes" in r.stderr, r.stderr
