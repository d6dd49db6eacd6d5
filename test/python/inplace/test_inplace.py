"""memplan-one-shot-bufferize and the in-place explanation API.

The differential tests run upstream ``mlir-opt --one-shot-bufferize`` (the
oracle) and memplan's pass on the same input and require byte-identical
annotated IR.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from typing import Optional

import pytest
from mlir import ir
from progs.randprog import random_program

import memplan
from memplan.inplace import InplaceAnalysisError, analyze
from memplan.inplace.options import MIN_COPY_BYTES_ORDERS, order_name
from memplan.ir.parse import parse_source

MLIR_OPT = os.path.join(
    list(importlib.util.find_spec("mlir").submodule_search_locations)[0], "bin", "mlir-opt"
)


def upstream(text: str, options: str) -> tuple[int, str]:
    p = subprocess.run(
        [MLIR_OPT, "-", f"--one-shot-bufferize={options}"],
        input=text,
        capture_output=True,
        text=True,
    )
    return p.returncode, p.stdout


def ours(text: str, options: str) -> tuple[int, str]:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(text, "<stdin>", ctx)
        try:
            memplan.run_pipeline(module, f"builtin.module(memplan-one-shot-bufferize{{{options}}})")
        except ir.MLIRError:
            return 1, ""
        return 0, str(module) + "\n"


OPTION_SETS = [
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops",
    "bufferize-function-boundaries test-analysis-only",
    "test-analysis-only allow-return-allocs-from-loops dump-alias-sets",
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops analysis-heuristic=top-down",
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops "
    "analysis-heuristic=bottom-up-from-terminators dump-alias-sets",
    "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops "
    "analysis-heuristic=fuzzer analysis-fuzzer-seed=11",
]


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_match_upstream(seed):
    text = random_program(seed, n_ops=14)
    options = OPTION_SETS[seed % len(OPTION_SETS)]
    rc_up, out_up = upstream(text, options)
    rc_us, out_us = ours(text, options)
    assert rc_us == rc_up
    if rc_up == 0:
        assert out_us == out_up


def test_random_programs_without_calls_and_loops():
    for seed in range(100, 110):
        text = random_program(seed, n_ops=20, loops=False, calls=False)
        options = "test-analysis-only dump-alias-sets"
        assert ours(text, options) == upstream(text, options)


def test_incremental_check_matches_upstream():
    """The engine's incremental pair check (only the pairs a decision
    creates) against upstream's full one, on larger programs."""
    for seed in range(200, 215):
        text = random_program(seed, n_ops=18)
        opts = "bufferize-function-boundaries test-analysis-only allow-return-allocs-from-loops"
        assert ours(text, opts) == upstream(text, opts)


SIMPLE = """
func.func @f(%A: tensor<8xf32>, %B: tensor<8xf32> {bufferization.writable = false}, %i: index)
    -> (tensor<8xf32>, tensor<8xf32>, f32) {
  %c = arith.constant 0.0 : f32
  %r = linalg.fill ins(%c : f32) outs(%A : tensor<8xf32>) -> tensor<8xf32>
  %x = tensor.extract %A[%i] : tensor<8xf32>
  %r2 = linalg.fill ins(%c : f32) outs(%B : tensor<8xf32>) -> tensor<8xf32>
  return %r, %r2, %x : tensor<8xf32>, tensor<8xf32>, f32
}
"""


def test_analyze_api(ctx):
    module = parse_source(SIMPLE, "simple.mlir")
    before = str(module)
    result = analyze(module, bufferize_function_boundaries=True)
    assert str(module) == before  # the IR is not touched
    copies = result.copies
    assert [(c.op, c.operand) for c in copies] == [("linalg.fill", 1), ("linalg.fill", 1)]
    raw, ro = copies
    assert raw.conflict is not None
    assert raw.conflict.definition.name == "%arg0"
    assert raw.conflict.write.location == "simple.mlir:5:8"
    assert raw.conflict.read.op == "tensor.extract"
    assert raw.conflict.read.location == "simple.mlir:6:8"
    assert raw.copy_bytes == 32
    assert ro.conflict is None and [v.name for v in ro.non_writable] == ["%arg1"]
    data = json.loads(result.to_json())
    assert len(data["operands"]) == len(result.operands)
    assert data["alias_sets"] and data["equivalence_sets"]
    text = result.explain_text()
    assert (
        "conflicting write: simple.mlir:5:8" in text
        and "read:              simple.mlir:6:8" in text
    )


