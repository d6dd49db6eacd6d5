"""memplan-eliminate-subset-copies (issue #30): producers write into the
subset of the larger tensor they are copied into, checked by running them.

Every rewrite runs before and after through the ExecutionEngine
(``memplan.numerics.compare``: bit for bit, fresh memory poisoned), alone
and through the whole memory pipeline against upstream's. The rewritten IR
bufferizes in place under memplan's in-place analysis and upstream's alike,
and the static peak of the pipeline never goes up.
"""

from __future__ import annotations

import json
import random

import pytest
from mlir import ir
from progs.litcases import lit_cases, rewrite

import memplan
from memplan import numerics
from memplan.cli.main import run as memplan_main
from memplan.ir import parse_source
from memplan.lifetimes.analysis import analyze_module
from memplan.lifetimes.peaks import input_peak
from memplan.passes.pipeline import UPSTREAM_BUFFERIZATION
from memplan.peak.subset_copies import copy_decisions

PASS = "builtin.module(memplan-eliminate-subset-copies)"
MEMORY = "builtin.module(memplan-memory-pipeline)"
WITHOUT = "builtin.module(memplan-memory-pipeline{eliminate-subset-copies=false})"
UPSTREAM = f"builtin.module({UPSTREAM_BUFFERIZATION})"
ANALYSIS = (
    "bufferize-function-boundaries test-analysis-only "
    "function-boundary-type-conversion=identity-layout-map"
)


def static_peak(memref_text: str) -> int:
    with ir.Context():
        return sum(input_peak(lt) for lt in analyze_module(parse_source(memref_text)))


def check_pipeline(src: str, entry: str, run_without: bool = True) -> tuple[str, str]:
    """The memory pipeline with and without the pass against upstream's: same
    bits (poisoned memory), every buffer freed once, run-time (unless not
    ``run_without``, against the pipeline without the pass) and static peaks
    not above the pipeline without the pass nor above upstream."""
    ours, without, theirs = rewrite(src, MEMORY), rewrite(src, WITHOUT), rewrite(src, UPSTREAM)
    result = numerics.compare(theirs, ours, entry)
    assert result.ok, result
    assert result.heap_after.invalid_frees == 0
    assert result.heap_after.live_at_exit == result.heap_before.live_at_exit
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes
    if run_without:
        base = numerics.compare(without, ours, entry)
        assert base.ok, base
        assert base.heap_after.peak_blocks_bytes <= base.heap_before.peak_blocks_bytes
    assert static_peak(ours) <= min(static_peak(without), static_peak(theirs))
    return ours, without


