"""Parse MLIR text the way mlir-opt does: file locations, implicit module,
``// -----`` splitting with line numbers kept relative to the whole file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

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


def _format_diagnostics(err: ir.MLIRError) -> str:
    out = []
    for diag in err.error_diagnostics:
        out.append(_format_one(diag, "error"))
        for note in diag.notes:
            out.append(_format_one(note, "note"))
    return "\n".join(out) if out else str(err)


def _format_one(diag, severity: str) -> str:
    return f"{location_prefix(diag.location)}: {severity}: {diag.message}"


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
    text: str, source_name: str = "<stdin>", context: ir.Context | None = None, first_line: int = 1
) -> ir.Operation:
    """Parse ``text`` into a ``builtin.module`` operation.

    A single top-level ``builtin.module`` is used as is; anything else is
    wrapped in an implicit module, as mlir-opt does. ``first_line`` shifts
    locations so that a split chunk reports lines of the whole file.
    """
    padding = "\n" * (first_line - 1)
    lines = (padding + text).split("\n")
    first, last, aliases = _top_level_layout(list(lines))
    if first is not None and lines[first].lstrip().startswith(("module", '"builtin.module"')):
        # Most likely one explicit module: parse as is, and wrap only if not.
        try:
            op = ir.Operation.parse(padding + text, source_name=source_name, context=context)
            if op.operation.name == "builtin.module":
                return op.operation
        except ir.MLIRError as err:
            if not any("single top-level operation" in d.message for d in err.error_diagnostics):
                raise ParseError(_format_diagnostics(err)) from None
    # Top-level ops without a module: wrap them in one, keeping every op on its
    # line. Alias definitions may sit between top-level ops but not inside a
    # module: they move, in order, to line 1.
    first, last, aliases = _top_level_layout(lines)
    if first is not None:
        _open_module_before(lines, first)
        lines[last] = lines[last] + "\n}"
    else:  # no ops at all: an empty module, as mlir-opt prints
        lines[0] = "module {" + lines[0]
        lines[-1] = lines[-1] + "\n}"
    if aliases:
        lines[0] = " ".join(aliases) + " " + lines[0]
    try:
        op = ir.Operation.parse("\n".join(lines), source_name=source_name, context=context)
    except ir.MLIRError as err:
        raise ParseError(_format_diagnostics(err)) from None
    return op.operation


def _open_module_before(lines: list[str], first: int) -> None:
    """Open the wrapping module without moving the first op: on the line above
    when that is blank, a comment, or code without a trailing comment."""
    if first > 0:
        above = lines[first - 1]
        stripped = above.strip()
        if not stripped or stripped.startswith("//"):
            lines[first - 1] = "module {" + above
            return
        if "//" not in above:
            lines[first - 1] = above + " module {"
            return
    lines[first] = "module {" + lines[first]


def _top_level_layout(lines: list[str]) -> tuple[Optional[int], Optional[int], list[str]]:
    """First and last line of the top-level ops (before any trailing ``{-#``
    resource block), and the top-level alias definitions, which are blanked
    out of ``lines``.

    Bracket depth is tracked character by character only up to the first op,
    and past it only when some later line could start an alias definition:
    on big inputs the scan must stay cheap next to MLIR's own parser.
    """
    first, aliases, stop = _scan(lines, 0, len(lines), until_first_op=True)
    if first is None:
        return None, None, aliases
    if any(line.lstrip()[:1] in ("#", "!") for line in lines[first + 1 :]):
        _, later, stop = _scan(lines, first, len(lines), until_first_op=False)
        aliases += later
    else:
        stop = next(
            (i for i in range(len(lines) - 1, first, -1) if lines[i].lstrip().startswith("{-#")),
            len(lines),
        )
    last = first
    for i in range(stop - 1, first, -1):
        stripped = lines[i].strip()
        if stripped and not stripped.startswith("//"):
            last = i
            break
    return first, last, aliases


def _scan(lines: list[str], begin: int, end: int, until_first_op: bool):
    """Walk lines at top-level depth from ``begin``: returns the first op line
    (when ``until_first_op``), the alias definitions met (blanked out of
    ``lines``), and the line of a ``{-#`` resource block (or ``end``)."""
    depth = 0
    aliases: list[str] = []
    in_alias = False
    for i in range(begin, end):
        code = _strip_comment(lines[i])
        stripped = code.strip()
        if depth == 0 and not in_alias:
            if stripped.startswith("{-#"):
                return None, aliases, i
            if stripped[:1] in ("#", "!"):
                in_alias = True
            elif until_first_op and stripped and (stripped[0].isalpha() or stripped[0] in '"%'):
                return i, aliases, end
        depth += _depth_change(code)
        if in_alias:
            aliases.append(stripped)
            lines[i] = ""
            in_alias = depth > 0
    return None, aliases, end


def _strip_comment(line: str) -> str:
    """The line without a ``//`` comment (one inside a string literal stays)."""
    in_string = False
    prev = ""
    for i, ch in enumerate(line):
        if in_string:
            if ch == '"' and prev != "\\":
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "/" and prev == "/":
            return line[: i - 1]
        prev = ch
    return line


def _depth_change(code: str) -> int:
    delta = 0
    in_string = False
    prev = ""
    for ch in code:
        if in_string:
            if ch == '"' and prev != "\\":
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "([{":
            delta += 1
        elif ch in ")]}":
            delta -= 1
        elif ch == "<":
            delta += 1
        elif ch == ">" and prev != "-":
            delta -= 1
        prev = ch
    return delta
