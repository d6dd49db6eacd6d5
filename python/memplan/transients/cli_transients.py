"""``memplan transients FILE --func NAME``: bytes of transient storage a call needs.

The input may be tensor-level (bufferized first with upstream's passes) or
memref-level IR. A function without a ``memplan.transients`` argument gets
one. The size query is folded when it can be; otherwise it is run through
the ExecutionEngine with the argument shapes given by ``--dim`` and scalar
arguments by ``--value`` (argument numbers count the function's arguments
without the storage).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from mlir import ir

import memplan
from memplan.cli.check import _dim
from memplan.ir.parse import ParseError, parse_source
from memplan.numerics import execute
from memplan.numerics.signature import entry_signature
from memplan.transients.contract import marked_arguments
from memplan.transients.queries import CONSTANT_ATTR, QUERY_SUFFIX

from memplan.pipeline import BUFFERIZATION as BUFFERIZE


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
    mod = ir.Module.parse(str(module))
    sig = entry_signature(mod, fn + QUERY_SUFFIX)
    query = _find(mod.operation, fn + QUERY_SUFFIX)
    # Arguments the size does not read need no value from the user.
    used = [any(True for _ in arg.uses) for arg in query.regions[0].blocks[0].arguments]
    inputs = []
    for i, spec in enumerate(sig.args):
        if spec.is_memref:
            shape = []
            for d, s in enumerate(spec.shape):
                size = s if s is not None else dims.get((i, d), dims.get(i, dims.get("*")))
                if size is None and not used[i]:
                    size = 0
                if size is None:
                    raise ValueError(f"argument #{i} dimension {d} is dynamic: give --dim {i}:{d}=SIZE")
                shape.append(size)
            inputs.append(np.zeros(shape, dtype=spec.dtype))
        else:
            if i not in values and not used[i]:
                values[i] = 0
            if i not in values:
                raise ValueError(f"argument #{i} ({spec.type_str}) is a scalar: give --value {i}=N")
            inputs.append(values[i])
    outcome = execute(mod, fn + QUERY_SUFFIX, inputs=inputs, poison=None)
    return int(outcome.outputs[0].data), False


def run(args: argparse.Namespace) -> int:
    try:
        text = open(args.file).read()
    except OSError as err:
        print(f"memplan transients: cannot read '{args.file}': {err.strerror}", file=sys.stderr)
        return 1
    with ir.Context():
        try:
            module = parse_source(text, args.file)
            size, constant = required_storage(module, args.func, dict(args.dims), dict(args.values))
        except ParseError as err:
            print(err, file=sys.stderr)
            return 1
        except ir.MLIRError as err:
            from memplan.cli.opt import format_diagnostics

            print(format_diagnostics(err), file=sys.stderr)
            return 1
        except (KeyError, ValueError) as err:
            print(f"memplan transients: {err.args[0] if err.args else err}", file=sys.stderr)
            return 2
    kind = "constant" if constant else "for the given shapes"
    print(f"@{args.func}: {size} bytes of transient storage ({kind})")
    return 0
