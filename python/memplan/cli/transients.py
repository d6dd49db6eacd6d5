"""``memplan transients FILE --func NAME``: bytes of transient storage a call needs.

The input may be tensor-level (bufferized first with upstream's passes) or
memref-level IR. A function without a ``memplan.transients`` argument gets
one. The size query is folded when it can be; otherwise the argument shapes
given by ``--dim`` and scalar arguments given by ``--value`` are substituted
into it and it is evaluated: no input is allocated and nothing runs.
Arguments are named by the function's own numbers (``0``, ``arg0`` or
``%arg0``, as in every memplan tool), whatever the storage argument's place.
The evaluation is exact: a size that does not fit a 64-bit ``index`` at
any step (where the function itself would compute a wrapped size) is an
error, as is a division by zero.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional

from mlir import ir, passmanager
from mlir.dialects import arith
from mlir.dialects import func as func_dialect

import memplan
from memplan import _core
from memplan.cli.arguments import (
    INDEX_MAX,
    UsageError,
    add_argument_options,
    check_arguments,
    function_arguments,
    load_input,
    print_error,
)
from memplan.ir.interfaces import constant_number
from memplan.ir.parse import format_diagnostics
from memplan.numerics.signature import entry_signature, find_func
from memplan.passes.pipeline import BUFFERIZATION as BUFFERIZE
from memplan.transients.contract import marked_arguments
from memplan.transients.queries import CONSTANT_ATTR, QUERY_SUFFIX

PROG = "memplan transients"


#: The line ``memplan --help`` gives the subcommand.
HELP = "print the transient storage a function needs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``transients`` subcommand's arguments to its parser ``p``."""
    p.add_argument("file", help="MLIR file (tensor or memref level)")
    p.add_argument("--func", required=True, help="the function (without @)")
    add_argument_options(p)


def required_storage(module: ir.Operation, fn: str, dims: dict, values: dict) -> tuple[int, bool]:
    """Bytes of storage ``fn`` needs, and whether that is a compile-time constant."""
    try:
        func = find_func(module, fn)
    except KeyError:
        raise KeyError(f"no function @{fn}") from None
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    if any(isinstance(t, ir.RankedTensorType) for t in ftype.inputs):
        memplan.run_pipeline(module, f"builtin.module({BUFFERIZE})")
        func = find_func(module, fn)
    if not marked_arguments(func.operation):
        memplan.run_pipeline(module, f"builtin.module(memplan-add-transient-storage{{func={fn}}})")
    memplan.run_pipeline(module, "builtin.module(memplan-transients)")
    func = find_func(module, fn)
    if CONSTANT_ATTR in func.attributes:
        return ir.IntegerAttr(func.attributes[CONSTANT_ATTR]).value, True
    storage = marked_arguments(func.operation)
    return _fold_query(
        module, fn + QUERY_SUFFIX, dims, values, storage[0] if storage else None
    ), False


class _NoFold(Exception):
    """The query does not evaluate to a number for the given values."""


class _Overflow(Exception):
    """A step of the query does not fit its 64-bit type; ``args[0]`` is the op."""


def _fold_query(
    module: ir.Operation, name: str, dims: dict, values: dict, storage: Optional[int]
) -> int:
    """Evaluate the size query for the given shapes without running it: the
    dims of memref arguments and the scalar arguments become constants and
    the query is evaluated op by op (it is pure arithmetic over them), so no
    input is allocated, whatever its size. ``dims`` and ``values`` use the
    function's own argument numbers; the query takes the same arguments
    without the ``storage`` one."""
    # The query is memplan's own output (transients/queries.py builds it from
    # the function's own size arithmetic): argument dimensions are read by
    # ShapedDimOpInterface ops, constants are ConstantLike ops.
    function = name[: -len(QUERY_SUFFIX)]
    mod = ir.Module.parse(module.get_asm(enable_debug_info=True))
    query = find_func(mod, name)
    sig = entry_signature(mod, name)
    block = query.regions[0].blocks[0]
    index = ir.IndexType.get()
    first = next(iter(block.operations))
    for j, (spec, arg) in enumerate(zip(sig.args, block.arguments)):
        i = j + 1 if storage is not None and j >= storage else j  # the function's number
        uses = [use.owner for use in arg.uses]
        if spec.is_memref:
            for user in uses:
                shaped_dim = _core.shaped_dim(user.operation._CAPIPtr)
                if shaped_dim is None or user.operands[shaped_dim[0]] != arg:
                    raise ValueError(f"the size query reads argument #{i} through {user.name}")
                d = shaped_dim[1]
                if d is None or not 0 <= d < len(spec.shape):
                    raise ValueError(
                        f"the size query reads a non-constant dimension of argument #{i}"
                    )
                size = spec.shape[d]
                if size is None:
                    size = dims.get((i, d), dims.get(i, dims.get("*")))
                if size is None:
                    raise ValueError(
                        f"argument #{i} dimension {d} is dynamic: give --dim {i}:{d}=SIZE"
                    )
                with ir.InsertionPoint(user), user.location:
                    const = arith.ConstantOp(index, int(size)).result
                user.results[0].replace_all_uses_with(const)
        elif uses:
            if i not in values:
                raise ValueError(f"argument #{i} ({spec.type_str}) is a scalar: give --value {i}=N")
            with ir.InsertionPoint(first), query.location:
                const = _constant(arg.type, values[i])
            arg.replace_all_uses_with(const)
    # affine.apply/min/max of the slice as arith ops, which evaluate below.
    passmanager.PassManager.parse("builtin.module(func.func(lower-affine))").run(mod.operation)
    try:
        size = _evaluate(find_func(mod, name))
    except _NoFold:
        raise ValueError(
            f"the size of @{function} does not fold for the given shapes and values "
            "(a division by zero, or a size that is not pure arithmetic)"
        ) from None
    except _Overflow as err:
        raise ValueError(
            f"the size of @{function} does not fit a 64-bit index for the given shapes and values "
            f"(at {_location(err.args[0])}: {err.args[0].name} overflows; the function would "
            "compute a wrapped size)"
        ) from None
    if not 0 <= size <= INDEX_MAX:
        raise ValueError(
            f"the size of @{function} is {size} bytes for the given shapes and values: "
            "not a size a 64-bit index holds"
        )
    return size


