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
        # Only the generic's two buffers are passed (each as its pointer and
        # offset): the constants are cloned, no float comes in.
        inputs = ir.FunctionType(ir.TypeAttr(kernel.attributes["function_type"]).value).inputs
        assert [str(t) for t in inputs] == ["index"] * 4
        body = [op.operation.name for op in kernel.regions[0].blocks[0].operations]
        assert "llvm.mlir.constant" in body and "arith.constant" in body


def test_outlined_kernel_with_cloned_constants_computes_the_same():
    run = execute(SCALE, "main", seed=2)
    a = run.outputs[0].data
    np.testing.assert_array_equal(run.outputs[1].data, a * np.float32(2) + np.float32(1))


# The same op on two slices of one buffer at different static offsets (as an
# unrolled loop's steps or a pool's views give).
SLICES = """
func.func @main(%a: memref<2x8xf32>, %b: memref<2x8xf32>) {
  %a0 = memref.subview %a[0, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1]>>
  %a1 = memref.subview %a[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  %b0 = memref.subview %b[0, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1]>>
  %b1 = memref.subview %b[1, 0] [1, 8] [1, 1] : memref<2x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a0 : memref<8xf32, strided<[1]>>) outs(%b0 : memref<8xf32, strided<[1]>>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a1 : memref<8xf32, strided<[1], offset: 8>>)
      outs(%b1 : memref<8xf32, strided<[1], offset: 8>>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  }
  return
}
"""


def test_views_at_other_static_offsets_share_one_kernel():
    with ir.Context():
        module = ir.Module.parse(SLICES)
        assert outline_generics(module) == 1


def test_kernel_shared_across_offsets_computes_each_slice():
    run = execute(SLICES, "main", seed=3)
    a = run.outputs[0].data.reshape(2, 8)
    np.testing.assert_array_equal(run.outputs[1].data.reshape(2, 8), a * a)


# What tells kernels apart is decided before any kernel is built: the same
# op with another captured constant, or reading a scalar it captures in two
# places where the other reads two scalars, or on a view with other strides,
# is a kernel of its own.
DIFFERENT = """
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %d: memref<4xf32>,
                %e: memref<4xf32>, %st: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.load %st[%c0] : memref<2xf32>
  %t = memref.load %st[%c1] : memref<2xf32>
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %three : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%d : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %s : f32
    linalg.yield %z : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%e : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %s : f32
    %z = arith.addf %y, %t : f32
    linalg.yield %z : f32
  }
  return
}
"""


def test_captured_values_tell_kernels_apart():
    with ir.Context():
        module = ir.Module.parse(DIFFERENT)
        assert outline_generics(module) == 4


def test_kernels_told_apart_compute_each_op():
    run = execute(DIFFERENT, "main", seed=4)
    a, (s, t) = run.outputs[0].data, run.outputs[5].data
    np.testing.assert_array_equal(run.outputs[1].data, a * np.float32(2))
    np.testing.assert_array_equal(run.outputs[2].data, a * np.float32(3))
    np.testing.assert_array_equal(run.outputs[3].data, a * s + s)
    np.testing.assert_array_equal(run.outputs[4].data, a * s + t)


# The same op on a contiguous row and on a column (another stride).
STRIDES = """
func.func @main(%a: memref<8x8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
  %row = memref.subview %a[0, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1]>>
  %col = memref.subview %a[0, 0] [8, 1] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[8]>>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%row : memref<8xf32, strided<[1]>>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%col : memref<8xf32, strided<[8]>>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}
"""


def test_views_with_other_strides_get_kernels_of_their_own():
    with ir.Context():
        module = ir.Module.parse(STRIDES)
        assert outline_generics(module) == 2
    run = execute(STRIDES, "main", seed=5)
    a = run.outputs[0].data.reshape(8, 8)
    np.testing.assert_array_equal(run.outputs[1].data, a[0, :])
    np.testing.assert_array_equal(run.outputs[2].data, a[:, 0])


def _functions(program) -> dict:
    return {
        ir.StringAttr(op.attributes["sym_name"]).value: op
        for op in program.module.body.operations
        if op.operation.name == "llvm.func"
    }


def test_entry_is_inlined_into_its_c_interface_wrapper():
    # The JIT wraps every defined function in one taking its arguments
    # through a pointer array: without the entry (a memref spread over
    # scalars) no function but the wrapper takes them one by one.
    from memplan.numerics.lowering import lower

    with ir.Context():
        program = lower(SLICES, "main")
        functions = _functions(program)
        assert "main" not in functions
        wrapper = functions["_mlir_ciface_main"]
        assert str(wrapper.attributes["passthrough"]) == '["optnone", "noinline"]'
        kernels = [name for name in functions if name.startswith(KERNEL_PREFIX)]
        assert kernels and all("no_inline" in functions[k].attributes for k in kernels)


# The entry is also called by another function: it stays as it is.
CALLED_TWICE = """
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  }
  return
}
func.func @twice(%a: memref<4xf32>, %b: memref<4xf32>) {
  call @main(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  call @main(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
"""


def test_entry_called_elsewhere_is_kept_and_runs():
    from memplan.numerics.lowering import lower

    with ir.Context():
        functions = _functions(lower(CALLED_TWICE, "twice", also=("main",)))
        assert "main" in functions and "_mlir_ciface_main" in functions
        assert "twice" not in functions  # called by its wrapper only
    run = execute(CALLED_TWICE, "twice", seed=4, poison=None)
    a, b = run.outputs[0].data, run.outputs[1].data
    start = execute(CALLED_TWICE, "main", seed=4, poison=None).outputs
    np.testing.assert_array_equal(start[0].data, a)
    # main's b input drawn with the same seed: b_out = b_in + 2a, b_in = main's out - a.
    np.testing.assert_array_equal(b, start[1].data + a)
