"""Command-line pieces shared by every memplan tool.

* :class:`ArgumentParser`: argparse with mlir-opt's exit code for a bad
  command line (1, not argparse's 2).
* :func:`load_input`: read and parse an input file (text in any encoding
  mlir-opt takes, or bytecode) with the one reader of :mod:`memplan.ir.parse`,
  printing a one-line error instead of raising.
* One way to name a function's arguments in every tool: ``--dim``,
  ``--value`` and ``--input`` take the function's own argument numbers, as
  ``N``, ``argN`` or ``%argN`` (:func:`argument_number`), parsed by
  :func:`parse_dim`, :func:`parse_value` and :func:`parse_input`, added to a
  parser by :func:`add_argument_options` and checked against the function by
  :func:`check_arguments`: an argument past the end, a dimension past the
  rank, a size that is negative or beyond a 64-bit index, a value that does
  not fit its argument's type are one-line errors naming the value.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, List, NoReturn, Optional, Sequence, Tuple, Union

if TYPE_CHECKING:  # mlir is imported where it is used (start-up time)
    from mlir import ir

__all__ = [
    "ArgumentParser",
    "UsageError",
    "load_input",
    "print_error",
    "INDEX_MAX",
    "argument_number",
    "parse_dim",
    "parse_value",
    "parse_input",
    "add_argument_options",
    "check_arguments",
    "function_arguments",
    "argument_name",
    "DimKey",
    "parse_expect",
]

#: The largest size a 64-bit ``index`` holds.
INDEX_MAX = (1 << 63) - 1

#: A ``--dim`` key: ``(argument, dimension)``, an argument (all its dynamic
#: dimensions; also an index argument's value) or ``"*"`` (every other one).
DimKey = Union[Tuple[int, int], int, str]


class UsageError(Exception):
    """A command-line value that does not fit the program (exit code 1)."""


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors exit with code 1, as
    mlir-opt's do (every memplan tool: 0 success, 1 any error)."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``PROG: error: MESSAGE``; exit 1."""
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def quiet_on_broken_pipe(run: Callable[[], int]) -> int:
    """``run()``'s exit code, with standard output flushed; 1 without a word
    when the reader of standard output went away (``... | head``), and
    Python kept from complaining again when it flushes at exit."""
    try:
        code = run()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def print_error(prog: str, message: str) -> int:
    """Print ``PROG: error: MESSAGE`` to stderr; returns the exit code 1."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return 1


def load_input(prog: str, path: str, context: Optional[ir.Context] = None) -> Optional[ir.Module]:
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


def argument_number(text: str) -> int:
    """The argument number in ``N``, ``argN`` or ``%argN`` (the names the
    IR prints); raises ``ValueError``."""
    name = text.strip()
    name = name[1:] if name.startswith("%") else name
    name = name[3:] if name.startswith("arg") else name
    if not name.isascii() or not name.isdigit():
        raise ValueError(f"not an argument: {text!r} (expected N, argN or %argN)")
    return int(name)


def argument_name(index: int) -> str:
    """``%argN``: how the IR names argument ``index``."""
    return f"%arg{index}"


def _integer(text: str) -> int:
    """A decimal (or 0x/0o/0b) integer; raises ``ValueError``."""
    return int(text.strip(), 0)


def parse_dim(text: str) -> Tuple[DimKey, int]:
    """``ARG:DIM=SIZE``, ``ARG=SIZE`` or ``*=SIZE`` (``ARG`` as in
    :func:`argument_number`); the size must be in ``[0, INDEX_MAX]``."""
    key, sep, size_text = text.partition("=")
    try:
        if not sep:
            raise ValueError
        size = _integer(size_text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --dim {text!r}: expected ARG:DIM=SIZE, ARG=SIZE or *=SIZE "
            "(ARG: N, argN or %argN; SIZE: an integer)"
        ) from None
    if size < 0:
        raise argparse.ArgumentTypeError(f"invalid --dim {text!r}: size {size} is negative")
    if size > INDEX_MAX:
        raise argparse.ArgumentTypeError(
            f"invalid --dim {text!r}: size {size} does not fit a 64-bit index (at most {INDEX_MAX})"
        )
    try:
        if key.strip() == "*":
            return "*", size
        if ":" in key:
            arg, dim = key.split(":", 1)
            return (argument_number(arg), int(dim.strip())), size
        return argument_number(key), size
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --dim {text!r}: expected ARG:DIM=SIZE, ARG=SIZE or *=SIZE "
            "(ARG: N, argN or %argN; DIM: a number)"
        ) from None


def parse_value(text: str) -> Tuple[int, Union[int, float]]:
    """``ARG=NUMBER``: an integer (decimal, 0x...) or a float."""
    arg, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError
        number: Union[int, float]
        try:
            number = _integer(value)
        except ValueError:
            number = float(value)
        return argument_number(arg), number
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --value {text!r}: expected ARG=NUMBER (ARG: N, argN or %argN)"
        ) from None


def parse_input(text: str) -> Tuple[int, str]:
    """``ARG=FILE.npy``."""
    arg, sep, path = text.partition("=")
    try:
        if not sep or not path:
            raise ValueError
        return argument_number(arg), path
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid --input {text!r}: expected ARG=FILE.npy (ARG: N, argN or %argN)"
        ) from None


def parse_expect(text: str) -> Tuple[Optional[str], str]:
    """``[OUTPUT=]FILE.npy``, OUTPUT an output's name (``result0``, ``arg1``)."""
    name, sep, path = text.partition("=")
    if not sep:
        return None, text
    name = name.strip().lstrip("%")
    kind = name.rstrip("0123456789")
    if kind not in ("result", "arg") or kind == name or not path:
        raise argparse.ArgumentTypeError(
            f"invalid --expect {text!r}: expected [OUTPUT=]FILE.npy (OUTPUT: resultN or argN)"
        )
    return name, path


