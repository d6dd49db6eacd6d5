"""``memplan-check``: compare two versions of an MLIR program bit for bit.

Usage::

    memplan-check BEFORE.mlir AFTER.mlir --entry NAME [--seed N] [--no-poison]
                  [--dim ARG:DIM=SIZE ...] [--value ARG=N ...]
                  [--input ARG=FILE.npy ...] [--opt-level 0-3]

Prints ``OK`` or the first mismatch, the ``cf.assert`` failures of both
programs (by message and count), then the heap figures of both programs.
Exit status: 0 when the outputs agree, the same assertions failed equally
often (and, unless ``--no-poison``, neither program reads uninitialized
memory), 1 on a mismatch or when a file cannot be read, parsed, lowered or
compiled (MLIR diagnostics are printed with file:line:col), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

from memplan.cli.arguments import ArgumentParser, load_input
from memplan.numerics.runner import DEFAULT_OPT_LEVEL

__all__ = ["main", "build_parser"]

PROG = "memplan-check"


def _dim(text: str) -> Tuple[Union[Tuple[int, int], int, str], int]:
    """Parse ``ARG:DIM=SIZE``, ``ARG=SIZE`` or ``*=SIZE``."""
    try:
        key, size = text.split("=", 1)
        value = int(size)
        if key == "*":
            return "*", value
        if ":" in key:
            arg, dim = key.split(":", 1)
            return (int(arg), int(dim)), value
        return int(key), value
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --dim {text!r}: expected ARG:DIM=SIZE, ARG=SIZE or *=SIZE"
        ) from None


def _value(text: str) -> Tuple[int, Union[int, float]]:
    """Parse ``ARG=N`` (an integer, or a float for float arguments)."""
    try:
        arg, value = text.split("=", 1)
        try:
            number: Union[int, float] = int(value, 0)
        except ValueError:
            number = float(value)
        return int(arg), number
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --value {text!r}: expected ARG=NUMBER"
        ) from None


def _input(text: str) -> Tuple[int, str]:
    """Parse ``ARG=FILE.npy``."""
    arg, sep, path = text.partition("=")
    try:
        if not sep or not path:
            raise ValueError
        return int(arg), path
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --input {text!r}: expected ARG=FILE.npy"
        ) from None


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
    parser.add_argument("--dim", dest="dims", action="append", type=_dim, default=[],
                        metavar="ARG:DIM=SIZE",
                        help="size of a dynamic dimension (repeatable; ARG=SIZE "
                             "sets all of an argument's, *=SIZE all others; default 7; "
                             "ARG=N also sets an index argument)")
    parser.add_argument("--value", dest="values", action="append", type=_value, default=[],
                        metavar="ARG=N",
                        help="value of a scalar argument (repeatable)")
    parser.add_argument("--input", dest="inputs", action="append", type=_input, default=[],
                        metavar="ARG=FILE.npy",
                        help="contents of a tensor/memref argument from a .npy file "
                             "(repeatable; its shape sets the dynamic sizes)")
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

    dims: Dict = dict(args.dims)
    values: Dict = dict(args.values)
    for arg, path in args.inputs:
        try:
            values[arg] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            print(f"memplan-check: error: cannot read {path}: {err}", file=sys.stderr)
            return 1
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
        print(f"memplan-check: error: {err}", file=sys.stderr)
        return 1
    print(result)
    return 0 if result.ok else 1


def _print_diagnostic(diag) -> None:
    from memplan.numerics.source import location_text as _loc_text

    print(f"{_loc_text(diag.location)}: error: {diag.message}", file=sys.stderr)
    for note in diag.notes:
        print(f"{_loc_text(note.location)}: note: {note.message}", file=sys.stderr)

if __name__ == "__main__":
    sys.exit(main())