def test_analyze_one_function(ctx):
    module = parse_source(SIMPLE + SIMPLE.replace("@f", "@g"), "two.mlir")
    g = [
        op
        for op in module.regions[0].blocks[0].operations
        if ir.StringAttr(op.operation.attributes["sym_name"]).value == "g"
    ][0]
    result = analyze(g.operation, bufferize_function_boundaries=True)
    assert {d.function for d in result.operands} == {"g"}


def test_unknown_op_as_upstream(tmp_path):
    """An op that is not bufferizable: test-analysis-only annotates it as an
    unknown op (with or without allow-unknown-ops), as upstream does; the
    rewrite without allow-unknown-ops fails at the op, as upstream's does."""
    src = tmp_path / "u.mlir"
    src.write_text(
        "func.func @u(%t: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = "test.foo"(%t) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    opt = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
    for options in ("test-analysis-only", "test-analysis-only allow-unknown-ops"):
        p = subprocess.run(
            [
                opt,
                str(src),
                "--allow-unregistered-dialect",
                f"--pass-pipeline=builtin.module(memplan-one-shot-bufferize{{{options}}})",
            ],
            capture_output=True,
            text=True,
        )
        up = subprocess.run(
            [MLIR_OPT, str(src), "--allow-unregistered-dialect", f"--one-shot-bufferize={options}"],
            capture_output=True,
            text=True,
        )
        assert p.returncode == 0 and up.returncode == 0
        assert '"test.foo"(%arg0) {__inplace_operands_attr__ = ["false"]}' in p.stdout
        assert p.stdout == up.stdout
    p = subprocess.run(
        [
            opt,
            str(src),
            "--allow-unregistered-dialect",
            "--pass-pipeline=builtin.module(memplan-one-shot-bufferize)",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 1
    assert f"{src}:2:8: error: op was not bufferized" in p.stderr


def _ranking_cost(result) -> tuple[int, int]:
    """(bytes, copies) as min-copy-bytes ranks: a dynamic copy counts 2^40."""
    copies = [c for c in result.copies if c.copy_of is not None and not c.alloc_only]
    return sum((1 << 40) if c.copy_bytes < 0 else c.copy_bytes for c in copies), len(copies)


def test_min_copy_bytes_never_worse_than_bottom_up(ctx):
    for seed in range(20):
        module = parse_source(random_program(seed, n_ops=14, loops=False), "r.mlir")
        base = analyze(module, bufferize_function_boundaries=True)
        best = analyze(
            module, bufferize_function_boundaries=True, analysis_heuristic="min-copy-bytes"
        )
        costs = [(b, c) for _, b, c in best.heuristic_costs if b is not None]
        assert best.heuristic_costs[0][0] == "bottom-up"
        assert best.heuristic_costs[0][1:] == _ranking_cost(base)
        assert _ranking_cost(best) == min(costs) <= _ranking_cost(base)


def test_min_copy_bytes_order_costs_equal_standalone_analyses(ctx):
    """Every ranked order's cost equals that order analyzed alone. On
    call-free IR the orders share the interfaces' answers and checks after
    the first one, so this checks the sharing; programs with calls (which
    analyze each order on its own) are among the seeds too."""
    shared = with_calls = 0
    for seed in range(48):
        text = random_program(500 + seed, n_ops=14, loops=seed % 2 == 0)
        module = parse_source(text, "r.mlir")
        try:
            ranked = analyze(
                module, bufferize_function_boundaries=True, analysis_heuristic="min-copy-bytes"
            )
        except InplaceAnalysisError:
            continue
        for (heuristic, fuzzer_seed), (name, *cost) in zip(
            MIN_COPY_BYTES_ORDERS, ranked.heuristic_costs
        ):
            assert name == order_name(heuristic, fuzzer_seed)
            try:
                alone = analyze(
                    module,
                    bufferize_function_boundaries=True,
                    analysis_heuristic=heuristic,
                    analysis_fuzzer_seed=fuzzer_seed,
                )
            except InplaceAnalysisError:
                assert cost == [None, None], name
                continue
            assert tuple(cost) == _ranking_cost(alone), (seed, name)
        if "func.call" in text:
            with_calls += 1
        else:
            shared += 1
    assert shared >= 5 and with_calls >= 2


def test_explain_cli(tmp_path):
    src = tmp_path / "s.mlir"
    src.write_text(SIMPLE)
    exe = os.path.join(os.path.dirname(sys.executable), "memplan")
    p = subprocess.run([exe, "explain", str(src)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "definition:" in p.stdout and "conflicting write:" in p.stdout and "read:" in p.stdout
    assert "not writable:" in p.stdout
    p = subprocess.run([exe, "explain", str(src), "--json"], capture_output=True, text=True)
    assert json.loads(p.stdout)["operands"]


@pytest.mark.parametrize("seed", range(0, 60, 2))
def test_random_loops_while_forall_match_upstream(seed):
    text = random_program(1000 + seed, n_ops=14, extra=("while", "forall", "materialize"))
    options = OPTION_SETS[(seed // 2) % len(OPTION_SETS)]
    assert ours(text, options) == upstream(text, options)


@pytest.mark.parametrize("seed", range(12))
def test_rewrite_mode_memref_ir_matches_upstream(seed):
    """Without test-analysis-only the bufferized memref IR (allocations,
    copies, everything) is identical to upstream's own run."""
    text = random_program(2000 + seed, n_ops=12, extra=("while", "forall"))
    options = "bufferize-function-boundaries allow-return-allocs-from-loops"
    assert ours(text, options) == upstream(text, options)


NUMERIC = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 3.0 : f32
  %s = tensor.extract_slice %a[4] [8] [1] : tensor<16xf32> to tensor<8xf32>
  %x = tensor.extract %a[%c0] : tensor<16xf32>
  %w = linalg.fill ins(%x : f32) outs(%s : tensor<8xf32>) -> tensor<8xf32>
  %i = tensor.insert_slice %w into %a[4] [8] [1] : tensor<8xf32> into tensor<16xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%i, %a : tensor<16xf32>, tensor<16xf32>) outs(%b : tensor<16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  %k = tensor.insert %f into %a[%c0] : tensor<16xf32>
  return %g, %k : tensor<16xf32>, tensor<16xf32>
}
"""


def test_rewrite_mode_numerics_identical():
    from memplan.numerics import compare

    opts = "bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
    rc1, mine = ours(NUMERIC, opts)
    rc2, theirs = upstream(NUMERIC, opts)
    assert rc1 == rc2 == 0 and mine == theirs
    result = compare(theirs, mine, "main")
    assert result.ok, str(result)


def test_analyze_errors_are_located(ctx):
    from memplan.inplace import InplaceAnalysisError

    ctx.allow_unregistered_dialects = True
    module = parse_source(
        "func.func @u(%t: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = "test.foo"(%t) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n",
        "u.mlir",
    )
    with pytest.raises(
        InplaceAnalysisError, match=r"^u.mlir:2:8: op 'test.foo' is not bufferizable"
    ):
        analyze(module)
    result = analyze(module, allow_unknown_ops=True, bufferize_function_boundaries=True)
    assert [c.op for c in result.copies] == ["test.foo"]


def _upstream_annotations(text: str, options: str) -> Optional[list[tuple[str, int, bool]]]:
    """(op, operand, in place) per tensor operand, in program order, from
    upstream's test-analysis-only annotations (None if upstream fails)."""
    rc, out = upstream(text, options + " test-analysis-only")
    if rc != 0:
        return None
    marks = []
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(out)

        def visit(op: ir.Operation) -> ir.WalkResult:
            if "__inplace_operands_attr__" in op.attributes:
                attr = ir.ArrayAttr(op.attributes["__inplace_operands_attr__"])
                for i, mark in enumerate(ir.StringAttr(a).value for a in attr):
                    if mark != "none":
                        marks.append((op.name, i, mark == "true"))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return marks


@pytest.mark.parametrize("seed", range(16))
def test_analyze_decisions_match_upstream_annotations(seed):
    """analyze()'s decisions (program order) are upstream's
    test-analysis-only annotations, per option set and heuristic."""
    text = random_program(3000 + seed, n_ops=14, extra=("while", "forall"))
    options = OPTION_SETS[seed % len(OPTION_SETS)]
    options = " ".join(
        o for o in options.split() if o not in ("test-analysis-only", "dump-alias-sets")
    )
    kwargs = {}
    for token in options.split():
        key, _, value = token.partition("=")
        kwargs[key.replace("-", "_")] = int(value) if value.isdigit() else (value or True)
    expected = _upstream_annotations(text, options)
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(text, "r.mlir", ctx)
        before = str(module)
        if expected is None:
            with pytest.raises(InplaceAnalysisError):
                analyze(module, **kwargs)
            return
        result = analyze(module, **kwargs)
        assert str(module) == before
        ours = [(d.op, d.operand, d.inplace) for d in result.operands]
    assert ours == expected


def _copies_and_allocs(text: str) -> tuple[int, int, int]:
    """(bytes, count) of the memref.copy ops into a fresh memref.alloc (the
    copies of out-of-place operands; tensor.insert_slice copies into a
    subview), and the number of memref.alloc ops, of bufferized IR."""
    total = count = allocs = 0
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)

        def visit(op: ir.Operation) -> ir.WalkResult:
            nonlocal total, count, allocs
            allocs += op.name == "memref.alloc"
            target = op.operands[1] if op.name == "memref.copy" else None
            if (
                target is not None
                and isinstance(target.owner, ir.OpView)
                and target.owner.operation.name == "memref.alloc"
            ):
                t = ir.MemRefType(target.type)
                count += 1
                total += (
                    t.element_type.width // 8 * math.prod(t.shape)
                    if t.has_static_shape
                    else 1 << 40
                )
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
    return total, count, allocs


def _empty_tensors_with_uses(text: str) -> int:
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(text)
        found = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "tensor.empty" and list(op.results[0].uses):
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return len(found)


@pytest.mark.parametrize("seed", range(12))
def test_copy_costs_match_upstream_bufferization(seed):
    """The engine's per-order copy costs (what min-copy-bytes ranks) are
    upstream's one-shot-bufferize in that order: the number and bytes of its
    copies into new buffers, and every other new buffer is an allocation-only
    copy or a tensor.empty."""
    text = random_program(4000 + seed, n_ops=16, loops=False)
    empties = _empty_tensors_with_uses(text)
    checked = 0
    for heuristic, fuzzer_seed in MIN_COPY_BYTES_ORDERS:
        kwargs = {"analysis_heuristic": heuristic, "analysis_fuzzer_seed": fuzzer_seed}
        options = f"bufferize-function-boundaries analysis-heuristic={heuristic} analysis-fuzzer-seed={fuzzer_seed}"
        rc, out = upstream(text, options)
        with ir.Context() as ctx:
            module = parse_source(text, "r.mlir", ctx)
            if rc != 0:
                with pytest.raises(InplaceAnalysisError):
                    analyze(module, bufferize_function_boundaries=True, **kwargs)
                continue
            result = analyze(module, bufferize_function_boundaries=True, **kwargs)
        nbytes, ncopies, allocs = _copies_and_allocs(out)
        assert _ranking_cost(result) == (nbytes, ncopies)
        assert allocs == empties + len(result.copies)
        checked += 1
    assert checked >= 1
    with ir.Context() as ctx:
        module = parse_source(text, "r.mlir", ctx)
        ranked = analyze(
            module, bufferize_function_boundaries=True, analysis_heuristic="min-copy-bytes"
        )
    assert [name for name, _, _ in ranked.heuristic_costs] == [
        order_name(h, s) for h, s in MIN_COPY_BYTES_ORDERS
    ]
