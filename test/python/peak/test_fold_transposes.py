"""Reading operands where they lie (issue #30): memplan-fold-transposes and
the harness' packing of strided reads, checked by running them.

Every fold runs before and after through the ExecutionEngine
(``memplan.numerics.compare``: bit for bit, fresh memory poisoned); the
memory pipeline's output against upstream's pipeline, with the run-time
overlap oracle, every buffer freed once and a run-time peak not above
upstream's.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from progs.litcases import lit_cases, rewrite
from test_peak import UPSTREAM, check_against_upstream, static_peak_and_bound

from memplan import _core, numerics
from memplan.ir import parse_source
from memplan.numerics.lowering import PACK_MAX_BYTES, PACK_TILE

FOLD = "builtin.module(memplan-fold-transposes)"


@pytest.mark.parametrize(
    "case", [c for c in lit_cases("peak/fold-transposes.mlir") if c.runnable], ids=str
)
def test_folds_keep_the_numerics(case):
    after = rewrite(case.text, FOLD)
    for fn in case.functions:
        result = numerics.compare(case.text, after, fn, dims={"*": 5})
        assert result.ok, (fn, result)
        check_against_upstream(case.text, fn, dims={"*": 5})


def linear_layers(layers: int, width: int, batch: str = "?") -> str:
    """An MLP as torch-mlir imports ``nn.Linear``: each weight transposed
    into a fresh tensor, then a matmul into a zero fill, a bias add; the
    batch is dynamic with ``batch="?"``."""
    x = f"tensor<{batch}x{width}xf32>"
    w = f"tensor<{width}x{width}xf32>"
    args = ", ".join(f"%w{i}: {w}, %b{i}: tensor<{width}xf32>" for i in range(layers))
    dyn = "%n" if batch == "?" else ""
    lines = [
        f"func.func @main(%x: {x}, {args}) -> {x} {{",
        "  %c0 = arith.constant 0 : index",
        "  %zero = arith.constant 0.0 : f32",
        f"  %n = tensor.dim %x, %c0 : {x}",
    ]
    prev = "%x"
    for i in range(layers):
        lines += [
            f"  %ew{i} = tensor.empty() : {w}",
            f"  %wt{i} = linalg.transpose ins(%w{i} : {w}) outs(%ew{i} : {w}) permutation = [1, 0]",
            f"  %e{i} = tensor.empty({dyn}) : {x}",
            f"  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {x}) -> {x}",
            f"  %m{i} = linalg.matmul ins({prev}, %wt{i} : {x}, {w}) outs(%z{i} : {x}) -> {x}",
            f"  %r{i} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
            "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
            'iterator_types = ["parallel", "parallel"]}'
            f" ins(%m{i}, %b{i} : {x}, tensor<{width}xf32>) outs(%e{i} : {x}) {{",
            "  ^bb0(%in: f32, %bias: f32, %out: f32):",
            "    %s = arith.addf %in, %bias : f32",
            "    linalg.yield %s : f32",
            f"  }} -> {x}",
        ]
        prev = f"%r{i}"
    lines += [f"  return {prev} : {x}", "}"]
    return "\n".join(lines)


def test_weights_are_read_where_they_lie():
    # Static batch: the transposed weights (each as large as the weight) are
    # gone from the memory pipeline's output; its peak is what the
    # activations need, below upstream's and below upstream's own dataflow
    # bound, bit for bit.
    src = linear_layers(3, 64, batch="8")
    result, ours = check_against_upstream(src, "main")
    assert "linalg.transpose" not in ours
    upstream_peak, bound = static_peak_and_bound(rewrite(src, UPSTREAM))
    peak, _ = static_peak_and_bound(ours)
    weight = 64 * 64 * 4
    assert peak < bound and peak <= upstream_peak - weight
    assert result.heap_after.peak_blocks_bytes <= result.heap_before.peak_blocks_bytes - weight


def test_dynamic_batch_weights_fold():
    # A dynamic batch: the activations' sizes come from the input, the
    # weights' copies are static and gone; at run time (batch 9) the peak
    # holds no weight-sized buffer.
    src = linear_layers(3, 64)
    result, ours = check_against_upstream(src, "main", dims={"*": 9})
    assert "linalg.transpose" not in ours
    assert result.heap_after.peak_blocks_bytes < 64 * 64 * 4


def test_generalize_false_keeps_named_ops():
    # Without generalization, a batched matmul whose batch dimension the
    # map would move keeps its transposed copy; the numerics are unchanged.
    case = next(
        c for c in lit_cases("peak/fold-transposes.mlir") if "attention_scores" in c.functions
    )
    after = rewrite(case.text, "builtin.module(memplan-fold-transposes{generalize=false})")
    assert "linalg.batch_matmul" in after and after.count("linalg.transpose") == 2
    assert numerics.compare(case.text, after, "attention_scores").ok


def transposed_matmul(m: int, n: int, k: int, folded: bool) -> str:
    """``x @ w^T`` reading ``w`` (n x k) through a transposed map, or through
    a transposed copy."""
    if folded:
        return f"""
