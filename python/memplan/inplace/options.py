"""The options of ``memplan-one-shot-bufferize`` (upstream's
``one-shot-bufferize`` options plus ``analysis-heuristic=min-copy-bytes``)
and the analysis orders min-copy-bytes compares.

:data:`OPTIONS` comes from the options' one declaration
(include/memplan/Inplace/OneShotOptions.def, by way of
:mod:`memplan.passes.declarations`): MLIR's pass options (``--help``,
parsing), the Python keyword arguments of the pass and of
:func:`memplan.inplace.analyze`, the upstream pipeline of copy-before-write
and the engine's typed options struct all come from it. The pass, the
explanation API and the min-copy-bytes ranking hand the engine the same
option values: a dict keyed by Python spelling
(``bufferize_function_boundaries``), as :class:`memplan.passes.PassContext`
holds them, which the engine reads into that struct once (an unknown name or
a value of the wrong type is a ValueError); ``makeBufferizeOptions``
(lib/Inplace/AnalysisSteps.cpp) makes upstream's
``OneShotBufferizationOptions`` of it.
"""

from __future__ import annotations

from memplan.passes.declarations import HEURISTICS
from memplan.passes.declarations import ONE_SHOT_BUFFERIZE_OPTIONS as OPTIONS

__all__ = ["HEURISTICS", "OPTIONS", "MIN_COPY_BYTES_ORDERS", "order_name"]

#: The analysis orders min-copy-bytes tries, bottom-up first (it wins ties).
MIN_COPY_BYTES_ORDERS = (
    ("bottom-up", 0),
    ("top-down", 0),
    ("bottom-up-from-terminators", 0),
    ("fuzzer", 1),
    ("fuzzer", 2),
    ("fuzzer", 3),
)


def order_name(heuristic: str, seed: int) -> str:
    """``top-down``, ``fuzzer-2``: one of :data:`MIN_COPY_BYTES_ORDERS`."""
    return f"{heuristic}-{seed}" if heuristic == "fuzzer" else heuristic
