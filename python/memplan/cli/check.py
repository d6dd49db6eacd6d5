"""``memplan-check``: compare two versions of an MLIR program bit for bit.

Usage::

    memplan-check BEFORE.mlir AFTER.mlir --entry NAME [--seed N] [--no-poison]
                  [--dim ARG:DIM=SIZE ...] [--value ARG=N ...]
                  [--input ARG=FILE.npy ...] [--opt-level 0-3]
                  [--reference memplan|upstream] [--jobs 1|2] [-v]

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
import contextlib
import os
import sys
import time
from typing import Dict, List, Optional

import numpy as np

from memplan.cli.arguments import (
    ArgumentParser,
    UsageError,
    add_argument_options,
    add_repeatable,
    check_arguments,
    function_arguments,
    load_input,
    parse_expect,
    print_error,
    quiet_on_broken_pipe,
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
    parser.add_argument(
        "--entry", required=True, metavar="NAME", help="name of the func.func to run (without @)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the random inputs (default: 0)"
    )
    parser.add_argument(
        "--no-poison",
        dest="poison",
        action="store_false",
        help="do not check for reads of uninitialized heap memory",
    )
    add_argument_options(parser, inputs=True)
    add_repeatable(
        parser,
        "--expect",
        "expect",
        parse_expect,
        "[OUTPUT=]FILE.npy",
        "expected value of an output (repeatable): OUTPUT is resultN or argN "
        "(the program's results, then its memref arguments, numbered as "
        "BEFORE's function); without it the files go to the results in order",
    )
    parser.add_argument(
        "--rtol",
        type=float,
        default=0.0,
        help="relative tolerance of --expect (default 0: bit for bit)",
    )
    parser.add_argument(
        "--atol", type=float, default=0.0, help="absolute tolerance of --expect (default 0)"
    )
    parser.add_argument(
        "--save-outputs",
        metavar="DIR",
        help="write every output of AFTER as DIR/OUTPUT.npy (resultN.npy, argN.npy; "
        "BEFORE's too, as DIR/before.OUTPUT.npy, where they differ)",
    )
    parser.add_argument(
        "--reference",
        choices=("memplan", "upstream"),
        default="memplan",
        help="bufferization of a tensor-level program: memplan's "
        "memplan-one-shot-bufferize (default: upstream One-Shot Analysis' "
        "decisions, near-linear time) or upstream's one-shot-bufferize "
        "(about cubic on long programs); the output names the one run",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the seconds of each phase (parsing, bufferization, "
        "lowering, JIT compilation, runs, comparison) after the verdict",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        choices=(1, 2),
        default=2,
        metavar="1|2",
        help="2 (default, on a machine with two cores or more): AFTER is "
        "JIT-compiled and run in a second process while BEFORE is; 1: one "
        "after the other",
    )
    parser.add_argument(
        "--opt-level",
        type=int,
        choices=range(4),
        default=None,
        metavar="0-3",
        help="LLVM optimization level of the JIT (default: "
        f"{DEFAULT_OPT_LEVEL}, the fastest whole check measured)",
    )
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; returns the exit status (1, quietly, when the reader of
    standard output goes away: ``memplan-check ... | head``)."""
    return quiet_on_broken_pipe(lambda: _check(argv))


