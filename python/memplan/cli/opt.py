"""``memplan-opt``: mlir-opt with memplan's passes.

memplan-opt is mlir-opt's driver (lib/opt/, on MLIR's C++ API) with memplan's
passes in MLIR's pass registry: the same flags (``memplan-opt --help``), the
same diagnostics, exit codes and output file handling. memplan's passes are
named like upstream ones, in a pipeline or as flags::

    memplan-opt in.mlir --pass-pipeline='builtin.module(memplan-one-shot-bufferize)'
    memplan-opt in.mlir -memplan-one-shot-bufferize='bufferize-function-boundaries' -canonicalize
"""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from mlir import ir

import memplan  # noqa: F401  (registers memplan's passes in MLIR's registry)
from memplan import _core, passes


def _new_context() -> ir.Context:
    """A context with every upstream dialect registered and none loaded, as
    mlir-opt's contexts are."""
    return ir.Context(load_on_create_dialects=[])


def run(argv: Optional[Sequence[str]] = None, *, free_ir: bool = True) -> int:
    """Run memplan-opt on ``argv`` (without the program name; ``sys.argv[1:]``
    by default); returns the exit code. ``free_ir=False`` leaves the printed IR
    allocated, for a process that exits right after."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args or "-version" in args:
        print(version())
    # The driver writes through LLVM's streams: nothing of Python's may be
    # left in a buffer to come out after (or never).
    _flush_standard_streams()
    passes.EMIT_THROUGH_MLIR = True
    try:
        return _core.opt_main(["memplan-opt", *args], _new_context, free_ir)
    finally:
        passes.EMIT_THROUGH_MLIR = False


def version() -> str:
    """memplan's version and the MLIR it runs on (``--version`` adds LLVM's)."""
    from importlib import metadata

    try:
        mlir_version = metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        mlir_version = "unknown"
    return f"memplan {memplan.__version__}\nMLIR Python bindings {mlir_version}"


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def main() -> None:
    """Console-script entry point."""
    code = run(free_ir=False)
    # Leave without freeing the IR or finalizing the interpreter; LLVM's
    # streams are flushed by the driver, Python's here.
    _flush_standard_streams()
    os._exit(code)


if __name__ == "__main__":
    main()
