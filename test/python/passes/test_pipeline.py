"""The pass registry and mixed pipelines, through the Python API."""

import re

import pytest
from mlir import ir, passmanager

import memplan
import memplan.passes
from memplan.ir import parse_source
from memplan.passes.pipeline import PipelineError, parse_pipeline

TENSOR_FN = """
#id = affine_map<(d0) -> (d0)>
func.func @double(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %y : tensor<8xf32>
}
"""


def test_mlir_parses_mixed_pipelines(ctx):
    pm = parse_pipeline("builtin.module(canonicalize, memplan-test-print-graph, func.func(cse))")
    assert (
        str(pm)
        == "builtin.module(canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},memplan-test-print-graph{stream=stdout},func.func(cse))"
    )


@pytest.mark.parametrize(
    "pipeline, message",
    [
        (
            "builtin.module(memplan-nope)",
            "'memplan-nope' does not refer to a registered pass or pass pipeline",
        ),
        # An unknown option: MLIR's pass option parser, MLIR's words.
        ("builtin.module(memplan-test-print-graph{bad=1})", "no such option bad"),
        (
            "builtin.module(canonicalize",
            "expected pass pipeline to be wrapped with the anchor operation type",
        ),
        # Written without the anchor, a pipeline is an error, as in mlir-opt.
        (
            "canonicalize,memplan-test-print-graph",
            "expected pass pipeline to be wrapped with the anchor operation type",
        ),
        # memplan's passes run on builtin.module: not moved out of func.func.
        (
            "builtin.module(func.func(memplan-test-print-graph))",
            "restricted to 'builtin.module' on a PassManager intended to run on 'func.func'",
        ),
    ],
)
def test_pipeline_errors(pipeline, message):
    with ir.Context():
        with pytest.raises(PipelineError, match=re.escape(message)):
            parse_pipeline(pipeline)


def test_python_api_pass_in_pass_manager(ctx, capsys):
    module = parse_source(TENSOR_FN, "double.mlir")
    pm = passmanager.PassManager("builtin.module")
    pm.add("one-shot-bufferize{bufferize-function-boundaries}")
    p = memplan.passes.test_print_graph(stream="stdout")
    p.add_to(pm)
    pm.run(module)
    out = capsys.readouterr().out
    assert "graph @double" in out and "memref.alloc" in out
    assert "tensor.empty" not in out  # it ran after bufferization


def test_run_pipeline_matches_registry(ctx, capsys):
    module = parse_source(TENSOR_FN, "double.mlir")
    ran = memplan.run_pipeline(
        module, "builtin.module(memplan-test-print-graph{stream=stdout}, canonicalize)"
    )
    assert [p.info.argument for p in ran] == ["memplan-test-print-graph"]
    assert "tensor.empty" in capsys.readouterr().out


def test_unknown_python_pass_name():
    with pytest.raises(AttributeError):
        memplan.passes.no_such_pass
    with pytest.raises(ValueError, match="must be one of"):
        memplan.passes.test_print_graph(stream="file")


def test_upstream_error_is_reported(ctx):
    module = parse_source(TENSOR_FN, "double.mlir")
    with pytest.raises(PipelineError, match="does not refer to a registered pass"):
        memplan.run_pipeline(module, "builtin.module(not-a-pass)")


def test_failing_pass_raises_with_location(ctx):
    from memplan.passes import MemplanPass, PassInfo

    def fail(op, pass_ctx):
        pass_ctx.error(op.regions[0].blocks[0].operations[0], "cannot plan this")

    info = PassInfo("memplan-test-fail", "fails", "", (), run=fail)
    module = parse_source(TENSOR_FN, "double.mlir")
    pm = passmanager.PassManager("builtin.module")
    MemplanPass(info, {}).add_to(pm)
    with pytest.raises(ir.MLIRError) as err:
        pm.run(module)
    diag = err.value.error_diagnostics[0]
    assert diag.message == "cannot plan this"
    assert str(diag.location).startswith('loc("double.mlir":3:1)')
