"""What an ``mlir.ir`` op is, from MLIR's interfaces and traits: the
``OpInterface`` bits the C++ core computes (``_core.op_interfaces``, declared
once in ``include/memplan/IR/OpRoles.def``), for code that holds ops
rather than a :class:`memplan.ir.Graph` (whose ``op_interfaces`` array has the
same bits)."""

from __future__ import annotations

from typing import Optional, Union

from mlir import ir

from memplan import _core

OpLike = Union[ir.Operation, ir.OpView]


def has_interface(op: OpLike, bit: int) -> bool:
    """Whether ``op`` has the ``_core.OpInterface`` bit ``bit`` (FUNCTION,
    MODULE, CAST, SHAPED_DIM, OFFSETS_SIZES_STRIDES, CONSTANT_LIKE, PERMUTED_COPY,
    STRUCTURED, ELEMENTWISE_MAPPABLE)."""
    return bool(_core.op_interfaces(op.operation._CAPIPtr) & bit)


def is_function(op: OpLike) -> bool:
    """``op`` is a function (FunctionOpInterface)."""
    return has_interface(op, _core.OpInterface.FUNCTION)


def is_module(op: OpLike) -> bool:
    """``op`` is MLIR's module op (``mlir::ModuleOp``)."""
    return has_interface(op, _core.OpInterface.MODULE)


def constant_number(value: ir.Value) -> Optional[Union[int, float]]:
    """The number ``value`` holds when a ConstantLike op (MLIR's trait:
    ``arith.constant``, ``index.constant``, ``llvm.mlir.constant``, ...)
    defines it with an integer or float ``value`` attribute; else None. The
    number is exact (read from the attribute's text, not through 64 bits);
    ``true``/``false`` read as 1/0."""
    owner = value.owner
    if isinstance(owner, ir.Block) or not has_interface(owner, _core.OpInterface.CONSTANT_LIKE):
        return None
    attributes = owner.operation.attributes
    if "value" not in attributes:
        return None
    attr = attributes["value"]
    if not isinstance(attr, (ir.IntegerAttr, ir.BoolAttr, ir.FloatAttr)):
        return None
    text = str(attr).split(":")[0].strip()
    if text in ("true", "false"):
        return int(text == "true")
    try:
        return int(text)
    except ValueError:
        return float(ir.FloatAttr(attr).value)


def symbol_name(op: OpLike) -> Optional[str]:
    """The ``sym_name`` of a symbol op, else None."""
    attributes = op.operation.attributes
    return ir.StringAttr(attributes["sym_name"]).value if "sym_name" in attributes else None


def function_type(op: OpLike) -> Optional[ir.FunctionType]:
    """The builtin FunctionType of a function (FunctionOpInterface) whose
    ``function_type`` attribute holds one; None for another op (and for a
    function typed otherwise, as ``llvm.func`` is)."""
    if not is_function(op) or "function_type" not in op.operation.attributes:
        return None
    ftype = ir.TypeAttr(op.operation.attributes["function_type"]).value
    return ftype if isinstance(ftype, ir.FunctionType) else None
