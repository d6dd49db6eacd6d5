"""Whether buffers fit in a memory capacity, and the located errors when not.

Shared by the passes that take ``capacity`` (see :mod:`memplan.passes.capacity`):
the lower bound (the most bytes live at one program point, with alignment
padding) is checked first; over the capacity, the error is located at the op
where the live bytes exceed it, with a note at each buffer live there. When
the bound fits but the packer found no packing within the capacity (its work
budget ran out), the error is the packer's :class:`memplan.reuse.packing.CapacityError`:
the smallest pool found and the budget used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph, operation


@dataclass(frozen=True)
class Over:
    """Buffers live at one program point need more than the capacity."""

    point: int
    """The op (program point) where the live bytes exceed it: the allocation
    of the last buffer to become live."""
    live_bytes: int
    """The live bytes there."""
    needed: int
    """What they need with alignment padding (the pool's lower bound)."""
    live: list[int]
    """The live buffers (indices into the checked arrays)."""


def over_capacity(
    starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, capacity: int, alignment: int = 1
) -> Over | None:
    """Where buffers live over ``[starts, ends)`` program points with
    ``sizes`` bytes cannot fit in ``capacity`` bytes, or None when the lower
    bound fits."""
    if not len(sizes):
        return None
    point, raw, aligned, live = _core.live_peak(
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(ends, dtype=np.int64),
        np.ascontiguousarray(sizes, dtype=np.int64),
        alignment,
    )
    if aligned <= capacity:
        return None
    return Over(int(point), int(raw), int(aligned), [int(i) for i in live])


def bytes_text(live_bytes: int, needed: int) -> str:
    """``1536 bytes`` (``(1600 with alignment padding)`` when that differs)."""
    padded = f" ({needed} with alignment padding)" if needed != live_bytes else ""
    return f"{live_bytes} bytes{padded}"


def point_text(graph: Graph, point: int, func_op: int) -> str:
    """``point 9 (memref.alloc)``: a program point as the liveness report
    numbers it (from the function op), with its op."""
    return f"point {point - func_op} ({graph.names[graph.op_name[point]]})"


def report_over(
    ctx: Any,
    graph: Graph,
    prefix: str,
    over: Over,
    capacity: int,
    where: str,
    notes: Sequence[tuple[int, str]],
    func_op: int,
) -> None:
    """The located error for ``over`` (in the function ``func_op``): at its
    program point, with ``notes`` (op id, text) at the buffers live there."""
    ctx.error(
        operation(graph, over.point),
        f"{prefix}: the buffers live at {point_text(graph, over.point, func_op)}{where} need "
        f"{bytes_text(over.live_bytes, over.needed)}, more than the capacity of {capacity} bytes",
        [(operation(graph, op), text) for op, text in notes],
    )


def buffer_note(graph: Graph, op: int, size: int) -> str:
    """``live here: memref<128xf32> (512 bytes)`` for the allocation ``op``."""
    value = int(graph.result_begin[op])
    return f"live here: {graph.types[graph.value_type[value]].text} ({size} bytes)"


__all__ = ["Over", "buffer_note", "bytes_text", "over_capacity", "point_text", "report_over"]
