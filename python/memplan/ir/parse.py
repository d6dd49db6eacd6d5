"""Parse MLIR the way mlir-opt does (MLIR's parser, through memplan._core):
file locations, implicit module, ``// -----`` splitting with line numbers
kept relative to the whole file."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

SPLIT_MARKER = "// -----"


class ParseError(Exception):
    """MLIR text that does not parse; ``str()`` holds MLIR's located diagnostics."""


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


def location_prefix(loc) -> str:
    """``file:line:col`` for a file location (an ``ir.Location`` or its printed
    ``loc("file":line:col)`` form); any other location as printed."""
    text = str(loc)
    if text.startswith('loc("') and text.endswith(")"):
        name, sep, pos = text[len('loc("') : -1].partition('":')
        if sep:
            return f"{name}:{pos}"
    return text


def parse_source(
    text: str | bytes, source_name: str = "<stdin>", context: ir.Context | None = None, first_line: int = 1
) -> ir.Operation:
    """Parse MLIR text (or bytecode) into a ``builtin.module`` operation, as
    mlir-opt does (MLIR's own parser, implicit module included).

    ``first_line`` shifts locations so that a split chunk reports lines of the
    whole file. Raises :class:`ParseError` whose text is mlir-opt's: located
    diagnostics with the source line and a caret.
    """
    from memplan import _core

    if context is None:
        try:
            context = ir.Context.current
        except ValueError:  # no context entered: the module keeps its own alive
            context = ir.Context()
    data = text.encode() if isinstance(text, str) else text
    if first_line > 1:
        data = b"\n" * (first_line - 1) + data
    module, diagnostics = _core.parse_module(context, data, source_name)
    if module is None:
        raise ParseError(diagnostics.decode(errors="replace").rstrip("\n"))
    return module.operation
