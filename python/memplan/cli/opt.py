"""``memplan-opt``: mlir-opt with memplan's passes.

    memplan-opt [INPUT|-] [-o OUTPUT] --pass-pipeline='builtin.module(...)'
                [--split-input-file] [--mlir-pass-statistics]
    memplan-opt --list-passes | --version

Exit codes follow mlir-opt: 0 success, 1 when parsing or a pass fails (its
diagnostics go to stderr and no output file is written), 2 for a bad command
line, an unknown pass or an unknown option.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from mlir import ir

import memplan
from memplan import _core
from memplan import passes as registry
from memplan.ir.parse import ParseError, location_prefix, parse_source, split_input
from memplan.pipeline import PipelineError, build_pass_manager


def _arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="memplan-opt",
        description="Run pass pipelines mixing upstream MLIR passes and memplan passes.",
    )
    p.add_argument("input", nargs="?", default="-", help="input file, or - for stdin")
    p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    p.add_argument(
        "--pass-pipeline",
        "-pass-pipeline",
        dest="pipeline",
        default="builtin.module()",
        help="textual pipeline, e.g. 'builtin.module(one-shot-bufferize, memplan-buffer-reuse)'",
    )
    p.add_argument(
        "--split-input-file",
        "-split-input-file",
        action="store_true",
        help="split the input on '// -----' and process each chunk independently",
    )
    p.add_argument(
        "--mlir-pass-statistics",
        "-mlir-pass-statistics",
        action="store_true",
        help="print the memplan passes' statistics to stderr",
    )
    p.add_argument(
        "--allow-unregistered-dialect",
        "-allow-unregistered-dialect",
        action="store_true",
        help="accept ops of unregistered dialects",
    )
    p.add_argument("--list-passes", action="store_true", help="list memplan passes and exit")
    p.add_argument("--version", action="store_true", help="print versions and exit")
    return p


def list_passes() -> str:
    """The ``--list-passes`` text."""
    lines = ["memplan passes (use with --pass-pipeline, alongside any upstream pass):"]
    for info in registry.registered_passes():
        lines.append(registry.describe(info))
    return "\n".join(lines)


def version() -> str:
    """memplan's version and the MLIR it runs on."""
    from importlib import metadata

    try:
        mlir_version = metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        mlir_version = "unknown"
    return f"memplan {memplan.__version__}\nMLIR Python bindings {mlir_version}"


def format_diagnostics(err: ir.MLIRError) -> str:
    """mlir-opt style ``file:line:col: error: message`` lines with notes."""
    lines = []
    for diag in err.error_diagnostics:
        lines.append(f"{location_prefix(diag.location)}: error: {diag.message}")
        for note in diag.notes:
            lines.append(f"{location_prefix(note.location)}: note: {note.message}")
    return "\n".join(lines) if lines else str(err)


def _print_statistics(passes: Sequence[registry.MemplanPass]) -> None:
    bar = "===" + "-" * 73 + "==="
    print(bar, file=sys.stderr)
    print(" " * 26 + "... Pass statistics report ...", file=sys.stderr)
    print(bar, file=sys.stderr)
    for p in passes:
        print(f"{p.info.py_name}", file=sys.stderr)
        for name, (value, desc) in p.statistics.items():
            print(f"  (S) {value} {name} - {desc}", file=sys.stderr)


def run(argv: Optional[Sequence[str]] = None, *, keep_alive: Optional[list] = None) -> int:
    """Run memplan-opt; returns the exit code.

    The context and modules are appended to ``keep_alive`` when given, so that
    they outlive the call (see :func:`main`).
    """
    args = _arg_parser().parse_args(argv)
    if args.version:
        print(version())
        return 0
    if args.list_passes:
        print(list_passes())
        return 0

    source_name = "<stdin>" if args.input == "-" else args.input
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    except OSError as err:
        print(f"memplan-opt: cannot read '{args.input}': {err.strerror}", file=sys.stderr)
        return 1

    context = ir.Context()
    context.allow_unregistered_dialects = args.allow_unregistered_dialect
    # The bindings' error capture is not thread-safe: a diagnostic emitted on
    # a verifier worker thread (e.g. two nested modules failing to verify)
    # aborts the process. Single-threaded, every diagnostic is reported.
    context.enable_multithreading(False)
    if keep_alive is not None:
        keep_alive.append(context)
    outputs: list[bytes] = []
    failed = False
    with context:
        try:
            spare = build_pass_manager(args.pipeline, context)
        except PipelineError as err:
            print(f"memplan-opt: {err}", file=sys.stderr)
            return 2
        for chunk in split_input(text, args.split_input_file):
            try:
                module = parse_source(chunk.text, source_name, context, chunk.first_line)
            except ParseError as err:
                print(err, file=sys.stderr)
                failed = True
                continue
            if keep_alive is not None:
                keep_alive.append(module)
            # A fresh pass manager per chunk keeps each chunk's statistics apart.
            if spare is not None:  # the one built to check the pipeline
                (pm, memplan_passes), spare = spare, None
            else:
                pm, memplan_passes = build_pass_manager(args.pipeline, context)
            try:
                pm.run(module)
            except ir.MLIRError as err:
                print(format_diagnostics(err), file=sys.stderr)
                failed = True
                continue
            if args.mlir_pass_statistics and memplan_passes:
                _print_statistics(memplan_passes)
            # The text as UTF-8 bytes, as mlir-opt writes it. The IR is verified
            # (after parsing, and by the pass manager after each pass), so the
            # printer need not verify it again before printing.
            outputs.append(_core.print_asm(module._CAPIPtr, assume_verified=True))

    # mlir-opt ends each module with an empty line, then the split marker.
    result = b"// -----\n".join(o + (b"\n" if o.endswith(b"\n") else b"\n\n") for o in outputs)
    if args.output == "-":
        _write_stdout(result)
    elif not failed:
        _write_atomically(args.output, result)
    return 1 if failed else 0


def _write_stdout(data: bytes) -> None:
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (e.g. io.StringIO)
        sys.stdout.write(data.decode())
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def _write_atomically(path: str, data: bytes) -> None:
    import tempfile

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".memplan-opt-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main() -> None:
    """Console-script entry point."""
    keep_alive: list = []
    code = run(keep_alive=keep_alive)
    # Leave without freeing the IR or finalizing the interpreter, which on
    # big inputs costs a sizeable part of a whole run; only the standard
    # streams have anything pending.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # e.g. a closed pipe: exit the usual way, which reports it
        sys.exit(code)
    os._exit(code)


if __name__ == "__main__":
    main()
