"""Command-line pieces shared by every memplan tool.

* :class:`ArgumentParser`: argparse with mlir-opt's exit code for a bad
  command line (1, not argparse's 2).
* :func:`load_input`: read and parse an input file (text in any encoding
  mlir-opt takes, or bytecode) with the one reader of :mod:`memplan.ir.parse`,
  printing a one-line error instead of raising.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["ArgumentParser", "UsageError", "load_input", "print_error"]


class UsageError(Exception):
    """A command-line value that does not fit the program (exit code 1)."""


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors exit with code 1, as
    mlir-opt's do (every memplan tool: 0 success, 1 any error)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def print_error(prog: str, message: str) -> int:
    """Print ``PROG: error: MESSAGE`` to stderr; returns the exit code 1."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return 1


def load_input(prog: str, path: str, context=None):
    """The ``ir.Module`` in file ``path`` (``-``: standard input), or ``None``
    after printing why it cannot be read (``PROG: error: cannot read ...``)
    or parsed (MLIR's located diagnostics, as mlir-opt prints them)."""
    from memplan.ir.parse import ParseError, ReadError, load_source

    try:
        return load_source(path, context)
    except ReadError as err:
        print_error(prog, str(err))
    except ParseError as err:
        print(err, file=sys.stderr)
    return None

