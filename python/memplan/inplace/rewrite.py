"""Rewrite mode: upstream's copy insertion and bufferization driven by
memplan's in-place decisions.

The decisions (one flag per tensor operand of the analyzed scopes) fill
upstream's ``OneShotAnalysisState`` in C++ (``lib/bufferize/``), together with
what upstream's analysis records besides them (equivalence of in-place
results, function boundary tables, undefined tensor uses). Upstream's
``insertTensorCopies`` and module bufferization then rewrite the IR exactly as
``one-shot-bufferize`` would with the same decisions; no upstream analysis runs.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir

from memplan import _core


def _split(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def bufferize(graph: _core.Graph, inplace, decided, scopes: Sequence[tuple[int, bool]],
              values: dict) -> _core.BufferizeStats:
    """Bufferize the module ``graph`` was extracted from (the IR must not have
    changed since) with the per-operand decisions ``inplace``/``decided``
    over ``scopes`` ((op id, boundary analyzed) in analysis order), with the
    ``memplan-one-shot-bufferize`` option ``values``. Raises
    :class:`RewriteFailed` when upstream's rewrite fails; its diagnostics
    have then been emitted at their locations."""
    ok, stats = _core.bufferize_with_decisions(
        graph,
        np.ascontiguousarray(np.frombuffer(inplace, dtype=np.uint8)),
        np.ascontiguousarray(np.frombuffer(decided, dtype=np.uint8)),
        [(int(op), bool(b)) for op, b in scopes],
        function_boundaries=values["bufferize_function_boundaries"],
        function_boundary_type_conversion=values["function_boundary_type_conversion"],
        unknown_type_conversion=values["unknown_type_conversion"],
        allow_return_allocs_from_loops=values["allow_return_allocs_from_loops"],
        allow_unknown_ops=values["allow_unknown_ops"],
        check_parallel_regions=values["check_parallel_regions"],
        buffer_alignment=values["buffer_alignment"],
        dialect_filter=_split(values["dialect_filter"]),
        no_analysis_func_filter=_split(values["no_analysis_func_filter"]),
        must_infer_memory_space=values["must_infer_memory_space"],
        use_encoding_for_memory_space=values["use_encoding_for_memory_space"],
    )
    if not ok:
        raise RewriteFailed()
    return stats


class RewriteFailed(Exception):
    """Upstream's copy insertion or bufferization failed (diagnostics emitted)."""
