"""Matmul-like kernels are tiled (memplan.numerics.tiling) with the same bits
as the untiled loops, and run as they were where an input overlaps the output."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir, passmanager

from memplan.numerics import execute, lowering, tiling
from memplan.numerics.loop_order import hoist_reductions

# A matmul whose sizes are not multiples of the tiles (remainder tiles), and
# a batch matmul.
MATMULS = """
func.func @main(%A: memref<37x70xf32>, %B: memref<70x150xf32>, %C: memref<37x150xf32>,
                %X: memref<3x20x9xf64>, %Y: memref<3x9x130xf64>, %Z: memref<3x20x130xf64>) {
  linalg.matmul ins(%A, %B : memref<37x70xf32>, memref<70x150xf32>)
                outs(%C : memref<37x150xf32>)
  linalg.batch_matmul ins(%X, %Y : memref<3x20x9xf64>, memref<3x9x130xf64>)
                      outs(%Z : memref<3x20x130xf64>)
  return
}
"""

# The output is a view of the input it reads: C is rows 1..16 of the buffer
# whose rows 0..15 are A, so the loop order decides what is read.
OVERLAP = """
func.func @main(%buf: memref<32x64xf32>, %B: memref<64x64xf32>) {
  %a = memref.subview %buf[0, 0] [16, 64] [1, 1]
      : memref<32x64xf32> to memref<16x64xf32, strided<[64, 1]>>
  %c = memref.subview %buf[1, 0] [16, 64] [1, 1]
      : memref<32x64xf32> to memref<16x64xf32, strided<[64, 1], offset: 64>>
  linalg.matmul ins(%a, %B : memref<16x64xf32, strided<[64, 1]>>, memref<64x64xf32>)
                outs(%c : memref<16x64xf32, strided<[64, 1], offset: 64>>)
  return
}
"""


@pytest.fixture
def counted(monkeypatch):
    """How many generics each lowering tiled."""
    counts = []

    def tile(module):
        counts.append(tiling.tile_for_reuse(module))
        return counts[-1]

    monkeypatch.setattr(lowering, "tile_for_reuse", tile)
    return counts


def _untiled(source: str, seed: int, dims=None):
    saved = lowering.tile_for_reuse
    lowering.tile_for_reuse = lambda module: 0
    try:
        return execute(source, "main", seed=seed, poison=None, dims=dims)
    finally:
        lowering.tile_for_reuse = saved


def test_tiled_matmuls_have_the_bits_of_the_loops(counted):
    tiled = execute(MATMULS, "main", seed=5, poison=None)
    assert counted == [2]
    plain = _untiled(MATMULS, 5)
    for t, p in zip(tiled.outputs, plain.outputs):
        np.testing.assert_array_equal(t.data, p.data)
    # and they compute a matmul (C's input drawn with the same seed: C0 + A @ B)
    a, b, c = (
        o.data.reshape(s) for o, s in zip(tiled.outputs[:3], [(37, 70), (70, 150), (37, 150)])
    )
    before = (
        execute(
            MATMULS.replace("linalg.matmul ins", "// ", 1).replace(
                "outs(%C : memref<37x150xf32>)", "", 1
            ),
            "main",
            seed=5,
            poison=None,
        )
        .outputs[2]
        .data.reshape(37, 150)
    )
    np.testing.assert_allclose(c, before + a @ b, rtol=1e-4, atol=1e-4)


def test_overlapping_output_runs_in_the_loop_order(counted, monkeypatch):
    tiled = execute(OVERLAP, "main", seed=6, poison=None)
    assert counted == [1]  # tiled, behind the run-time overlap check
    plain = _untiled(OVERLAP, 6)
    np.testing.assert_array_equal(tiled.outputs[0].data, plain.outputs[0].data)
    # Without the check the tiled order reads other values: the check matters.
    monkeypatch.setattr(tiling, "_guarded", lambda op: op)
    unguarded = execute(OVERLAP, "main", seed=6, poison=None)
    assert not np.array_equal(unguarded.outputs[0].data, plain.outputs[0].data)


def test_only_matmul_like_generics_are_eligible():
    with ir.Context():
        module = ir.Module.parse(MATMULS)
        passmanager.PassManager.parse("builtin.module(linalg-generalize-named-ops)").run(
            module.operation
        )
        hoist_reductions(module)
        plans = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "linalg.generic":
                plans.append(tiling.tiling(op))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        # The columns' loop first, then tiles of TILE_COLUMNS columns by
        # TILE_ROWS rows, in each the reductions before the rows.
        assert plans == [
            ([2, 0, 1], [64, 8, 0], [2, 1, 0]),
            ([3, 0, 1, 2], [64, 0, 8, 0], [1, 3, 2, 0]),
        ]


# Register tiles (tiling.register_tile) on: remainders in both tiled loops
# and f64 lanes (MATMULS); two reductions, an input read at a row plus a
# reduction (affine.apply), a captured scalar and a constant in the body;
# f16 inputs widened into an f32 output; 40 columns (vectors of 8 lanes);
# and a dynamic size (not tiled).
REGISTER_TILED = {
    "matmuls": (MATMULS, 2),
    "two_reductions": (
        """
