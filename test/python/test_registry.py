"""memplan's passes in MLIR's own pass registry: importing memplan registers
them, so plain ``PassManager.parse`` pipelines (no memplan API) run them."""

import subprocess
import sys
import textwrap

import pytest
from mlir import ir, passmanager

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
        passmanager.PassManager.parse("builtin.module(memplan-buffer-reuse{alignment=abc})",
                                      ir.Context())
    with pytest.raises(ValueError, match="no such option nope"):
        passmanager.PassManager.parse("builtin.module(memplan-memory-pipeline{nope=1})", ir.Context())


def test_module_pass_rejected_inside_func():
    # Like upstream's module passes: anchored on builtin.module.
    with pytest.raises(ValueError, match="restricted to 'builtin.module'"):
        passmanager.PassManager.parse("builtin.module(func.func(memplan-buffer-reuse))", ir.Context())


def test_pass_failure_is_a_pipeline_failure():
    bad = "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = \"test.unknown\"(%a) : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n"
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(bad)
        pm = passmanager.PassManager.parse("builtin.module(memplan-one-shot-bufferize)")
        with pytest.raises(ir.MLIRError) as err:
            pm.run(module.operation)
    assert ":2:8: op was not bufferized" in str(err.value)


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
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
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
    info = next(i for i in memplan.passes.registered_passes() if i.argument == "memplan-one-shot-bufferize")
    with ir.Context():
        module = ir.Module.parse(TENSOR_FN)
        values = info.resolve_options({"bufferize_function_boundaries": True,
                                       "test_analysis_only": analysis_only})
        ctx = memplan.passes.execute(info, values, module.operation)
        assert not ctx.failed
        assert ctx.preserves_all_analyses == analysis_only
        assert ("__inplace_operands_attr__" in str(module)) == analysis_only