def _check(argv: Optional[List[str]]) -> int:
    args = build_parser().parse_args(argv)
    entry = args.entry[1:] if args.entry.startswith("@") else args.entry

    from mlir import ir

    from memplan.numerics import LoweringError, compare
    from memplan.numerics.timing import PhaseTimes, cpu_seconds

    times = PhaseTimes() if args.verbose else None
    started, started_cpu = time.perf_counter(), cpu_seconds()
    context = ir.Context()
    modules = []
    for path, label in ((args.before, "before"), (args.after, "after")):
        with times.measure(f"{label} parsing") if times else contextlib.nullcontext():
            module = load_input(PROG, path, context)
        if module is None:
            return 1
        modules.append(module)

    try:
        types, storage = function_arguments(modules[0], entry)
        check_arguments(
            entry, types, args.dims, args.values, args.inputs, storage, storage_sized=True
        )
    except KeyError as err:
        return print_error(PROG, f"BEFORE: {err.args[0]}")
    except UsageError as err:
        return print_error(PROG, str(err))
    try:
        function_arguments(modules[1], entry)
    except KeyError as err:
        return print_error(PROG, f"AFTER: {err.args[0]}")
    dims: Dict = dict(args.dims)
    values: Dict = dict(args.values)
    for arg, path in args.inputs:
        try:
            values[arg] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or err
            return print_error(PROG, f"cannot read '{path}': {reason}")
    expected = []
    for name, path in args.expect:
        try:
            expected.append((name, path, np.load(path, allow_pickle=False)))
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or err
            return print_error(PROG, f"cannot read '{path}': {reason}")
    if not all(t >= 0 and t == t for t in (args.rtol, args.atol)):  # t == t: not NaN
        return print_error(
            PROG, f"--rtol {args.rtol} / --atol {args.atol}: tolerances are numbers >= 0"
        )
    if args.save_outputs is not None:
        if os.path.exists(args.save_outputs) and not os.path.isdir(args.save_outputs):
            return print_error(
                PROG, f"cannot write outputs to '{args.save_outputs}': Not a directory"
            )
        try:
            os.makedirs(args.save_outputs, exist_ok=True)
        except OSError as err:
            return print_error(
                PROG, f"cannot write outputs to '{args.save_outputs}': " f"{err.strerror or err}"
            )
    opt_level = DEFAULT_OPT_LEVEL if args.opt_level is None else args.opt_level
    try:
        result = compare(
            modules[0],
            modules[1],
            entry,
            seed=args.seed,
            poison=args.poison,
            dims=dims or None,
            values=values or None,
            opt_level=opt_level,
            keep_outputs=bool(expected or args.save_outputs),
            isolate=True,
            reference=args.reference,
            times=times,
            parallel=args.jobs > 1,
        )
    except KeyError as err:
        print(f"memplan-check: error: {err.args[0]}", file=sys.stderr)
        return 1
    except ir.MLIRError as err:
        print("memplan-check: error: cannot lower the programs:", file=sys.stderr)
        for diag in err.error_diagnostics:
            _print_diagnostic(diag)
        return 1
    except (LoweringError, ValueError, NotImplementedError, RuntimeError) as err:
        return print_error(PROG, str(err))
    except MemoryError:
        return print_error(PROG, "out of memory for the inputs: give smaller sizes with --dim")
    ok = result.ok
    lines = str(result).splitlines()
    if expected and result.output_names:
        expect_ok, expect_lines = _check_expected(result, expected, args.rtol, args.atol)
        if not expect_ok and ok:
            # The first line is the verdict: before and after agree, the
            # expected values do not.
            lines[0] = (
                f"MISMATCH: an output differs from --expect ({lines[0]}, before and after " "alike)"
            )
        ok = expect_ok and ok
        lines[1:1] = expect_lines
    if times is not None:
        lines.append(
            f"  times (s, wall clock; {time.perf_counter() - started:.2f} s, "
            f"{cpu_seconds() - started_cpu:.2f} CPU s in all, from parsing to the "
            "verdict):"
        )
        lines.extend(f"    {line}" for line in times.lines())
    print("\n".join(lines))
    if args.save_outputs is not None and result.output_names:
        problem = _save_outputs(result, args.save_outputs)
        if problem:
            return print_error(PROG, problem)
    return 0 if ok else 1


def _array(output) -> np.ndarray:
    """An output's elements in its shape (an argument's logical view)."""
    return np.array(output.logical if output.logical is not None else output.data, order="C")


def _check_expected(result, expected, rtol: float, atol: float) -> tuple[bool, list[str]]:
    """Compare outputs with ``--expect`` files: whether all match, and a
    line per file."""
    from memplan.numerics import expected_difference

    ok = True
    lines = []
    unnamed = 0  # files without a name go to result0, result1, ... in order
    for name, path, array in expected:
        if name is None:
            name, unnamed = f"result{unnamed}", unnamed + 1
        if name not in result.outputs_after:
            lines.append(
                f"  expect {path}: no output {name} (outputs: " f"{', '.join(result.output_names)})"
            )
            ok = False
            continue
        problems = []
        for side, outputs in (("before", result.outputs_before), ("after", result.outputs_after)):
            problem = expected_difference(_array(outputs[name]), array, rtol, atol)
            if problem:
                problems.append(f"{side}: {problem}")
        if len(problems) == 2 and problems[0][len("before: ") :] == problems[1][len("after: ") :]:
            problems = [f"before and after: {problems[0][len('before: '):]}"]
        tolerance = f" (rtol {rtol}, atol {atol})" if rtol or atol else " (bit for bit)"
        if problems:
            ok = False
            lines.append(f"  expect {name} = {path}{tolerance}: MISMATCH: {'; '.join(problems)}")
        else:
            lines.append(f"  expect {name} = {path}{tolerance}: before and after match")
    return ok, lines


def _save_outputs(result, folder: str) -> str:
    """Write the outputs as ``.npy`` files; returns a problem or ``""``."""
    written = []
    for name in result.output_names:
        targets = [(name, result.outputs_after[name])]
        before = result.outputs_before[name]
        if _array(before).tobytes() != _array(result.outputs_after[name]).tobytes():
            targets.append((f"before.{name}", before))
        for file_name, output in targets:
            path = os.path.join(folder, file_name + ".npy")
            try:
                np.save(path, _array(output), allow_pickle=False)
            except OSError as err:
                return f"cannot write '{path}': {err.strerror or err}"
            written.append(path)
    print(f"  saved {len(written)} output{'s' if len(written) != 1 else ''} to {folder}")
    return ""


def _print_diagnostic(diag) -> None:
    from memplan.numerics.source import location_text as _loc_text

    print(f"{_loc_text(diag.location)}: error: {diag.message}", file=sys.stderr)
    for note in diag.notes:
        print(f"{_loc_text(note.location)}: note: {note.message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
