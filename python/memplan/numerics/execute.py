"""Running one program once: :func:`execute` (its ``.heap``: the heap traffic of the run)."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from .heap import POISON_BYTES
from .inputs import DimsSpec, make_arguments
from .lowering import lower
from .runner import DEFAULT_OPT_LEVEL, Executable, RunOutcome
from .source import ModuleSource

__all__ = ["execute"]


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
    isolate: bool = False,
) -> RunOutcome:
    """Lower, JIT and run ``@entry`` once; return its outputs and heap figures.

    ``module`` is an ``mlir.ir.Module`` (copied, never modified), MLIR text
    or bytecode, at tensor level (bufferized first with upstream's
    ``one-shot-bufferize`` and ``buffer-deallocation-pipeline``) or memref
    level; it is lowered to the LLVM dialect as described in
    :mod:`memplan.numerics.lowering`.

    Inputs: ``inputs`` gives every argument of ``@entry`` in order (numpy
    arrays for tensors and memrefs, of the argument's shape; numbers for
    scalars). Otherwise they are drawn as in :func:`memplan.numerics.compare`
    with ``seed``: dynamic sizes from ``dims`` (``{(arg, dim): size}``,
    ``{arg: size}``, ``{"*": size}``; 7 by default), ``values`` fixing some
    arguments (argument number -> array or number), the others random but
    respecting what the IR states (indices inside the dimensions they index).

    Returns a :class:`~memplan.numerics.runner.RunOutcome`: ``outputs`` holds
    the results, then every memref argument after the call (its whole
    backing store in ``.data``, its elements in ``.logical``), as numpy
    arrays (``bf16`` as ``uint16`` bits, ``i1`` as ``bool``); ``heap`` the
    allocations, frees, bytes and peak of the run; ``failed_asserts`` and
    ``assert_counts`` the ``cf.assert``s that failed (they do not abort).
    ``poison`` is the byte fresh heap blocks are filled with (``None``:
    zeroed); memref arguments in ``scratch`` start filled with it as well and
    are left out of the outputs. With ``isolate`` the call runs in a forked
    child: a crash raises :class:`~memplan.numerics.runner.ExecutionCrash`.

    Raises ``KeyError`` (no ``func.func @entry``),
    :class:`~memplan.ir.parse.ParseError`,
    :class:`~memplan.numerics.lowering.LoweringError` and ``ValueError``
    (inputs that do not fit the signature).
    """
    program = lower(module, entry)
    args = make_arguments(program.signature, inputs, seed, dims, values)
    return Executable(program, opt_level).run(args, poison, scratch, isolate=isolate)
