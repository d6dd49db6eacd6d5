"""Parse MLIR the way mlir-opt does (MLIR's parser, through memplan._core):
file locations, implicit module, ``// -----`` splitting with line numbers
kept relative to the whole file."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from mlir import ir

from memplan import _core

SPLIT_MARKER = "// -----"


class ParseError(Exception):
    """An input that cannot be read or does not parse; ``str()`` holds the
    reason (MLIR's located diagnostics for a parse error)."""


class ReadError(ParseError):
    """An input file that cannot be read (missing, a folder, unreadable)."""


@dataclass(frozen=True)
class Chunk:
    """One piece of a split input: its text and the file line it starts on (1-based)."""

    text: str
    first_line: int


def split_input(text: str, split: bool = True) -> list[Chunk]:
    """Split ``text`` on lines that are exactly ``// -----`` (when ``split``)."""
    if not split:
        return [Chunk(text, 1)]
    chunks: list[Chunk] = []
    lines = text.splitlines(keepends=True)
    start = 0
    for i, line in enumerate(lines):
        if line.strip() == SPLIT_MARKER:
            chunks.append(Chunk("".join(lines[start:i]), start + 1))
            start = i + 1
    chunks.append(Chunk("".join(lines[start:]), start + 1))
    return chunks


def format_diagnostics(err: ir.MLIRError) -> str:
    """An ``MLIRError``'s diagnostics as ``file:line:col: error: message`` lines
    with their notes: for errors raised through the Python API, where no
    source text is at hand (memplan-opt reports through MLIR's own handler)."""
    out = []
    for diag in err.error_diagnostics:
        out.append(f"{location_prefix(diag.location)}: error: {diag.message}")
        for note in diag.notes:
            out.append(f"{location_prefix(note.location)}: note: {note.message}")
    return "\n".join(out) if out else str(err)


def location_prefix(loc: ir.Location | str) -> str:
    """``file:line:col`` for a file location (an ``ir.Location`` or its printed
    ``loc("file":line:col)`` form); any other location as printed."""
    text = str(loc)
    if text.startswith('loc("') and text.endswith(")"):
        name, sep, pos = text[len('loc("') : -1].partition('":')
        if sep:
            return f"{name}:{pos}"
    return text


def parse_module(
    text: str | bytes,
    source_name: str = "<stdin>",
    context: ir.Context | None = None,
    first_line: int = 1,
) -> ir.Module:
    """Parse MLIR text in any encoding mlir-opt takes, or MLIR bytecode, into
    an ``ir.Module``, as mlir-opt does (MLIR's own parser, implicit module
    included): the one parser behind every memplan tool.

    ``first_line`` shifts locations so that a split chunk reports lines of the
    whole file. Raises :class:`ParseError` whose text is mlir-opt's: located
    diagnostics with the source line and a caret (for bytecode, with a note
    on the MLIR that wrote it and what to do when it is not this one).
    """
    if context is None:  # the current one (None outside a `with`), else a new one
        context = ir.Context.current or ir.Context()
    data = text.encode() if isinstance(text, str) else bytes(text)
    if first_line > 1:
        data = b"\n" * (first_line - 1) + data
    module, diagnostics = _core.parse_module(context, data, source_name)
    if module is None:
        message = diagnostics.decode(errors="replace").rstrip("\n")
        notes = failure_notes(data, message, source_name)
        raise ParseError("\n".join([message, *notes]))
    return module


def failure_notes(data: bytes, diagnostics: str, source_name: str) -> list[str]:
    """memplan's notes on an input that did not parse, from its bytes and
    MLIR's diagnostics: which MLIR wrote a bytecode file, and which dialects
    it uses that this MLIR does not have (torch-mlir's ``torch``), with what
    to do. Empty when there is nothing to add."""
    notes = []
    dialects = unregistered_dialects(diagnostics)
    if dialects:
        notes.append(dialect_note(dialects, source_name))
    if is_bytecode(data):
        notes.append(bytecode_note(data, source_name))
    return notes


#: MLIR's parse errors on a dialect it does not have, with the dialect's name.
_UNREGISTERED = (
    re.compile(r"Dialect `([\w$]+)' not found for custom op"),
    re.compile(r"[!#]\"([\w$]+)\"<.*?(?:type|attribute) created with unregistered dialect"),
    re.compile(r"\"([\w$]+)\.[\w$.]+\" op created with unregistered dialect"),
)
#: The generic form of an op, ``"dialect.op"(``, on the source line MLIR
#: quotes after "operation being parsed with an unregistered dialect".
_GENERIC_OP_LINE = re.compile(
    r"operation being parsed with an unregistered dialect.*\n.*?\"([\w$]+)\.[\w$.]+\"\("
)


def unregistered_dialects(diagnostics: str) -> list[str]:
    """The dialects MLIR's parse ``diagnostics`` say it does not have, in the
    order they are first named."""
    named = sorted(
        (match.start(), match.group(1))
        for pattern in (*_UNREGISTERED, _GENERIC_OP_LINE)
        for match in pattern.finditer(diagnostics)
    )
    return list(dict.fromkeys(name for _, name in named))


def dialect_note(dialects: list[str], source_name: str) -> str:
    """A note for an input using ``dialects`` that the MLIR memplan runs on
    does not have, and what to do (torch-mlir: export to linalg-on-tensors)."""
    names = ", ".join(f"'{d}'" for d in dialects)
    plural = "s" if len(dialects) > 1 else ""
    return (
        f"{source_name}: note: the module uses dialect{plural} {names}, which MLIR "
        f"{mlir_version()} (the MLIR memplan runs on) does not have: {DIALECT_ADVICE}"
    )


#: What to do with a module of dialects the MLIR memplan runs on does not have.
DIALECT_ADVICE = (
    "lower it to upstream dialects first (torch-mlir: export with "
    "output_type='linalg-on-tensors'; IREE: before its own dialects)"
)


def parse_source(text: str | bytes, *args: Any, **kwargs: Any) -> ir.Operation:
    """:func:`parse_module` (its arguments), as the ``builtin.module``
    operation."""
    return parse_module(text, *args, **kwargs).operation


#: The first bytes of every MLIR bytecode file.
BYTECODE_MAGIC = b"ML\xefR"


def is_bytecode(data: bytes) -> bool:
    """Whether ``data`` is MLIR bytecode (by its magic number)."""
    return data.startswith(BYTECODE_MAGIC)


def bytecode_producer(data: bytes) -> tuple[int, str] | None:
    """The bytecode version and producer string of a bytecode file's header
    (magic, a varint version, a NUL-terminated producer), or ``None``."""
    if not is_bytecode(data):
        return None
    pos = len(BYTECODE_MAGIC)
    # MLIR's varint: the count of trailing zero bits of the first byte, plus
    # one, is the number of bytes (nine when the first byte is zero).
    if pos >= len(data):
        return None
    first = data[pos]
    size = 9 if first == 0 else (first & -first).bit_length()
    if pos + size > len(data):
        return None
    raw = int.from_bytes(data[pos : pos + size], "little")
    version = raw >> size if size < 9 else int.from_bytes(data[pos + 1 : pos + 9], "little")
    end = data.find(b"\0", pos + size)
    if end < 0:
        return None
    return version, data[pos + size : end].decode(errors="replace")


def mlir_version() -> str:
    """The MLIR release of the Python bindings memplan runs on (``22.1.8``)."""
    from importlib import metadata

    try:  # the wheel's version is the release and a build number
        return ".".join(metadata.version("xtc-mlir-python-bindings").split(".")[:3])
    except metadata.PackageNotFoundError:  # pragma: no cover - installed with memplan
        return "unknown"


def bytecode_note(data: bytes, source_name: str) -> str:
    """A note for bytecode that did not parse: which MLIR wrote it, which one
    reads it here, and what to do."""
    header = bytecode_producer(data)
    ours = f"MLIR{mlir_version()}"
    if header is not None and header[1] == ours:
        return (
            f"{source_name}: note: this bytecode was written by this MLIR ({ours}): the file is "
            "damaged or truncated"
        )
    producer = f"by {header[1]!r}" if header else "by an unknown producer"
    return (
        f"{source_name}: note: this bytecode was written {producer} and memplan reads it with "
        f"MLIR {mlir_version()}: bytecode of another MLIR release may encode attributes, types "
        "and ops this one does not know. Hand the module over as text instead: print(module) "
        "with the other stack's bindings (memplan.import_module(module) does this for a module "
        "object), or its opt tool without --emit-bytecode"
    )


def read_source(path: str) -> bytes:
    """The bytes of the input file ``path`` (``-``: standard input), undecoded:
    MLIR's parser takes text in any encoding and bytecode.

    Raises :class:`ReadError` (``cannot read 'PATH': reason``) when the file
    cannot be read.
    """
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as err:
        raise ReadError(f"cannot read '{path}': {err.strerror or err}") from None


def load_source(path: str, context: ir.Context | None = None) -> ir.Module:
    """Read and parse the input file ``path`` (``-``: standard input), as
    every memplan tool does. Raises :class:`ReadError` or :class:`ParseError`."""
    return parse_module(read_source(path), "<stdin>" if path == "-" else path, context)
