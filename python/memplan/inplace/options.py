"""The options of ``memplan-one-shot-bufferize`` (upstream's
``one-shot-bufferize`` options plus ``analysis-heuristic=min-copy-bytes``)
and the analysis orders min-copy-bytes compares.

:data:`OPTIONS` is the options' one declaration: MLIR's pass options
(``--help``, parsing), the Python keyword arguments of the pass and of
:func:`memplan.inplace.analyze`, the upstream pipeline of copy-before-write
and the engine's options all come from it. The pass, the explanation API and
the min-copy-bytes ranking hand the engine the same option values: a dict
keyed by Python spelling (``bufferize_function_boundaries``), as
:class:`memplan.passes.PassContext` holds them; the engine reads each by name
into upstream's ``OneShotBufferizationOptions``
(``makeBufferizeOptions``, lib/analysis/AnalysisSteps.cpp).
"""

from __future__ import annotations

from memplan.passes import Option, uint32, uint64

#: Analysis orders: upstream's four and memplan's min-copy-bytes.
HEURISTICS = ("bottom-up", "top-down", "bottom-up-from-terminators", "fuzzer", "min-copy-bytes")

OPTIONS = [
    Option("bufferize-function-boundaries", bool, False, "bufferize function boundaries (module analysis)"),
    Option("function-boundary-type-conversion", str, "infer-layout-map",
           "layout of function boundary memrefs",
           choices=("infer-layout-map", "identity-layout-map", "fully-dynamic-layout-map")),
    Option("unknown-type-conversion", str, "fully-dynamic-layout-map",
           "layout of memrefs at unknown-op boundaries",
           choices=("identity-layout-map", "fully-dynamic-layout-map")),
    Option("allow-return-allocs-from-loops", bool, False, "allow loops to yield new allocations"),
    Option("allow-unknown-ops", bool, False, "treat ops that are not bufferizable as unknown ops"),
    Option("analysis-heuristic", str, "bottom-up", "analysis order", choices=HEURISTICS),
    Option("analysis-fuzzer-seed", uint32, 0, "seed of the fuzzer heuristic"),
    Option("test-analysis-only", bool, False, "only annotate the IR with the analysis results"),
    Option("print-conflicts", bool, False, "annotate RaW conflicts (with test-analysis-only)"),
    Option("dump-alias-sets", bool, False, "annotate alias sets (with test-analysis-only)"),
    Option("copy-before-write", bool, False, "skip the analysis, copy before every write"),
    Option("buffer-alignment", uint64, 64, "alignment of new allocations (0: none)"),
    Option("dialect-filter", str, "", "comma-separated dialects to bufferize; empty: all"),
    Option("no-analysis-func-filter", str, "", "comma-separated functions to skip in the analysis"),
    Option("check-parallel-regions", bool, True, "privatize buffers written in parallel regions"),
    Option("must-infer-memory-space", bool, False,
           "memory spaces of new buffers must be inferred (no default memory space)"),
    Option("use-encoding-for-memory-space", bool, False,
           "use a ranked tensor's encoding as its buffer's memory space"),
]

#: The analysis orders min-copy-bytes tries, bottom-up first (it wins ties).
MIN_COPY_BYTES_ORDERS = (("bottom-up", 0), ("top-down", 0), ("bottom-up-from-terminators", 0),
                         ("fuzzer", 1), ("fuzzer", 2), ("fuzzer", 3))


def order_name(heuristic: str, seed: int) -> str:
    """``top-down``, ``fuzzer-2``: one of :data:`MIN_COPY_BYTES_ORDERS`."""
    return f"{heuristic}-{seed}" if heuristic == "fuzzer" else heuristic