func.func @main(%A: memref<28x6xf32>, %B: memref<5x6x80xf32>, %s: f32, %C: memref<24x80xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k, l, j) -> (i + k, l)>,
                                   affine_map<(i, k, l, j) -> (k, l, j)>,
                                   affine_map<(i, k, l, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%A, %B : memref<28x6xf32>, memref<5x6x80xf32>) outs(%C : memref<24x80xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.mulf %m, %s : f32
    %y = arith.addf %c, %t : f32
    %k = arith.constant 0.75 : f32
    %z = arith.mulf %y, %k : f32
    linalg.yield %z : f32
  }
  return
}
""",
        1,
    ),
    "widened": (
        """
func.func @main(%A: memref<40x33xf16>, %B: memref<33x96xf16>, %C: memref<40x96xf32>) {
  linalg.matmul ins(%A, %B : memref<40x33xf16>, memref<33x96xf16>)
                outs(%C : memref<40x96xf32>)
  return
}
""",
        1,
    ),
    "narrow": (
        """
func.func @main(%A: memref<24x30xf32>, %B: memref<30x40xf32>, %C: memref<24x40xf32>) {
  linalg.matmul ins(%A, %B : memref<24x30xf32>, memref<30x40xf32>)
                outs(%C : memref<24x40xf32>)
  return
}
""",
        1,
    ),
    "dynamic": (
        """
func.func @main(%A: memref<?x70xf32>, %B: memref<70x150xf32>, %C: memref<?x150xf32>) {
  linalg.matmul ins(%A, %B : memref<?x70xf32>, memref<70x150xf32>)
                outs(%C : memref<?x150xf32>)
  return
}
""",
        0,
    ),
}


@pytest.fixture
def registers(monkeypatch):
    """How many tiles register_tile replaced."""
    replaced = []
    original = tiling.register_tile

    def count(op):
        done = original(op)
        replaced.append(done)
        return done

    monkeypatch.setattr(tiling, "register_tile", count)
    return replaced


@pytest.mark.parametrize("name", sorted(REGISTER_TILED))
def test_register_tiles_have_the_bits_of_the_loops(name, registers):
    source, expected = REGISTER_TILED[name]
    tiled = execute(source, "main", seed=7, poison=None, dims={"*": 29})
    assert registers.count(True) == expected
    plain = _untiled(source, 7, dims={"*": 29})
    for t, p in zip(tiled.outputs, plain.outputs):
        np.testing.assert_array_equal(t.data, p.data)


def test_register_tiles_leave_ops_that_are_not_lane_wise(registers):
    # linalg.index is not ElementwiseMappable: the tile stays a loop nest.
    source = (
        MATMULS.split("  linalg.batch_matmul")[0].replace(
            "linalg.matmul ins(%A, %B : memref<37x70xf32>, memref<70x150xf32>)\n"
            "                outs(%C : memref<37x150xf32>)",
            """linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k)>,
                                   affine_map<(i, k, j) -> (k, j)>,
                                   affine_map<(i, k, j) -> (i, j)>],
                  iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%A, %B : memref<37x70xf32>, memref<70x150xf32>) outs(%C : memref<37x150xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %j = linalg.index 2 : index
    %w = arith.index_cast %j : index to i32
    %f = arith.sitofp %w : i32 to f32
    %m = arith.mulf %a, %f : f32
    %y = arith.addf %c, %m : f32
    linalg.yield %y : f32
  }""",
        )
        + "  return\n}\n"
    )
    source = source.replace(
        ",\n                %X: memref<3x20x9xf64>, %Y: memref<3x9x130xf64>, %Z: memref<3x20x130xf64>",
        "",
    )
    tiled = execute(source, "main", seed=8, poison=None)
    assert registers and not any(registers)
    plain = _untiled(source, 8)
    np.testing.assert_array_equal(tiled.outputs[2].data, plain.outputs[2].data)


# A matmul reading its weight through a transposed map, as memplan-fold-transposes
# leaves an nn.Linear (C[i, j] += A[i, k] * W[j, k]): the lowering packs W tile by
# tile (lib/Numerics/PackStridedReads.cpp), and the op on each tile, in the loop
# over the tiles, is a matmul like the one on a transposed copy of W.
TRANSPOSED_WEIGHT = """
#a = affine_map<(i, j, k) -> (i, k)>
#w = affine_map<(i, j, k) -> (j, k)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @main(%A: memref<37x70xf32>, %W: memref<Nx70xf32>, %C: memref<37xNxf32>) {
  linalg.generic {indexing_maps = [#a, #w, #c],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %W : memref<37x70xf32>, memref<Nx70xf32>) outs(%C : memref<37xNxf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
"""


@pytest.mark.parametrize("columns, ops", [(256, 1), (300, 2)])
def test_matmuls_on_packed_tiles_are_tiled_with_the_bits_of_the_loops(counted, columns, ops):
    # Untiled, the folded attention and linears of torch-mlir's exports ran
    # 1.2-1.45x slower than upstream's transposed copies and named matmuls.
    # 300 columns: the two whole tiles of 128 in a loop, then the last 44 on
    # their own, each op of static sizes and so tiled.
    source = TRANSPOSED_WEIGHT.replace("N", str(columns))
    tiled = execute(source, "main", seed=7, poison=None)
    assert counted == [ops]
    plain = _untiled(source, 7)
    for t, p in zip(tiled.outputs, plain.outputs):
        np.testing.assert_array_equal(t.data, p.data)
