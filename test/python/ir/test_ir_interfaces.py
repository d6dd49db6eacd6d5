"""What an ``mlir.ir`` op is comes from MLIR's interfaces and traits
(``memplan.ir.interfaces``), for ops of any dialect, not from op names."""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.cli.transients import _evaluate
from memplan.ir.interfaces import (
    constant_number,
    function_type,
    has_interface,
    is_function,
    is_module,
)

# Constants of four dialects and kinds, an llvm.func and a func.func.
CONSTANTS = """
module {
  llvm.func @g() {
    llvm.return
  }
  func.func @f() -> (index, index, i64, i1, f32, vector<2xi32>, i32) {
    %a = arith.constant 7 : index
    %b = index.constant 12
    %c = llvm.mlir.constant(-3 : i64) : i64
    %d = arith.constant true
    %e = arith.constant 1.5 : f32
    %f = arith.constant dense<1> : vector<2xi32>
    %g = ub.poison : i32
    return %a, %b, %c, %d, %e, %f, %g : index, index, i64, i1, f32, vector<2xi32>, i32
  }
}
"""


def _module(ctx: ir.Context, text: str) -> ir.Module:
    return ir.Module.parse(text, ctx)


def test_constant_like_ops_of_any_dialect_give_their_number(ctx):
    module = _module(ctx, CONSTANTS)
    f = module.body.operations[1]
    ret = list(f.regions[0].blocks[0].operations)[-1]
    numbers = [constant_number(v) for v in ret.operands]
    # A dense vector and ub.poison are ConstantLike but hold no one number.
    assert numbers == [7, 12, -3, 1, 1.5, None, None]
    assert all(has_interface(v.owner, _core.OpInterface.CONSTANT_LIKE) for v in ret.operands)
    assert not has_interface(ret, _core.OpInterface.CONSTANT_LIKE)
    assert constant_number(f.regions[0].blocks[0].operations[0].results[0]) == 7


def test_functions_and_modules_from_interfaces(ctx):
    module = _module(ctx, CONSTANTS)
    g, f = module.body.operations
    assert is_function(g) and is_function(f) and is_module(module.operation)
    assert not is_module(f) and not is_function(module.operation)
    # llvm.func is a function whose type is not a builtin FunctionType.
    assert function_type(g) is None
    assert [str(t) for t in function_type(f).results][:2] == ["index", "index"]


def test_size_query_of_index_ops_evaluates(ctx):
    """A query whose steps are index ops: they fold to index.constant, which
    counts as a constant (the old arith.constant name check did not)."""
    module = _module(
        ctx,
        """
      func.func @q() -> index {
        %a = index.constant 3000
        %b = index.constant 10
        %c = index.divu %a, %b
        %d = index.mul %c, %b
        return %d : index
      }""",
    )
    assert _evaluate(module.body.operations[0].operation) == 3000