def add_repeatable(
    parser: argparse.ArgumentParser,
    flag: str,
    dest: str,
    parse: Callable[[str], Any],
    metavar: str,
    help_text: str,
) -> None:
    """Add ``flag``, repeatable: each value read by ``parse``, all of them
    listed in ``dest`` (empty without the flag)."""
    parser.add_argument(
        flag, dest=dest, action="append", type=parse, default=[], metavar=metavar, help=help_text
    )


def add_argument_options(parser: argparse.ArgumentParser, inputs: bool = False) -> None:
    """Add ``--dim`` and ``--value`` (and ``--input``), the same in every tool."""
    add_repeatable(
        parser,
        "--dim",
        "dims",
        parse_dim,
        "ARG:DIM=SIZE",
        "size of a dynamic dimension of an argument (repeatable; ARG is the function's own "
        "argument number: N, argN or %%argN; ARG=SIZE sets all of that argument's dynamic "
        "dimensions, *=SIZE every other one)",
    )
    add_repeatable(
        parser,
        "--value",
        "values",
        parse_value,
        "ARG=N",
        "value of a scalar (integer, index or float) argument (repeatable)",
    )
    if inputs:
        add_repeatable(
            parser,
            "--input",
            "inputs",
            parse_input,
            "ARG=FILE.npy",
            "contents of a tensor/memref argument from a .npy file (repeatable; its shape "
            "sets the dynamic sizes)",
        )


def _integer_width(t) -> Optional[int]:
    """Bits of an integer or index type, else ``None``."""
    from mlir import ir

    if isinstance(t, ir.IndexType):
        return 64
    if isinstance(t, ir.IntegerType):
        return t.width
    return None