func.func @main(%x: tensor<{m}x{k}xf32>, %w: tensor<{n}x{k}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %r = linalg.matmul indexing_maps = [affine_map<(i, j, l) -> (i, l)>, affine_map<(i, j, l) -> (j, l)>,
                                      affine_map<(i, j, l) -> (i, j)>]
      ins(%x, %w : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}"""
    return f"""
func.func @main(%x: tensor<{m}x{k}xf32>, %w: tensor<{n}x{k}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %e = tensor.empty() : tensor<{k}x{n}xf32>
  %t = linalg.transpose ins(%w : tensor<{n}x{k}xf32>) outs(%e : tensor<{k}x{n}xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}"""


@pytest.mark.parametrize("n", [PACK_TILE, 3 * PACK_TILE // 2 + 3, 5])
def test_packed_reads_compute_the_same_bits(n):
    # The harness packs the transposed weight tile by tile (a last partial
    # tile when the extent is not a multiple of the tile, one small tile
    # when it is smaller); the sums are taken in the same order as on the
    # transposed copy, which is not packed: the same bits.
    result = numerics.compare(
        transposed_matmul(6, n, 40, False), transposed_matmul(6, n, 40, True), "main"
    )
    assert result.ok, result
    assert result.heap_after.peak_blocks_bytes < result.heap_before.peak_blocks_bytes


#: The loop order the harness gives a matmul (memplan.numerics.loop_order):
#: the reduction hoisted out of the innermost loop, which walks the output's
#: last dimension and the weight with a stride.
MEMREF_MATMUL = """
func.func @main(%x: memref<{m}x{k}xf32>, %w: memref<{n}x{k}xf32>, %c: memref<{m}x{n}xf32>) {{
  linalg.generic {{indexing_maps = [affine_map<(i, l, j) -> (i, l)>, affine_map<(i, l, j) -> (j, l)>,
                                   affine_map<(i, l, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}}
      ins(%x, %w : memref<{m}x{k}xf32>, memref<{n}x{k}xf32>) outs(%c : memref<{m}x{n}xf32>) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }}
  return
}}"""


def test_pack_rewrites_only_strided_reread_inputs():
    with ir.Context():
        # The weight is read with a stride along the innermost loop (j) and
        # again for each row i: packed into a stack buffer, tile by tile.
        module = parse_source(MEMREF_MATMUL.format(m=6, n=300, k=40))
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, PACK_MAX_BYTES) == 1
        text = str(module)
        assert "memref.alloca() {alignment = 64 : i64} : memref<40x128xf32>" in text
        # 300 = 2 * 128 + 44: a loop over the two whole tiles, then the last
        # 44 columns on their own, every op of static sizes (no arith.minsi).
        assert "scf.for %arg3 = %c0 to %c256 step %c128" in text
        assert "arith.minsi" not in text
        assert "memref.subview %alloca[0, 0] [40, 44] [1, 1]" in text
        # A dynamic extent: one loop, its last tile cut at the extent.
        module = parse_source(MEMREF_MATMUL.format(m=6, n="?", k=40))
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, PACK_MAX_BYTES) == 1
        assert "scf.for" in str(module) and "arith.minsi" in str(module)
        # A pack that would not fit in the limit takes a smaller tile ...
        module = parse_source(MEMREF_MATMUL.format(m=6, n=256, k=40))
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, 40 * 16 * 4) == 1
        assert "memref<40x16xf32>" in str(module)
        # ... and none below 8 iterations.
        module = parse_source(MEMREF_MATMUL.format(m=6, n=256, k=40))
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, 40 * 4 * 4) == 0
        # Two rows read the weight twice: a pack would not pay for itself.
        module = parse_source(MEMREF_MATMUL.format(m=2, n=256, k=40))
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, PACK_MAX_BYTES) == 0
        # A transpose reads every element once: nothing to gain, left alone.
        module = parse_source("""
func.func @main(%w: memref<64x32xf32>, %t: memref<32x64xf32>) {
  linalg.transpose ins(%w : memref<64x32xf32>) outs(%t : memref<32x64xf32>) permutation = [1, 0]
  return
}""")
        assert _core.pack_strided_reads(module.operation._CAPIPtr, 128, PACK_MAX_BYTES) == 0
        with pytest.raises(ValueError, match="positive"):
            _core.pack_strided_reads(module.operation._CAPIPtr, 0, PACK_MAX_BYTES)


def test_packed_reads_match_numpy():
    # Independent of the copy: the packed run against numpy's float64 sum
    # (the float32 sums differ only in rounding).
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 40), dtype=np.float32)
    w = rng.standard_normal((200, 40), dtype=np.float32)
    c = np.zeros((6, 200), np.float32)
    run = numerics.execute(transposed_matmul(6, 200, 40, True), "main", inputs=[x, w, c])
    expected = x.astype(np.float64) @ w.T.astype(np.float64)
    assert np.allclose(run.outputs[0].data, expected, rtol=1e-5, atol=1e-5)


def test_report_names_the_copies_the_fold_saves():
    # `memplan report` on upstream's bufferization of the MLP names the
    # transposed weight at the peak with its bytes; on the memory pipeline's
    # output there is none left, and the peak went down by at least that.
    from memplan.lifetimes.analysis import analyze_module
    from memplan.liveness.report import format_text, report_dict

    src = linear_layers(2, 64, batch="8")
    docs = {}
    ours = "builtin.module(memplan-memory-pipeline)"
    for name, pipeline in (("upstream", UPSTREAM), ("memplan", ours)):
        with ir.Context():
            docs[name] = report_dict(analyze_module(parse_source(rewrite(src, pipeline))))
    (upstream,), (planned,) = docs["upstream"]["functions"], docs["memplan"]["functions"]
    copies = [s for s in upstream["stored_at_peak"] if s["kind"] == "permuted copy"]
    assert [(c["saves"], c["source"]["op"]) for c in copies] == [(64 * 64 * 4, "linalg.transpose")]
    assert f"{copies[0]['name']} (permuted copy, saves 16384 B)" in format_text(docs["upstream"])
    assert [s for s in planned["stored_at_peak"] if s["kind"] == "permuted copy"] == []
    assert planned["heap_peak"]["input"] <= upstream["heap_peak"]["input"] - copies[0]["saves"]
