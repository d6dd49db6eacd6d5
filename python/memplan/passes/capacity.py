"""Memory capacities: the ``capacity`` pass option and what it means.

``capacity`` bounds the bytes a memory space may use, per function (per pool
scope for ``memplan-buffer-reuse``, per storage for ``memplan-transients``).
Its text, an MLIR string option (``""``: no capacity):

``N``
    N bytes in every memory space (``capacity=49152``);
``SPACE:N,...``
    N bytes in the integer memory space SPACE (``0``: the default space),
    one entry per space; a plain ``N`` entry among them bounds the spaces not
    listed (``capacity=1048576,3:49152``).

N is a positive decimal number of bytes. The option's type
(:class:`memplan.passes.capacity`) parses the text once, with
:func:`parse_capacity`, when the pipeline is parsed; the passes read the
:class:`Capacity` it keeps.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping, NamedTuple, Optional


class Capacity(NamedTuple):
    """Bytes allowed per memory space; None: no bound. (A named tuple, not a
    dataclass: memplan-opt's start-up does not pay for importing those.)"""

    default: Optional[int] = None
    """Bytes for every memory space not in ``spaces``."""
    spaces: Mapping[int, int] = MappingProxyType({})
    """Bytes for the listed integer memory spaces."""

    def of(self, space: int) -> Optional[int]:
        """The bytes memory space ``space`` may use, or None."""
        return self.spaces.get(space, self.default)

    def __bool__(self) -> bool:
        return self.default is not None or bool(self.spaces)

    def where(self, space: int) -> str:
        """``" in memory space 3"``, or ``""`` for the default space."""
        return f" in memory space {space}" if space else ""


NONE = Capacity()


def _bytes(text: str, whole: str) -> int:
    text = text.strip()
    if text.startswith("-") and text[1:].isdigit():
        raise ValueError(f"must be a positive number of bytes, got '{whole}'")
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"expects a number of bytes N or a list of SPACE:N, got '{whole}'")
    value = int(text, 10)
    if value <= 0:
        raise ValueError(f"must be a positive number of bytes, got '{whole}'")
    return value


def parse_capacity(text: object) -> Capacity:
    """The capacities the option text ``text`` gives (an int is N bytes in
    every memory space); raises ValueError with a one-line message naming
    the value."""
    if isinstance(text, bool):
        raise ValueError(f"expects a number of bytes N or a list of SPACE:N, got '{text}'")
    if isinstance(text, int):
        text = str(text)
    if not isinstance(text, str):
        raise ValueError(f"expects a number of bytes N or a list of SPACE:N, got '{text}'")
    whole = text
    if not text.strip():
        return NONE
    default: Optional[int] = None
    spaces: dict[int, int] = {}
    for entry in text.split(","):
        space_text, sep, value_text = entry.rpartition(":")
        if not sep:
            if default is not None:
                raise ValueError(f"gives the bytes of every other memory space twice in '{whole}'")
            default = _bytes(value_text, whole)
            continue
        space_text = space_text.strip()
        if not space_text.isdigit() or not space_text.isascii():
            raise ValueError(f"expects an integer memory space before ':', got '{whole}'")
        space = int(space_text, 10)
        if space in spaces:
            raise ValueError(f"gives memory space {space} twice in '{whole}'")
        spaces[space] = _bytes(value_text, whole)
    return Capacity(default, MappingProxyType(spaces))


__all__ = ["Capacity", "NONE", "parse_capacity"]