CASES = [
    c
    for c in lit_cases(
        "peak/eliminate-subset-copies.mlir", "peak/eliminate-subset-copies-remarks.mlir"
    )
    if c.runnable and "bufferization.to_tensor" not in c.text
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_lit_cases_keep_the_numerics(case):
    after = rewrite(case.text, PASS)
    for fn in case.functions:
        result = numerics.compare(case.text, after, fn)
        if any(u.module == "before" for u in result.uninitialized):
            # @reads_undefined reads a tensor.empty: its output means
            # nothing; the pass leaves it as it is.
            assert after == rewrite(case.text, "builtin.module()")
            continue
        assert result.ok, fn
        check_pipeline(case.text, fn)


def test_rewritten_slices_bufferize_in_place_in_memplan_and_upstream():
    # Every insert_slice and extract_slice the pass makes is in place under
    # memplan's analysis, and upstream's One-Shot Analysis annotates the
    # rewritten module exactly as memplan's does.
    text = "\n".join(
        c.text
        for c in CASES
        if "@pad_after_conv" in c.text
        or "@concat_two_producers" in c.text
        or "@pad_of_concat" in c.text
        or "@insert_strided" in c.text
    )
    after = rewrite(text, PASS)
    ours = rewrite(after, f"builtin.module(memplan-one-shot-bufferize{{{ANALYSIS}}})")
    theirs = rewrite(after, f"builtin.module(one-shot-bufferize{{{ANALYSIS}}})")
    assert ours == theirs
    slices = [
        line
        for line in ours.splitlines()
        if "tensor.insert_slice" in line or "tensor.extract_slice" in line
    ]
    assert len(slices) >= 10
    assert all('"false"' not in line for line in slices), slices


def test_idempotent():
    # What the pass makes is no candidate again: the producers now write an
    # extract_slice, not a fresh destination.
    for case in CASES:
        once = rewrite(case.text, PASS)
        assert rewrite(once, PASS) == once, case


def test_remarks_and_statistics_from_python():
    src = next(c.text for c in CASES if "@pad_after_conv" in c.text)
    with ir.Context():
        module = parse_source(src)
        ran = memplan.run_pipeline(module, "builtin.module(memplan-eliminate-subset-copies)")
    stats = {k: v for k, (v, _) in ran[0].statistics.items()}
    assert stats["written-in-place"] == 1 and stats["bytes-saved"] == 2048
    assert stats["modeled-peak-after"] < stats["modeled-peak-before"]


def stem(channels: int = 8, size: int = 16) -> str:
    """A ResNet stem as torch-mlir imports it: a convolution from few
    channels to many accumulates into a zero fill, a ReLU follows, and the
    result is padded for a max pooling of stride 2."""
    x = f"tensor<1x2x{size + 2}x{size + 2}xf32>"
    t = f"tensor<1x{channels}x{size}x{size}xf32>"
    p = f"tensor<1x{channels}x{size + 2}x{size + 2}xf32>"
    o = f"tensor<1x{channels}x{size // 2}x{size // 2}xf32>"
    id4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    return f"""func.func @main(%x: {x}, %w: tensor<{channels}x2x3x3xf32>) -> {o} {{
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : {t}
  %acc = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}
  %c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}}
      ins(%x, %w : {x}, tensor<{channels}x2x3x3xf32>) outs(%acc : {t}) -> {t}
  %e1 = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [{id4}, {id4}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%c : {t}) outs(%e1 : {t}) {{
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  }} -> {t}
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  }} : {t} to {p}
  %eo = tensor.empty() : {o}
  %init = linalg.fill ins(%ninf : f32) outs(%eo : {o}) -> {o}
  %win = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}}
      ins(%p, %win : {p}, tensor<3x3xf32>) outs(%init : {o}) -> {o}
  return %pool : {o}
}}
"""


def test_padded_stem_lowers_the_peak():
    # The stem's output is made in its padded buffer: the peak, the
    # output next to its padded copy, becomes the padded buffer next to the
    # pooling's output, and the outputs are the same bits as upstream's.
    src = stem()
    ours, without = check_pipeline(src, "main")
    assert static_peak(without) == 8192 + 10368
    assert static_peak(ours) == 10368 + 2048 + 64  # the pooling window: one 64-byte block
    assert "tensor.pad" not in rewrite(src, PASS)


# Random programs: chains of elementwise ops (some reading a value again
# before it is overwritten, some reading it after), copied into pads,
# concats and insert_slices, with shared fills and extra readers.
ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def random_subset_program(seed: int) -> str:
    rng = random.Random(seed)
    rows, cols = rng.choice([(4, 4), (4, 8), (8, 4)]), None
    rows, cols = rows
    t = f"tensor<{rows}x{cols}xf32>"
    lines = [
        f"func.func @main(%x: {t}, %y: {t}) -> ({{results}}) {{",
        "  %zero = arith.constant 0.0 : f32",
        "  %one = arith.constant 1.5 : f32",
        f"  %shared = tensor.empty() : {t}",
        f"  %fill = linalg.fill ins(%one : f32) outs(%shared : {t}) -> {t}",
    ]
    values = ["%x", "%y"]
    results: list[tuple[str, str]] = []
    n = 0

    def fresh(stem: str) -> str:
        nonlocal n
        n += 1
        return f"%{stem}{n}"

    def chain() -> str:
        start = rng.choice(values)
        dest = rng.choice(["empty", "fill", "fill-own"])
        if dest == "empty":
            d = fresh("e")
            lines.append(f"  {d} = tensor.empty() : {t}")
        elif dest == "fill":
            d = "%fill"
        else:
            e, d = fresh("e"), fresh("f")
            lines.append(f"  {e} = tensor.empty() : {t}")
            lines.append(f"  {d} = linalg.fill ins(%zero : f32) outs({e} : {t}) -> {t}")
        v = fresh("v")
        op = (
            "linalg.add"
            if dest != "empty"
            else rng.choice(["linalg.exp", "linalg.negf", "linalg.abs"])
        )
        if op == "linalg.add":
            lines.append(f"  {v} = linalg.add ins({start}, {d} : {t}, {t}) outs({d} : {t}) -> {t}")
        else:
            lines.append(f"  {v} = {op} ins({start} : {t}) outs({d} : {t}) -> {t}")
        for _ in range(rng.randint(0, 2)):
            w = fresh("v")
            other = rng.choice(values)
            if rng.random() < 0.3:
                # A reader of the value before it is overwritten.
                r = fresh("r")
                er = fresh("e")
                lines.append(f"  {er} = tensor.empty() : {t}")
                lines.append(f"  {r} = linalg.negf ins({v} : {t}) outs({er} : {t}) -> {t}")
                values.append(r)
            lines.append(f"  {w} = linalg.mul ins({v}, {other} : {t}, {t}) outs({v} : {t}) -> {t}")
            v = w
        values.append(v)
        return v

    for _ in range(rng.randint(2, 4)):
        kind = rng.choice(["pad", "concat", "insert", "pad-concat"])
        if kind == "pad":
            s = chain()
            lo, hi = rng.randint(0, 2), rng.randint(0, 2)
            pt = f"tensor<{rows + 2 * lo}x{cols + lo + hi}xf32>"
            r = fresh("p")
            lines += [
                f"  {r} = tensor.pad {s} low[{lo}, {lo}] high[{lo}, {hi}] {{",
                "  ^bb0(%i: index, %j: index):",
                f"    tensor.yield {rng.choice(['%zero', '%one'])} : f32",
                f"  }} : {t} to {pt}",
            ]
            results.append((r, pt))
        elif kind in ("concat", "pad-concat"):
            a, b = chain(), chain() if rng.random() < 0.7 else rng.choice(values)
            ct = f"tensor<{2 * rows}x{cols}xf32>"
            r = fresh("c")
            lines.append(f"  {r} = tensor.concat dim(0) {a}, {b} : ({t}, {t}) -> {ct}")
            if kind == "pad-concat":
                q = fresh("p")
                pt = f"tensor<{2 * rows + 2}x{cols + 2}xf32>"
                lines += [
                    f"  {q} = tensor.pad {r} low[1, 1] high[1, 1] {{",
                    "  ^bb0(%i: index, %j: index):",
                    "    tensor.yield %one : f32",
                    f"  }} : {ct} to {pt}",
                ]
                results.append((q, pt))
            else:
                results.append((r, ct))
        else:
            s = chain()
            bt = f"tensor<{rows + 3}x{2 * cols}xf32>"
            e, f, r = fresh("e"), fresh("f"), fresh("i")
            lines += [
                f"  {e} = tensor.empty() : {bt}",
                f"  {f} = linalg.fill ins(%zero : f32) outs({e} : {bt}) -> {bt}",
                f"  {r} = tensor.insert_slice {s} into {f}[1, 0] [{rows}, {cols}] [1, 2] : {t} into {bt}",
            ]
            results.append((r, bt))
        if rng.random() < 0.4:
            # A reader after the copy of some value.
            v = rng.choice(values)
            r, e = fresh("r"), fresh("e")
            lines += [
                f"  {e} = tensor.empty() : {t}",
                f"  {r} = linalg.exp ins({v} : {t}) outs({e} : {t}) -> {t}",
            ]
            results.append((r, t))
    lines.append(
        f"  return {', '.join(r for r, _ in results)} : {', '.join(ty for _, ty in results)}"
    )
    lines.append("}")
    return "\n".join(lines).replace("{results}", ", ".join(ty for _, ty in results)) + "\n"


def test_random_programs_keep_the_numerics():
    written = 0
    for seed in range(14):
        src = random_subset_program(seed)
        with ir.Context():
            module = parse_source(src)
            ran = memplan.run_pipeline(module, PASS)
            after = str(module)
        written += ran[0].statistics["written-in-place"][0]
        assert numerics.compare(src, after, "main").ok, src
        check_pipeline(src, "main", run_without=False)
    assert written >= 10


# A padded convolution's output (as torch-mlir imports ResNet's stem) and a
# pad whose source is read afterwards (a residual connection): the report on
# the bufferized program names the first copy at the peak, not the second.
REPORT_PROGRAM = """
func.func @forward(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  return %p : tensor<1x8x10x10xf32>
}

func.func @residual(%x: tensor<1x4x8x8xf32>) -> (tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %a = linalg.exp ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %e2 = tensor.empty() : tensor<1x4x8x8xf32>
  %s = linalg.add ins(%a, %x : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%e2 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %p, %s : tensor<1x4x10x10xf32>, tensor<1x4x8x8xf32>
}
"""


def test_report_names_pad_copies_at_the_peak(tmp_path, capsys):
    src = tmp_path / "pads.mlir"
    src.write_text(REPORT_PROGRAM)
    assert memplan_main(["report", str(src), "--bufferize", "--json"]) == 0
    functions = {f["name"]: f for f in json.loads(capsys.readouterr().out)["functions"]}
    site = functions["forward"]["peak_site"]
    # The convolution's output (8x8x8 f32) and its padded copy are live at
    # the peak; computing the first in place frees its 2048 bytes there.
    (copy,) = site["subset_copies"]
    assert copy["bytes"] == 2048 and copy["location"] == f"{src}:8:8"
    assert {copy["source"], copy["target"]} <= set(site["live"])
    assert copy["decision"] == (
        "the padded value would be computed in the padded tensor: " "no copy, 2048 bytes saved"
    )
    # The source is read after the copy (by the add): nothing is named, and
    # the pass leaves that pad alone.
    assert functions["residual"]["peak_site"]["subset_copies"] == []
    assert memplan_main(["report", str(src), "--bufferize"]) == 0
    text = capsys.readouterr().out
    assert text.count("is copied into a subset of") == 1
    assert (
        f"is copied into a subset of {copy['target']} at {src}:8:8 and dies there: "
        "computing it in place frees 2048 B at the peak (memplan-eliminate-subset-copies: "
        "the padded value would be computed in the padded tensor"
    ) in text
    # The dry run left the tensor program as it was: the pass still rewrites.
    with ir.Context():
        module = parse_source(REPORT_PROGRAM)
        before = str(module)
        decisions = copy_decisions(module.operation)
        assert str(module) == before
        assert any("would stay a copy" in d for d in decisions.values())


def test_report_of_memrefs_names_copies_without_decisions(tmp_path, capsys):
    src = tmp_path / "pads.mlir"
    src.write_text(rewrite(REPORT_PROGRAM, UPSTREAM))
    assert memplan_main(["report", str(src), "--json"]) == 0
    functions = {f["name"]: f for f in json.loads(capsys.readouterr().out)["functions"]}
    (copy,) = functions["forward"]["peak_site"]["subset_copies"]
    assert copy["bytes"] == 2048 and copy["decision"] is None
    # After memplan's pipeline the copy is gone: nothing left to name.
    src.write_text(rewrite(REPORT_PROGRAM, MEMORY))
    assert memplan_main(["report", str(src), "--json"]) == 0
    functions = {f["name"]: f for f in json.loads(capsys.readouterr().out)["functions"]}
    assert functions["forward"]["peak_site"]["subset_copies"] == []
