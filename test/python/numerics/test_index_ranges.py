"""Index argument ranges read from MLIR's interfaces, not from op names.

``index_argument_ranges`` (C++: memplan/Numerics/IndexRanges.h) gives the
numerics harness values of a function's integer arguments that keep the IR
in bounds. Each case below uses one interface, most with an op that a list of
op names (memref.load/store, tensor.extract/insert, alloc/empty/splat/generate,
scf.for, arith casts, linalg.generic) would miss.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from test_numerics_programs import bufferize

from memplan.numerics import compare, execute
from memplan.numerics.signature import DEFAULT_DIM, index_argument_ranges

SIZE = (1, DEFAULT_DIM)


def ranges(body: str, args: str) -> dict:
    """``index_argument_ranges`` of ``func.func @f(args) { body; return }``."""
    text = f"func.func @f({args}) {{\n{body}\n  return\n}}"
    with ir.Context():
        module = ir.Module.parse(text)
        before = str(module)
        found = index_argument_ranges(module.body.operations[0])
        assert str(module) == before  # probes run on scratch copies
        return found


# -- positions: RuntimeVerifiableOpInterface ------------------------------------


def test_load_positions_per_static_dimension():
    found = ranges(
        "%a = memref.load %m[%i, %j] : memref<4x5xf32>\n"
        "%b = memref.load %d[%k, %j] : memref<?x9xf32>",
        "%m: memref<4x5xf32>, %d: memref<?x9xf32>, %i: index, %j: index, %k: index",
    )
    # %j indexes a 5 and a 9 wide dimension; %k only a dynamic one.
    assert found == {2: (0, 3), 3: (0, 4)}


def test_slice_offset_keeps_the_slice_inside():
    # extract_slice verifies offset + (size - 1) * stride < dim: 6 - 2.
    found = ranges(
        "%s = tensor.extract_slice %t[%o] [2] [1] : tensor<6xf32> to tensor<2xf32>",
        "%t: tensor<6xf32>, %o: index",
    )
    assert found == {1: (0, 4)}


def test_slice_offset_leaves_room_for_any_size_the_harness_picks():
    # Sizes are at most DEFAULT_DIM (7): offsets up to 30 - 7 and 20 - 7.
    found = ranges(
        "%s = tensor.extract_slice %t[%o, %p] [%m, %n] [1, 1] : tensor<30x20xf32> to tensor<?x?xf32>",
        "%t: tensor<30x20xf32>, %o: index, %p: index, %m: index, %n: index",
    )
    assert found == {1: (0, 23), 2: (0, 13), 3: SIZE, 4: SIZE}


def test_subview_offset_and_strided_slice():
    found = ranges(
        "%s = memref.subview %m[%o, 0] [2, 5] [1, 1] : memref<4x5xf32> to "
        "memref<2x5xf32, strided<[5, 1], offset: ?>>\n"
        "%e = tensor.extract_slice %t[%p] [3] [4] : tensor<20xf32> to tensor<3xf32>",
        "%m: memref<4x5xf32>, %o: index, %t: tensor<20xf32>, %p: index",
    )
    # 4 rows, 2 taken: 0..2; 3 elements 4 apart in 20: p + 8 < 20.
    assert found == {1: (0, 2), 3: (0, 11)}


def test_dim_index_is_below_the_rank():
    found = ranges("%d = memref.dim %m, %i : memref<4x?x5xf32>", "%m: memref<4x?x5xf32>, %i: index")
    assert found == {1: (0, 2)}


def test_narrow_integer_positions_are_probed_within_their_type():
    # A position that its own i8 type cannot push out of bounds says nothing.
    found = ranges(
        "%i = arith.index_cast %a : i8 to index\n"
        "%x = tensor.extract %big[%i] : tensor<300xf32>\n"
        "%j = arith.index_cast %b : i8 to index\n"
        "%y = tensor.extract %small[%j] : tensor<100xf32>",
        "%a: i8, %big: tensor<300xf32>, %b: i8, %small: tensor<100xf32>",
    )
    assert found == {0: (0, 299), 2: (0, 99)}


# -- positions: AffineReadOpInterface, AffineWriteOpInterface ----------------------


def test_affine_accesses_by_their_map_operands():
    found = ranges(
        "%a = affine.load %m[%i, %j + 1] : memref<4x5xf32>\n"
        "affine.store %v, %m[2, symbol(%k)] : memref<4x5xf32>\n"
        "%w = affine.vector_load %m[0, %l] : memref<4x5xf32>, vector<2xf32>",
        "%m: memref<4x5xf32>, %i: index, %j: index, %k: index, %v: f32, %l: index",
    )
    # %j only inside an expression, %l starts a vector: neither is bounded
    # by the map alone.
    assert found == {1: (0, 3), 3: (0, 4)}


# -- sizes: ValueBoundsOpInterface, ReifyRankedShapedTypeOpInterface -------------


def test_sizes_equal_to_a_result_dimension():
    found = ranges(
        "%a = memref.alloc(%n) : memref<?xf32>\n"
        "%s = memref.subview %m[0] [%k] [1] : memref<8xf32> to memref<?xf32, strided<[1]>>\n"
        "%g = tensor.generate %q {\n^bb0(%x: index):\n  %c = arith.constant 0.0 : f32\n"
        "  tensor.yield %c : f32\n} : tensor<?xf32>\n"
        "%p = tensor.splat %v[%r] : tensor<?xf32>",
        "%n: index, %m: memref<8xf32>, %k: index, %q: index, %v: f32, %r: index",
    )
    # alloc and subview sizes by value bounds; generate and splat by
    # reification.
    assert found == {0: SIZE, 2: SIZE, 3: SIZE, 5: SIZE}


def test_size_limit_is_the_callers():
    with ir.Context():
        module = ir.Module.parse(
            "func.func @f(%n: index) {\n %a = memref.alloc(%n) : memref<?xf32>\n return\n}"
        )
        assert index_argument_ranges(module.body.operations[0], 3) == {0: (1, 3)}


# -- loop bounds: LoopLikeOpInterface ------------------------------------------------


def test_loop_upper_bounds():
    found = ranges(
        "scf.for %x = %lo to %n step %st { }\n"
        "scf.parallel (%y) = (%lo) to (%p) step (%st) { }\n"
        "scf.forall (%z) in (%f) { }",
        "%lo: index, %n: index, %st: index, %p: index, %f: index",
    )
    # Lower bounds and steps are not sizes.
    assert found == {1: SIZE, 3: SIZE, 4: SIZE}


# -- through casts: CastOpInterface ------------------------------------------------


def test_positions_through_any_cast():
    found = ranges(
        "%c = builtin.unrealized_conversion_cast %g : i64 to index\n"
        "%v = memref.load %m[%c, %c] : memref<4x5xf32>",
        "%g: i64, %m: memref<4x5xf32>",
    )
    assert found == {0: (0, 3)}


def test_float_casts_are_not_followed():
    found = ranges(
        "%f = arith.sitofp %g : i64 to f64\n"
        "%h = arith.fptosi %f : f64 to i64\n"
        "%c = arith.index_cast %h : i64 to index\n"
        "%v = memref.load %m[%c] : memref<4xf32>",
        "%g: i64, %m: memref<4xf32>",
    )
    assert found == {}


# -- into structured op bodies: LinalgOp ----------------------------------------------


GATHER = """
func.func @main(%t: tensor<6xf32>, %o: index, %ids: tensor<5xi64>, %table: tensor<3xf32>)
    -> (tensor<2xf32>, tensor<5xf32>) {
  %s = tensor.extract_slice %t[%o] [2] [1] : tensor<6xf32> to tensor<2xf32>
  %e = tensor.empty() : tensor<5xf32>
  %g = linalg.map ins(%ids : tensor<5xi64>) outs(%e : tensor<5xf32>)
    (%id: i64, %out: f32) {
      %i = arith.index_cast %id : i64 to index
      %x = tensor.extract %table[%i] : tensor<3xf32>
      linalg.yield %x : f32
    }
  return %s, %g : tensor<2xf32>, tensor<5xf32>
}
"""


def test_named_structured_op_input_reaches_its_block_argument():
    with ir.Context():
        module = ir.Module.parse(GATHER)
        assert index_argument_ranges(module.body.operations[0]) == {1: (0, 4), 2: (0, 2)}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_harness_inputs_keep_slices_and_gathers_in_bounds(seed):
    run = execute(GATHER, "main", seed=seed)
    # Outputs: the results, then the buffer arguments (%o is a scalar).
    sliced, gathered, t, ids, table = (out.data for out in run.outputs)
    assert any(np.array_equal(sliced, t[o : o + 2]) for o in range(5))
    assert ids.min() >= 0 and ids.max() <= 2
    np.testing.assert_array_equal(gathered, table[ids])
    assert compare(GATHER, bufferize(GATHER), "main", seed=seed).ok
