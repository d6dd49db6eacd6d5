"""``memplan transients FILE --func NAME``: bytes of transient storage a call needs.

The input may be tensor-level (bufferized first with upstream's passes) or
memref-level IR. A function without a ``memplan.transients`` argument gets
one. The size query is folded when it can be; otherwise the argument shapes
given by ``--dim`` and scalar arguments given by ``--value`` are substituted
into it and it is folded again: no input is allocated and nothing runs
(argument numbers count the function's arguments without the storage).
"""

from __future__ import annotations

import argparse
import sys

from mlir import ir, passmanager
from mlir.dialects import arith

import memplan
from memplan.cli.check import _dim
from memplan.cli.arguments import load_input
from memplan.ir.parse import format_diagnostics
from memplan.numerics.signature import entry_signature
from memplan.transients.contract import marked_arguments
from memplan.transients.queries import CONSTANT_ATTR, QUERY_SUFFIX

from memplan.pipeline import BUFFERIZATION as BUFFERIZE

PROG = "memplan transients"


def _value(text: str) -> tuple[int, int]:
    try:
        arg, value = text.split("=", 1)
        return int(arg), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid --value {text!r}: expected ARG=INTEGER") from None


def add_parser(sub) -> None:
    p = sub.add_parser("transients", help="print the transient storage a function needs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="MLIR file (tensor or memref level)")
    p.add_argument("--func", required=True, help="the function (without @)")
    p.add_argument("--dim", dest="dims", action="append", type=_dim, default=[],
                   help="dynamic size ARG:DIM=SIZE, ARG=SIZE or *=SIZE")
    p.add_argument("--value", dest="values", action="append", type=_value, default=[],
                   help="value of a scalar argument, ARG=INTEGER")
    p.set_defaults(run=run)


def _find(module: ir.Operation, name: str):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    return None


def required_storage(module: ir.Operation, fn: str, dims: dict, values: dict) -> tuple[int, bool]:
    """Bytes of storage ``fn`` needs, and whether that is a compile-time constant."""
    func = _find(module, fn)
    if func is None:
        raise KeyError(f"no function @{fn}")
    if any(isinstance(t, ir.RankedTensorType) for t in ir.FunctionType(func.type).inputs):
        memplan.run_pipeline(module, f"builtin.module({BUFFERIZE})")
        func = _find(module, fn)
    if not marked_arguments(func.operation):
        memplan.run_pipeline(module, f"builtin.module(memplan-add-transient-storage{{func={fn}}})")
    memplan.run_pipeline(module, "builtin.module(memplan-transients)")
    func = _find(module, fn)
    if CONSTANT_ATTR in func.attributes:
        return ir.IntegerAttr(func.attributes[CONSTANT_ATTR]).value, True
    return _fold_query(module, fn + QUERY_SUFFIX, dims, values), False


def _fold_query(module: ir.Operation, name: str, dims: dict, values: dict) -> int:
    """Evaluate the size query for the given shapes without running it: the
    dims of memref arguments and the scalar arguments become constants and
    the query folds (it is pure arithmetic over them), so no input is
    allocated, whatever its size."""
    mod = ir.Module.parse(str(module))
    query = _find(mod.operation, name)
    sig = entry_signature(mod, name)
    block = query.regions[0].blocks[0]
    index = ir.IndexType.get()
    first = next(iter(block.operations))
    for i, (spec, arg) in enumerate(zip(sig.args, block.arguments)):
        uses = [use.owner for use in arg.uses]
        if spec.is_memref:
            for user in uses:
                if user.name != "memref.dim":
                    raise ValueError(f"the size query reads argument #{i} through {user.name}")
                d = _constant_index(user.operands[1])
                if d is None or not 0 <= d < len(spec.shape):
                    raise ValueError(f"the size query reads a non-constant dimension of argument #{i}")
                size = spec.shape[d]
                if size is None:
                    size = dims.get((i, d), dims.get(i, dims.get("*")))
                if size is None:
                    raise ValueError(f"argument #{i} dimension {d} is dynamic: give --dim {i}:{d}=SIZE")
                with ir.InsertionPoint(user), user.location:
                    const = arith.ConstantOp(index, int(size)).result
                user.results[0].replace_all_uses_with(const)
        elif uses:
            if i not in values:
                raise ValueError(f"argument #{i} ({spec.type_str}) is a scalar: give --value {i}=N")
            with ir.InsertionPoint(first), query.location:
                const = arith.ConstantOp(arg.type, int(values[i])).result
            arg.replace_all_uses_with(const)
    passmanager.PassManager.parse(f"builtin.module(func.func(canonicalize))").run(mod.operation)
    ret = list(_find(mod.operation, name).regions[0].blocks[0].operations)[-1]
    owner = ret.operands[0].owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        raise ValueError(
            f"the size of @{name[: -len(QUERY_SUFFIX)]} does not fold for the given shapes and values "
            "(a division by zero, or a size that is not pure arithmetic)")
    return ir.IntegerAttr(owner.attributes["value"]).value


def _constant_index(value: ir.Value):
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def run(args: argparse.Namespace) -> int:
    with ir.Context() as ctx:
        loaded = load_input(PROG, args.file, ctx)
        if loaded is None:
            return 1
        module = loaded.operation
        try:
            size, constant = required_storage(module, args.func, dict(args.dims), dict(args.values))
        except ir.MLIRError as err:
            print(format_diagnostics(err), file=sys.stderr)
            return 1
        except (KeyError, ValueError) as err:
            print(f"memplan transients: {err.args[0] if err.args else err}", file=sys.stderr)
            return 2
    kind = "constant" if constant else "for the given shapes"
    print(f"@{args.func}: {size} bytes of transient storage ({kind})")
    return 0
