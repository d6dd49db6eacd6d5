"""``memplan explain FILE``: why each copy of One-Shot Bufferize is needed.

For every tensor operand that bufferizes out of place, prints the op and its
location, the bytes the copy costs, and the three locations that force it:
the definition, the conflicting write and the read (or the non-writable
buffer). ``--json`` prints the full analysis (decisions, alias and
equivalence sets, conflicts) instead.
"""

from __future__ import annotations

import argparse
import sys

PROG = "memplan explain"


#: The line ``memplan --help`` gives the subcommand.
HELP = "explain the copies of One-Shot Bufferize"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``explain`` subcommand's arguments to its parser ``p``."""
    p.add_argument("file", help="MLIR input file (- for stdin)")
    p.add_argument("--json", action="store_true", help="print the whole analysis as JSON")
    p.add_argument(
        "--no-function-boundaries",
        action="store_true",
        help="analyze function bodies only (default: bufferize-function-boundaries)",
    )
    p.add_argument(
        "--heuristic",
        default="bottom-up",
        choices=("bottom-up", "top-down", "bottom-up-from-terminators", "min-copy-bytes"),
    )
    p.add_argument("--allow-unknown-ops", action="store_true")
    p.add_argument("--allow-return-allocs-from-loops", action="store_true")
    p.add_argument("--function", help="only this function")


def run(args: argparse.Namespace) -> int:
    """Run ``memplan explain`` on parsed ``args``; returns the exit code."""
    from mlir import ir

    from memplan.cli.arguments import load_input
    from memplan.inplace.explain import InplaceAnalysisError, analyze
    from memplan.ir.interfaces import is_function, symbol_name

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        loaded = load_input(PROG, args.file, ctx)
        if loaded is None:
            return 1
        module = loaded.operation
        target = module
        if args.function:
            target = None
            for op in module.regions[0].blocks[0].operations:
                if is_function(op) and symbol_name(op) == args.function:
                    target = op.operation
            if target is None:
                print(f"memplan explain: no function @{args.function}", file=sys.stderr)
                return 1
        try:
            result = analyze(
                target,
                bufferize_function_boundaries=not args.no_function_boundaries,
                analysis_heuristic=args.heuristic,
                allow_unknown_ops=args.allow_unknown_ops,
                allow_return_allocs_from_loops=args.allow_return_allocs_from_loops,
            )
        except InplaceAnalysisError as err:
            print(f"memplan explain: {err}", file=sys.stderr)
            return 1
        sys.stdout.write(result.to_json() + "\n" if args.json else result.explain_text())
    return 0
