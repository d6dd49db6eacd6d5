"""``memplan report FILE``: print a liveness report and draw its timeline.

FILE is a JSON report (``memplan-buffer-liveness{format=json output=FILE}``)
or MLIR after bufferization (analyzed on the fly; ``--bufferize`` first
bufferizes tensor-level input as upstream's reference pipeline does, with
memplan's in-place analysis, whose decisions are upstream's, in place of
upstream's: the pipeline is printed under ``--bufferize``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

from memplan.cli.arguments import add_argument_options, print_error
from memplan.passes.pipeline import BUFFERIZATION, PipelineError, run_pipeline
from memplan.reuse.packing import ALGORITHMS

PROG = "memplan report"
PREPARE = f"builtin.module({BUFFERIZATION})"


#: The line ``memplan --help`` gives the subcommand.
HELP = "print buffer lifetimes of a liveness JSON report or an MLIR file; draw the timeline"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``report`` subcommand's arguments to its parser ``p``."""
    p.add_argument("file", help="JSON report or .mlir file")
    p.add_argument(
        "--function", help="report only this function (and plot it; default: all, plot the first)"
    )
    p.add_argument(
        "--plot",
        metavar="IMAGE",
        help="draw the memory timeline to this image (its extension gives the format: png, svg, "
        "pdf...)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--bufferize",
        action="store_true",
        help=f"bufferize tensor-level MLIR first: {BUFFERIZATION}",
    )
    p.add_argument(
        "--algorithm",
        default="best",
        choices=ALGORITHMS,
        help="packing algorithm for MLIR input (default: best)",
    )
    p.add_argument(
        "--alignment",
        type=_alignment,
        default=64,
        help="pool alignment in bytes for MLIR input, a power of two (default: 64)",
    )
    # Sizes for dynamic shapes: the report (sizes, pool, peaks, plot) is then
    # that instance's; without them sizes and the peak are expressions over
    # the arguments (arg0.dim0, arg1).
    add_argument_options(p)


def _alignment(text: str) -> int:
    """A positive power of two, as memplan's alignment pass options."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0 or value & (value - 1):
        raise argparse.ArgumentTypeError(
            f"invalid --alignment {text!r}: a power of two (bytes) is needed"
        )
    return value


def _load(args: argparse.Namespace) -> dict:
    """The report: a JSON report as it is, or MLIR (text or bytecode)
    analyzed here. Raises :class:`ReadError`, :class:`ParseError`,
    ``ValueError`` or ``mlir.ir.MLIRError``."""
    from memplan.ir.parse import is_bytecode, parse_source, read_source
    from memplan.liveness.report import load_report

    data = read_source(args.file)
    if not is_bytecode(data) and (args.file.endswith(".json") or data.lstrip()[:1] == b"{"):
        if args.file == "-":
            raise ValueError("a JSON report is read from a file, not from standard input")
        try:
            return load_report(args.file)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{args.file}: not a memplan liveness report (not JSON: {err})"
            ) from None
    from mlir import ir

    from memplan.lifetimes.analysis import analyze_module
    from memplan.liveness.report import report_dict

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(data, args.file, ctx)
        decisions = None
        if args.bufferize:
            if _has_tensors(module.operation):
                # What memplan-eliminate-subset-copies does with the copies
                # the report finds at the peak.
                from memplan.peak.subset_copies import copy_decisions

                decisions = copy_decisions(module.operation)
            run_pipeline(module, PREPARE)
        elif _has_tensors(module.operation):
            raise ValueError(
                f"{args.file} holds tensor IR: the report needs memrefs "
                "(pass --bufferize to bufferize it first)"
            )
        sizes = None
        if args.dims or args.values:
            from memplan.lifetimes.symbolic import ArgumentSizes

            sizes = ArgumentSizes(dict(args.dims), dict(args.values))
        return report_dict(
            analyze_module(module),
            algorithm=args.algorithm,
            alignment=args.alignment,
            sizes=sizes,
            copy_decisions=decisions,
        )


def _has_tensors(module) -> bool:
    """Whether any function signature or op result of ``module`` is a tensor."""
    from mlir import ir

    from memplan.ir.interfaces import function_type

    found = []

    def visit(op: "ir.Operation") -> "ir.WalkResult":
        types = [r.type for r in op.results]
        ftype = function_type(op)
        if ftype is not None:
            types += list(ftype.inputs) + list(ftype.results)
        if any(isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)) for t in types):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return bool(found)


def _plot_problem(path: str) -> Optional[str]:
    """Why the timeline cannot be drawn to ``path`` (checked before any work),
    or ``None``."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:  # pragma: no cover - matplotlib is an optional extra
        return "--plot needs matplotlib (pip install 'memplan[plot]')"
    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    extension = os.path.splitext(path)[1][1:].lower()
    if extension not in formats:
        what = (
            f"unknown image format '.{extension}'"
            if extension
            else "no image format (file extension)"
        )
        return f"cannot write the plot to '{path}': {what}; use one of: {', '.join(formats)}"
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        reason = "Not a directory" if os.path.exists(folder) else "No such file or directory"
        return f"cannot write the plot to '{path}': {reason} ('{folder}')"
    if os.path.isdir(path):
        return f"cannot write the plot to '{path}': Is a directory"
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``memplan report``; returns the exit code."""
    from mlir import ir

    from memplan.ir.parse import ParseError, ReadError, format_diagnostics
    from memplan.liveness.report import find_function, format_text

    if args.plot is not None:
        problem = _plot_problem(args.plot)
        if problem is not None:
            return print_error(PROG, problem)
    try:
        doc = _load(args)
    except ReadError as err:
        return print_error(PROG, str(err))
    except ParseError as err:
        print(err, file=sys.stderr)
        return 1
    except ir.MLIRError as err:
        print(format_diagnostics(err), file=sys.stderr)
        return 1
    except (PipelineError, ValueError) as err:
        return print_error(PROG, str(err))
    try:
        func = find_function(doc, args.function)
        if args.function is not None:
            doc = dict(doc, functions=[func])
        text = json.dumps(doc, indent=1) if args.json else format_text(doc)
    except ValueError as err:
        return print_error(PROG, str(err))
    except (KeyError, TypeError, AttributeError) as err:  # a JSON file of another shape
        return print_error(PROG, f"{args.file}: not a memplan liveness report (no {err})")
    print(text)
    if args.plot is not None:
        from memplan.reuse.plot import plot_timeline

        try:
            plot_timeline(func, args.plot)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            return print_error(PROG, f"cannot write the plot to '{args.plot}': {reason}")
        except (KeyError, TypeError, AttributeError) as err:
            return print_error(PROG, f"{args.file}: not a memplan liveness report (no {err})")
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0
