"""``memplan-check``: compare two versions of an MLIR program bit for bit.

Usage::

    memplan-check BEFORE.mlir AFTER.mlir --entry NAME [--seed N] [--no-poison]
                  [--dim ARG:DIM=SIZE ...] [--value ARG=N ...]
                  [--input ARG=FILE.npy ...] [--opt-level 0-3]

Prints ``OK`` or the first mismatch, the ``cf.assert`` failures of both
programs (by message and count), then the heap figures of both programs.
Exit status: 0 when the outputs agree, the same assertions failed equally
often (and, unless ``--no-poison``, neither program reads uninitialized
memory), 1 on a mismatch, a bad command line or option value, or when a
file cannot be read, parsed, lowered or compiled (MLIR diagnostics are
printed with file:line:col). Arguments are named by the entry function's
own numbers: ``N``, ``argN`` or ``%argN``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Optional

import numpy as np

from memplan.cli.arguments import (
    ArgumentParser,
    UsageError,
    add_argument_options,
    check_arguments,
    function_arguments,
    load_input,
    print_error,
)
from memplan.numerics.runner import DEFAULT_OPT_LEVEL

__all__ = ["main", "build_parser"]

PROG = "memplan-check"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``memplan-check``."""
    parser = ArgumentParser(
        prog=PROG,
        description=(
            "Run two versions of an MLIR program (tensor or memref level) on "
            "identical inputs and compare every output bit for bit."
        ),
    )
    parser.add_argument("before", metavar="BEFORE.mlir", help="reference program")
    parser.add_argument("after", metavar="AFTER.mlir", help="rewritten program")
    parser.add_argument("--entry", required=True, metavar="NAME",
                        help="name of the func.func to run (without @)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the random inputs (default: 0)")
    parser.add_argument("--no-poison", dest="poison", action="store_false",
                        help="do not check for reads of uninitialized heap memory")
    add_argument_options(parser, inputs=True)
    parser.add_argument("--opt-level", type=int, choices=range(4), default=None,
                        metavar="0-3",
                        help="LLVM optimization level of the JIT (default: "
                             f"{DEFAULT_OPT_LEVEL}, the fastest whole check measured)")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    entry = args.entry[1:] if args.entry.startswith("@") else args.entry

    from mlir import ir

    from memplan.numerics import LoweringError, compare

    context = ir.Context()
    modules = []
    for path in (args.before, args.after):
        module = load_input(PROG, path, context)
        if module is None:
            return 1
        modules.append(module)

    try:
        types, storage = function_arguments(modules[0], entry)
        check_arguments(entry, types, args.dims, args.values, args.inputs, storage,
                        storage_sized=True)
    except KeyError as err:
        return print_error(PROG, f"BEFORE: {err.args[0]}")
    except UsageError as err:
        return print_error(PROG, str(err))
    dims: Dict = dict(args.dims)
    values: Dict = dict(args.values)
    for arg, path in args.inputs:
        try:
            values[arg] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or err
            return print_error(PROG, f"cannot read '{path}': {reason}")
    opt_level = DEFAULT_OPT_LEVEL if args.opt_level is None else args.opt_level
    try:
        result = compare(modules[0], modules[1], entry, seed=args.seed,
                         poison=args.poison, dims=dims or None, values=values or None,
                         opt_level=opt_level)
    except KeyError as err:
        print(f"memplan-check: error: {err.args[0]}", file=sys.stderr)
        return 1
    except ir.MLIRError as err:
        print("memplan-check: error: cannot lower the programs:", file=sys.stderr)
        for diag in err.error_diagnostics:
            _print_diagnostic(diag)
        return 1
    except (LoweringError, ValueError, NotImplementedError) as err:
        return print_error(PROG, str(err))
    except MemoryError:
        return print_error(PROG, "out of memory for the inputs: give smaller sizes with --dim")
    print(result)
    return 0 if result.ok else 1


def _print_diagnostic(diag) -> None:
    from memplan.numerics.source import location_text as _loc_text

    print(f"{_loc_text(diag.location)}: error: {diag.message}", file=sys.stderr)
    for note in diag.notes:
        print(f"{_loc_text(note.location)}: note: {note.message}", file=sys.stderr)

if __name__ == "__main__":
    sys.exit(main())
