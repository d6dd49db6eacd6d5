"""Outlining for the numerics harness asks MLIR's traits, not op names."""

from __future__ import annotations

import numpy as np
from mlir import ir

from memplan.numerics import execute
from memplan.numerics.outline import KERNEL_PREFIX, outline_generics

# A generic using two constants from outside: one of arith, one of the LLVM
# dialect (both ConstantLike).
SCALE = """
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  %two = llvm.mlir.constant(2.0 : f32) : f32
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    %z = arith.addf %y, %one : f32
    linalg.yield %z : f32
  }
  return
}
"""


def test_constant_like_ops_are_cloned_into_the_kernel():
    with ir.Context():
        module = ir.Module.parse(SCALE)
        assert outline_generics(module) == 1
        (kernel,) = [
            op
            for op in module.body.operations
            if ir.StringAttr(op.attributes["sym_name"]).value.startswith(KERNEL_PREFIX)
        ]
        # Only the generic's two buffers are passed: the constants are cloned.
        assert len(ir.FunctionType(ir.TypeAttr(kernel.attributes["function_type"]).value).inputs) == 2
        body = [op.operation.name for op in kernel.regions[0].blocks[0].operations]
        assert "llvm.mlir.constant" in body and "arith.constant" in body


def test_outlined_kernel_with_cloned_constants_computes_the_same():
    run = execute(SCALE, "main", seed=2)
    a = run.outputs[0].data
    np.testing.assert_array_equal(run.outputs[1].data, a * np.float32(2) + np.float32(1))
