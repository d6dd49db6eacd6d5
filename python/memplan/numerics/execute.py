"""Running one program once: :func:`execute` and :func:`measure_heap`."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from .heap import POISON_BYTES, HeapStats
from .inputs import DimsSpec, make_arguments
from .lowering import lower
from .runner import DEFAULT_OPT_LEVEL, Executable, RunOutcome
from .source import ModuleSource

__all__ = ["execute", "measure_heap"]


def execute(
    module: ModuleSource,
    entry: str,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    dims: Optional[DimsSpec] = None,
    poison: Optional[int] = POISON_BYTES[0],
    opt_level: int = DEFAULT_OPT_LEVEL,
    scratch: Sequence[int] = (),
    values: Optional[Mapping[int, Any]] = None,
) -> RunOutcome:
    """Lower, JIT and run ``@entry`` once; return its outputs and heap figures.

    Inputs are built as in :func:`memplan.numerics.compare` (``values``
    fixes some arguments, the others are random).  The outputs are
    the results, then every memref argument after the call (its whole backing
    store).  ``poison`` is the byte fresh heap blocks are filled with
    (``None``: zeroed); memref arguments in ``scratch`` start filled with
    it as well and are left out of the outputs.
    """
    program = lower(module, entry)
    args = make_arguments(program.signature, inputs, seed, dims, values)
    return Executable(program, opt_level).run(args, poison, scratch)


def measure_heap(
    module: ModuleSource,
    entry: str,
    inputs: Optional[Sequence[Any]] = None,
    seed: int = 0,
    dims: Optional[DimsSpec] = None,
    opt_level: int = DEFAULT_OPT_LEVEL,
) -> HeapStats:
    """Run ``@entry`` once and return its heap traffic.

    The module is lowered and given inputs exactly as in
    :func:`memplan.numerics.compare`.  Byte counts are the sizes the
    ``memref.alloc`` ops ask for: ``memref<16xf32>`` counts 64 bytes whatever
    its ``alignment`` attribute (the lowering would otherwise over-allocate by
    the alignment; see :mod:`memplan.numerics.lowering`).  ``memref.alloca``
    is on the stack and not counted.  Buffers the function returns count as
    live at exit.
    """
    return execute(module, entry, inputs, seed, dims, opt_level=opt_level).heap
