"""Parse MLIR text the way mlir-opt does: file locations, implicit module,
``// -----`` splitting with line numbers kept relative to the whole file."""

from __future__ import annotations

import re
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

    With multithreading enabled on the context, a verifier failure in
    several nested isolated ops reports its diagnostics from worker threads,
    which the MLIR 22 Python bindings' error capture does not survive (the
    process aborts). memplan-opt therefore parses on a single-threaded
    context; callers parsing untrusted input should do the same
    (``context.enable_multithreading(False)``).
    """
    source = "\n" * (first_line - 1) + text
    # The lines up to the first op (alias definitions there blanked out and
    # collected), and the rest of the text, still in one piece.
    head, rest, first, aliases = _scan_head(source, first_line - 1)
    if first is not None and head[first].lstrip().startswith(("module", '"builtin.module"')):
        # Most likely one explicit module: parse as is, and wrap only if not.
        try:
            op = ir.Operation.parse(source, source_name=source_name, context=context)
            if op.operation.name == "builtin.module":
                return op.operation
        except ir.MLIRError as err:
            if not any("single top-level operation" in d.message for d in err.error_diagnostics):
                raise ParseError(_format_diagnostics(err)) from None
    # Top-level ops without a module: wrap them in one, keeping every op on its
    # line. Alias definitions may sit between top-level ops but not inside a
    # module: they move, in order, to line 1.
    mark = None
    if first is not None and rest is not None:
        mark = _LINE_START_MARK.search(rest)
    if rest is not None and (mark is None or mark.group(1) is not None):
        # No alias definition follows the first op before the end or a
        # resource block: the rest of the text stays in one piece but for the
        # module's closing brace. (Cutting big inputs into lines, let alone
        # tracking bracket depth through them as _rest_of_layout does, would
        # cost a sizeable fraction of MLIR's own parse.)
        stop = len(rest) + 1 if mark is None else mark.start() + 1
        rest = _close_module_in(rest, head, first, stop)
        _open_module_before(head, first)
        lines = head
    else:
        lines = head if rest is None else head + rest[1:].split("\n")
        if first is not None:
            last, later = _rest_of_layout(lines, first)
            aliases += later
            _open_module_before(lines, first)
            lines[last] = lines[last] + "\n}"
        else:  # no ops at all: an empty module, as mlir-opt prints
            lines[0] = "module {" + lines[0]
            lines[-1] = lines[-1] + "\n}"
        rest = None
    if aliases:
        lines[0] = " ".join(aliases) + " " + lines[0]
    wrapped = "\n".join(lines) if rest is None else "\n".join(lines) + rest
    try:
        op = ir.Operation.parse(wrapped, source_name=source_name, context=context)
    except ir.MLIRError as err:
        raise ParseError(_format_diagnostics(err)) from None
    return op.operation


def _scan_head(source: str, padding: int) -> tuple[list[str], Optional[str], Optional[int], list[str]]:
    """Split ``source`` into lines only as far as the scan for the first op
    needs: returns those lines (through the first op's, with the alias
    definitions met blanked out), the rest of the text from the newline that
    ends them (``None`` when all of it was split), the first op's line (or
    ``None``) and the alias definitions.

    On big inputs the first op comes early, so most of the text is never cut
    into lines; ``padding`` (the blank lines a split chunk starts with) only
    sets where to start looking.
    """
    count = padding + 64
    while True:
        parts = source.split("\n", count)
        whole = len(parts) <= count
        lines = parts[:count]  # a copy: ``parts`` keeps the lines as written
        first, aliases, stop = _scan(lines, 0, len(lines), until_first_op=True)
        if first is not None:
            # Keep the lines through the first op's; the rest from its newline.
            offset = sum(map(len, parts[: first + 1])) + first
            return lines[: first + 1], (source[offset:] if offset < len(source) else None), first, aliases
        if whole:
            return lines, None, None, aliases
        if stop < len(lines):  # a resource block ends the ops: no op at all
            return lines + parts[count].split("\n"), None, None, aliases
        count *= 4


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


#: A line that starts a resource block (``{-#``, group 1) or could start an
#: alias definition (``#name =`` / ``!name =``; not the ``#-}`` that ends a
#: resource block), with its leading newline: a literal first character keeps
#: the search fast.
_LINE_START_MARK = re.compile(r"\n[^\S\n]*(?:(\{-#)|!|#(?!-}))")


def _close_module_in(rest: str, head: list[str], first: int, stop: int) -> str:
    """Close the wrapping module after the last top-level op, when no alias
    definition follows the first op (line ``first``, the last of ``head``)
    before offset ``stop`` of ``rest``, the text after that line from its
    newline: where a resource block starts, or ``len(rest) + 1``. The closing
    brace goes on a line of its own below the last line of code before
    ``stop``."""
    end = stop - 1  # past the last character of the line above ``stop``
    while end > 0:
        start = rest.rfind("\n", 0, end) + 1
        stripped = rest[start:end].strip()
        if stripped and not stripped.startswith("//"):
            return rest[:end] + "\n}" + rest[end:]
        end = start - 1
    head[first] = head[first] + "\n}"
    return rest


def _rest_of_layout(lines: list[str], first: int) -> tuple[int, list[str]]:
    """Past the first top-level op (line ``first``): the last line of the
    top-level ops (before any trailing ``{-#`` resource block), and the alias
    definitions met, which are blanked out of ``lines``."""
    _, aliases, stop = _scan(lines, first, len(lines), until_first_op=False)
    last = first
    for i in range(stop - 1, first, -1):
        stripped = lines[i].strip()
        if stripped and not stripped.startswith("//"):
            last = i
            break
    return last, aliases


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
    """Bracket depth change over ``code``; ``->``, ``>=`` and ``<=`` (arrows,
    affine set constraints) are not brackets."""
    delta = 0
    in_string = False
    prev = ""
    n = len(code)
    for i, ch in enumerate(code):
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
            if i + 1 >= n or code[i + 1] != "=":
                delta += 1
        elif ch == ">" and prev != "-":
            if i + 1 >= n or code[i + 1] != "=":
                delta -= 1
        prev = ch
    return delta
