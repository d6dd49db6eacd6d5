"""Index argument ranges followed through views of an integer tensor: ids
read through a ``tensor.extract_slice`` (torch-mlir's ``ids[:, f]`` of an
embedding bag) or a reshape are the argument's elements, so what keeps them
in bounds keeps the argument's too. Before, only direct reads were followed:
memplan-check drew out-of-range ids for such a model, and its reference
crashed (SIGSEGV) or the run reported a use after free that was not."""

from __future__ import annotations

from mlir import ir

from memplan.numerics.signature import index_argument_ranges

#: A lookup of %table rows by ids read through a view %v of %ids.
LOOKUP = """
#m1 = affine_map<(d0, d1) -> (d0)>
#m2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%ids: {ids_type}, %table: tensor<10x8xf32>) -> tensor<4x8xf32> {{
  {view}
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {{indexing_maps = [#m1, #m2], iterator_types = ["parallel", "parallel"]}}
      ins(%v : tensor<4xi64>) outs(%e : tensor<4x8xf32>) {{
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %x = tensor.extract %table[%i, %j] : tensor<10x8xf32>
    linalg.yield %x : f32
  }} -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}}
"""

SLICED = LOOKUP.format(
    ids_type="tensor<4x2xi64>",
    view="%v = tensor.extract_slice %ids[0, 1] [4, 1] [1, 1] : tensor<4x2xi64> to tensor<4xi64>",
)
RESHAPED = LOOKUP.format(
    ids_type="tensor<2x2xi64>",
    view="%v = tensor.collapse_shape %ids [[0, 1]] : tensor<2x2xi64> into tensor<4xi64>",
)


def _ranges(text: str) -> dict:
    with ir.Context():
        module = ir.Module.parse(text)
        before = str(module)
        found = index_argument_ranges(module.body.operations[0])
        assert str(module) == before
        return found


def test_ids_read_through_a_slice_stay_in_the_table():
    assert _ranges(SLICED) == {0: (0, 9)}


def test_ids_read_through_a_reshape_stay_in_the_table():
    assert _ranges(RESHAPED) == {0: (0, 9)}
