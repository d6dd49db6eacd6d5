"""``memplan report FILE``: print a liveness report and draw its timeline.

FILE is a JSON report (``memplan-buffer-liveness{format=json output=FILE}``)
or MLIR after bufferization (analyzed on the fly; ``--bufferize`` first runs
``one-shot-bufferize, buffer-deallocation-pipeline,
optimize-allocation-liveness`` for tensor-level input).
"""

from __future__ import annotations

import argparse
import json
import sys

from memplan.pipeline import BUFFERIZATION

PREPARE = f"builtin.module({BUFFERIZATION})"


def add_parser(subparsers: "argparse._SubParsersAction") -> None:
    """Register the ``report`` subcommand."""
    p = subparsers.add_parser(
        "report",
        help="print buffer lifetimes of a liveness JSON report or an MLIR file; draw the timeline",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="JSON report or .mlir file")
    p.add_argument("--function", help="report only this function (and plot it; default: all, plot the first)")
    p.add_argument("--plot", metavar="PNG", help="draw the memory timeline to this image")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--bufferize", action="store_true", help="bufferize tensor-level MLIR first")
    p.add_argument("--algorithm", default="best", help="packing algorithm for MLIR input")
    p.add_argument("--alignment", type=int, default=64, help="pool alignment for MLIR input")
    p.set_defaults(run=run)


def _load(args: argparse.Namespace) -> dict:
    from memplan.lifetimes.report import load_report

    with open(args.file) as f:
        head = f.read(1).strip()
    if args.file.endswith(".json") or head == "{":
        return load_report(args.file)
    from mlir import ir

    from memplan.ir.parse import parse_source
    from memplan.lifetimes.analysis import analyze_module
    from memplan.lifetimes.report import report_dict
    from memplan.pipeline import run_pipeline

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(open(args.file).read(), args.file)
        if args.bufferize:
            run_pipeline(module, PREPARE)
        elif _has_tensors(module.operation):
            raise ValueError(f"{args.file} holds tensor IR: the report needs memrefs "
                             "(pass --bufferize to bufferize it first)")
        return report_dict(analyze_module(module), algorithm=args.algorithm,
                           alignment=args.alignment)


def _has_tensors(module) -> bool:
    """Whether any function signature or op result of ``module`` is a tensor."""
    from mlir import ir

    found = []

    def visit(op: "ir.Operation") -> "ir.WalkResult":
        types = [r.type for r in op.results]
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            types += list(ftype.inputs) + list(ftype.results)
        if any(isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)) for t in types):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return bool(found)


def run(args: argparse.Namespace) -> int:
    """Run ``memplan report``; returns the exit code."""
    from memplan.lifetimes.report import find_function, format_text

    try:
        doc = _load(args)
    except (OSError, ValueError) as err:
        print(f"memplan report: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # parse errors and pipeline failures from MLIR
        print(f"memplan report: {args.file}: {err}", file=sys.stderr)
        return 1
    try:
        func = find_function(doc, args.function)
    except ValueError as err:
        print(f"memplan report: {err}", file=sys.stderr)
        return 1
    if args.function is not None:
        doc = dict(doc, functions=[func])
    print(json.dumps(doc, indent=1) if args.json else format_text(doc))
    if args.plot:
        from memplan.lifetimes.plot import plot_timeline

        try:
            plot_timeline(func, args.plot)
        except ImportError:  # pragma: no cover - matplotlib is an optional extra
            print("memplan report: --plot needs matplotlib (pip install 'memplan[plot]')",
                  file=sys.stderr)
            return 1
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0