def _location(op: ir.Operation) -> str:
    from memplan.ir.parse import location_prefix

    return location_prefix(op.location)


def _integer_bits(t: ir.Type) -> Optional[int]:
    if isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, ir.IntegerType):
        return t.width
    return None


def _wide(t: ir.Type) -> ir.Type:
    """``t`` with 64-bit integers (``index`` included) widened to 128 bits."""
    return ir.IntegerType.get_signless(128) if _integer_bits(t) == 64 else t


def _constant(t: ir.Type, value) -> ir.Value:
    bits = _integer_bits(t)
    if bits is not None:
        value = int(value)
        if value >= 1 << (bits - 1) and not getattr(t, "is_unsigned", False):
            value -= 1 << bits  # the same bits, in the range the parser takes
        return arith.ConstantOp(t, ir.Attribute.parse(f"{value} : {t}")).result
    return arith.ConstantOp(t, ir.FloatAttr.get(t, float(value))).result


def _fold_one(op: ir.Operation, operands: list, widen: bool):
    """Fold ``op`` on constant ``operands`` (exact numbers) with MLIR's own
    folders, in a scratch function; with ``widen``, 64-bit integer types
    become 128-bit so that a 64-bit overflow shows. Returns the result, or
    ``None`` when the op is not valid or does not fold at those types."""
    convert = _wide if widen else (lambda t: t)
    result_types = [convert(r.type) for r in op.results]
    scratch = ir.Module.create(op.location)
    with ir.InsertionPoint(scratch.body), op.location:
        f = func_dialect.FuncOp("fold", ([], result_types))
        with ir.InsertionPoint(f.add_entry_block()):
            args = [_constant(convert(v.type), x) for v, x in zip(op.operands, operands)]
            attributes = {}
            for attr in op.attributes:
                name = getattr(attr, "name", attr)
                attributes[name] = op.attributes[name]
            clone = ir.Operation.create(
                op.name, results=result_types, operands=args, attributes=attributes
            )
            func_dialect.ReturnOp(clone.results)
    try:
        if not scratch.operation.verify():
            return None
    except ir.MLIRError:
        return None
    try:
        passmanager.PassManager.parse("builtin.module(func.func(canonicalize))").run(
            scratch.operation
        )
    except ir.MLIRError:
        return None
    ret = list(scratch.body.operations[0].regions[0].blocks[0].operations)[-1]
    # Folded to a constant: whichever ConstantLike op the op's dialect
    # materializes (arith.constant, index.constant, ...).
    return constant_number(ret.operands[0])


def _fits(value, t: ir.Type) -> bool:
    bits = _integer_bits(t)
    return bits is None or -(1 << (bits - 1)) <= value < (1 << bits)


def _evaluate(query: ir.Operation) -> int:
    """The exact number a query returns once every argument is a constant:
    each op folded by MLIR at 128 bits where it takes 64-bit integers (so
    that a wrapped step raises :class:`_Overflow`), else at its own types."""
    known: dict = {}
    # The function's one block ends in its return (its terminator).
    *body, ret = [op.operation for op in query.regions[0].blocks[0].operations]
    for op in body:
        if len(op.results) != 1 or len(op.regions) or any(v not in known for v in op.operands):
            continue  # not evaluable: an error only if the result is needed
        operands = [known[v] for v in op.operands]
        result = op.results[0]
        value = constant_number(result)
        if value is None:
            # Negative 64-bit operands fold at their own width: widened, an
            # unsigned op would read them as 128-bit numbers.
            widen = all(
                x >= 0 for x, v in zip(operands, op.operands) if _integer_bits(v.type) == 64
            )
            value = _fold_one(op, operands, widen=True) if widen else None
            if value is None:
                if not all(_fits(x, v.type) for x, v in zip(operands, op.operands)):
                    raise _Overflow(op)
                value = _fold_one(op, operands, widen=False)
            if value is None:
                continue
        if _integer_bits(result.type) == 64 and not -(1 << 63) <= value < (1 << 63):
            raise _Overflow(op)
        known[result] = value
    if len(ret.operands) != 1 or ret.operands[0] not in known:
        raise _NoFold
    return known[ret.operands[0]]


def run(args: argparse.Namespace) -> int:
    """Run ``memplan transients``; returns the exit code."""
    with ir.Context() as ctx:
        loaded = load_input(PROG, args.file, ctx)
        if loaded is None:
            return 1
        fn = args.func[1:] if args.func.startswith("@") else args.func
        try:
            types, storage = function_arguments(loaded, fn)
            check_arguments(fn, types, args.dims, args.values, (), storage)
        except KeyError as err:
            return print_error(PROG, err.args[0])
        except UsageError as err:
            return print_error(PROG, str(err))
        try:
            size, constant = required_storage(
                loaded.operation, fn, dict(args.dims), dict(args.values)
            )
        except ir.MLIRError as err:
            print(format_diagnostics(err), file=sys.stderr)
            return 1
        except memplan.PipelineError as err:
            return print_error(PROG, str(err))
        except (KeyError, ValueError) as err:
            return print_error(PROG, str(err.args[0] if err.args else err))
    kind = "constant" if constant else "for the given shapes"
    print(f"@{fn}: {size} bytes of transient storage ({kind})")
    return 0
