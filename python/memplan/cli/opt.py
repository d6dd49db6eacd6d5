"""``memplan-opt``: mlir-opt with memplan's passes.

memplan-opt is MLIR's own mlir-opt driver (``MlirOptMain``) with every
registered pass, memplan's included: mlir-opt's flags, diagnostics, exit
codes and output handling. memplan's passes are named like upstream ones, in
a pipeline or as flags::

    memplan-opt in.mlir --pass-pipeline='builtin.module(memplan-one-shot-bufferize)'
    memplan-opt in.mlir -memplan-one-shot-bufferize='bufferize-function-boundaries' -canonicalize
"""

from __future__ import annotations

import os
import sys

import memplan  # registers memplan's passes in MLIR's registry
from memplan import _core, passes


def version() -> str:
    """memplan's version and the MLIR it runs on (``--version`` adds LLVM's)."""
    from importlib import metadata

    try:
        mlir_version = metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        mlir_version = "unknown"
    return f"memplan {memplan.__version__}\nMLIR Python bindings {mlir_version}"


#: mlir-opt's plugin flags: whether each loads dialect plugins.
_PLUGIN_FLAGS = {"load-pass-plugin": False, "load-dialect-plugin": True}


def _plugins(args: list[str]) -> list[tuple[str, bool]]:
    """The plugins ``args`` ask to load, as LLVM's command line reads them
    (``-flag=path``, ``--flag=path``, ``-flag path``): (path, dialect plugin?)."""
    found = []
    i = 0
    while i < len(args) and args[i] != "--":
        name, has_value, value = args[i].partition("=")
        flag = name.lstrip("-")
        if name.startswith("-") and len(name) - len(flag) <= 2 and flag in _PLUGIN_FLAGS:
            if not has_value and i + 1 < len(args):
                i += 1
                value = args[i]
            found.append((value, _PLUGIN_FLAGS[flag]))
        i += 1
    return found


def _plugin_error(args: list[str]) -> str | None:
    """The message for the first plugin in ``args`` that does not load (the
    driver would abort on it)."""
    for path, dialect in _plugins(args):
        error = _core.plugin_load_error(path, dialect)
        if error:
            what = "dialect plugin" if dialect else "passes"
            return f"Failed to load {what} from '{path}': {error}"
    return None


def _input_path(args: list[str]) -> str:
    """The input file of an mlir-opt command line: its first positional
    argument (``-``, standard input, when there is none)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1] if i + 1 < len(args) else "-"
        if arg in ("-o", "--o"):  # the one value mlir-opt's users give apart from its flag
            i += 2
            continue
        if not arg.startswith("-") or arg == "-":
            return arg
        i += 1
    return "-"


def _failure_notes(args: list[str]) -> list[str]:
    """memplan's notes on an input file the driver failed on, when it does
    not parse (bytecode of another MLIR, dialects MLIR does not have): the
    file is parsed again here, only after a failure."""
    path = _input_path(args)
    if path == "-" or not os.path.isfile(path):
        return []
    from mlir import ir

    from memplan.ir.parse import ParseError, failure_notes, parse_module

    data = open(path, "rb").read()
    try:
        with ir.Context() as ctx:
            ctx.allow_unregistered_dialects = any(
                a.lstrip("-") == "allow-unregistered-dialect" for a in args
            )
            parse_module(data, path, ctx)
    except ParseError as err:
        return failure_notes(data, str(err), path)
    return []


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main() -> None:
    """Console-script entry point: runs the driver on ``sys.argv`` and exits
    with its code."""
    args = sys.argv[1:]
    if "--version" in args or "-version" in args:
        print(version())
    error = _plugin_error(args)
    if error:
        print(error, file=sys.stderr)
        _flush_standard_streams()
        os._exit(1)
    # The driver writes through LLVM's streams: nothing of Python's may be
    # left in a buffer to come out after (or never).
    _flush_standard_streams()
    # Remarks and warnings of memplan's passes go through the driver's
    # diagnostic handlers (source line and caret, -verify-diagnostics).
    passes.EMIT_THROUGH_MLIR = True
    # The driver's contexts get the dialects and extensions of the bindings'.
    # Their Context from the native module, loaded by importing memplan:
    # mlir.ir's Python layer would import numpy, a third of the start-up.
    from mlir._mlir_libs._mlir import ir

    code = _core.opt_main(["memplan-opt", *args], ir.Context(load_on_create_dialects=[]))
    if code != 0:
        for note in _failure_notes(args):
            print(note, file=sys.stderr)
    # Leave without finalizing the interpreter; LLVM's streams are flushed by
    # the driver, Python's here.
    _flush_standard_streams()
    os._exit(code)


if __name__ == "__main__":
    main()
