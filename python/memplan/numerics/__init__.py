"""Numerics checker: does a rewritten program compute the same bits?

* :func:`compare` lowers two versions of a program (tensor or memref level,
  any function-boundary layout) to the LLVM dialect, JIT-compiles each once,
  runs them on identical random (or given) inputs and compares every result
  and every memref argument bit for bit, and which ``cf.assert``s failed how
  often.  In poison mode each module also runs twice with different garbage
  in fresh heap blocks, which exposes reads of uninitialized memory.
* :func:`execute` runs a program once and returns its outputs as numpy
  arrays and the exact heap traffic of the run (``.heap``: allocations,
  frees, bytes, peak live bytes).

The command line front end is ``memplan-check`` (:mod:`memplan.cli.check`).
"""

from .compare import CompareResult, Mismatch, compare, compare_paths, expected_difference
from .execute import execute
from .heap import HeapStats
from .inputs import DEFAULT_DIM
from .lowering import LoweringError
from .runner import ExecutionCrash, Output, RunOutcome

__all__ = [
    "compare",
    "compare_paths",
    "expected_difference",
    "execute",
    "RunOutcome",
    "ExecutionCrash",
    "Output",
    "CompareResult",
    "Mismatch",
    "HeapStats",
    "LoweringError",
    "DEFAULT_DIM",
]