def function_arguments(module: ir.Module, name: str) -> Tuple[List, Optional[int]]:
    """The argument types of the top-level ``func.func @name`` of ``module``
    (an ``ir.Module``) and the number of its transient-storage argument (or
    ``None``). Raises ``KeyError`` (with the functions there) when missing."""
    from mlir import ir

    from memplan.numerics.signature import find_func
    from memplan.transients.contract import marked_arguments

    func = find_func(module, name)
    types = list(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    marked = marked_arguments(func)
    return types, (marked[0] if marked else None)


def check_arguments(
    function: str,
    types: Sequence,
    dims: Sequence[Tuple[DimKey, int]] = (),
    values: Sequence[Tuple[int, Union[int, float]]] = (),
    inputs: Sequence[Tuple[int, str]] = (),
    storage: Optional[int] = None,
    storage_sized: bool = False,
) -> None:
    """Check the ``--dim``/``--value``/``--input`` options against the
    argument types of ``@function`` (``ir.Type``s, its own numbering).

    ``storage`` is the argument number of its transient storage, if any: it
    takes no ``--value``/``--input``, and a ``--dim`` only when
    ``storage_sized``. Raises :class:`UsageError` naming the option value.
    """
    from mlir import ir

    count = len(types)
    have = f"@{function} has {count} argument{'s' if count != 1 else ''}" + (
        f" (%arg0 to %arg{count - 1})" if count > 1 else " (%arg0)" if count == 1 else ""
    )

    def argument(option: str, text: str, index: int):
        if not 0 <= index < count:
            raise UsageError(f"{option} {text}: no argument {argument_name(index)}: {have}")
        if index == storage and (option != "--dim" or not storage_sized):
            raise UsageError(
                f"{option} {text}: {argument_name(index)} is the transient storage "
                "(memplan sizes it from the other arguments)"
            )
        return types[index]

    def shaped(t) -> bool:
        return isinstance(t, ir.ShapedType) and ir.ShapedType(t).has_rank

    for key, size in dims:
        if key == "*":
            continue
        index, dim = key if isinstance(key, tuple) else (key, None)
        text = f"{index}:{dim}={size}" if dim is not None else f"{index}={size}"
        t = argument("--dim", text, index)
        if shaped(t):
            rank = ir.ShapedType(t).rank
            if dim is not None and not 0 <= dim < rank:
                raise UsageError(
                    f"--dim {text}: {argument_name(index)} ({t}) has no "
                    f"dimension {dim} (rank {rank})"
                )
        elif dim is not None or not isinstance(t, ir.IndexType):
            raise UsageError(
                f"--dim {text}: {argument_name(index)} is {t}, not a "
                "shaped value" + (" (give it with --value)" if not shaped(t) else "")
            )
    for index, number in values:
        text = f"{index}={number}"
        t = argument("--value", text, index)
        if isinstance(t, ir.ShapedType):
            raise UsageError(
                f"--value {text}: {argument_name(index)} is {t}: --value "
                "gives scalar arguments (--input gives contents, --dim sizes)"
            )
        width = _integer_width(t)
        if width is not None:
            if not isinstance(number, int):
                raise UsageError(
                    f"--value {text}: {argument_name(index)} is {t}: " "give an integer"
                )
            if isinstance(t, ir.IndexType):  # a signed 64-bit number
                low, high = -(1 << 63), INDEX_MAX
            elif getattr(t, "is_unsigned", False) or width == 1:
                low, high = 0, (1 << width) - 1
            elif getattr(t, "is_signed", False):
                low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
            else:  # signless: either reading
                low, high = -(1 << (width - 1)), (1 << width) - 1
            if not low <= number <= high:
                raise UsageError(
                    f"--value {text}: {number} does not fit {argument_name(index)} "
                    f"({t}: {low} to {high})"
                )
    for index, path in inputs:
        t = argument("--input", f"{index}={path}", index)
        if not shaped(t):
            raise UsageError(
                f"--input {index}={path}: {argument_name(index)} is "
                f"{t}: --input gives the contents of tensors and memrefs "
                "(--value gives scalars)"
            )
