"""Run a function with caller-provided transient storage through the ExecutionEngine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np
from mlir import ir

from memplan.ir.graph import extract_graph, operation
from memplan.numerics.execute import execute
from memplan.numerics.heap import HeapStats
from memplan.numerics.source import ModuleSource, copy_module
from memplan.transients.contract import QUERY_SUFFIX, functions_by_name, marked_arguments


@dataclass
class TransientRun:
    """Outputs of one call, the storage size it was given, and its heap traffic."""

    outputs: list[np.ndarray]
    storage_bytes: int
    heap: HeapStats
    failed_asserts: list[str]


def storage_index(module: ir.Module, fn: str) -> int:
    """Argument number of ``fn``'s ``memplan.transients`` storage."""
    graph = extract_graph(module)
    f = functions_by_name(graph).get(fn)
    if f is None:
        raise KeyError(f"no function @{fn}")
    marked = marked_arguments(operation(graph, f))
    if len(marked) != 1:
        raise ValueError(f"@{fn} has no memplan.transients storage argument")
    return marked[0]


def required_bytes(module: ModuleSource, fn: str, inputs: Sequence[Any]) -> int:
    """Call ``@<fn>_transient_size`` on ``inputs`` (the arguments minus the storage)."""
    outcome = execute(module, fn + QUERY_SUFFIX, inputs=list(inputs), poison=None)
    return int(outcome.outputs[0].data)


def run(
    module: ModuleSource,
    fn: str,
    *inputs: Any,
    storage_bytes: Optional[int] = None,
    fill: Optional[int] = 0xFF,
) -> TransientRun:
    """Compile ``module``, ask the size query, allocate one ``uint8`` buffer of that
    size (``storage_bytes`` overrides it) filled with ``fill``, and call ``fn``.

    ``inputs`` are the arguments of ``fn`` without the storage, in order. The
    returned outputs are the results, then every memref argument but the storage.
    """
    mod = copy_module(module)
    index = storage_index(mod, fn)
    needed = required_bytes(mod, fn, inputs)
    size = needed if storage_bytes is None else storage_bytes
    storage = np.full(size, 0 if fill is None else fill, dtype=np.uint8)
    args = list(inputs[:index]) + [storage] + list(inputs[index:])
    outcome = execute(mod, fn, inputs=args, poison=fill, scratch=[index])
    return TransientRun(
        outputs=[o.data for o in outcome.outputs],
        storage_bytes=size,
        heap=outcome.heap,
        failed_asserts=list(outcome.failed_asserts),
    )
