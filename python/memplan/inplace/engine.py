"""memplan's in-place engine (``lib/analysis/``, on MLIR's C++ API) behind
``memplan-one-shot-bufferize``.

The engine takes op semantics from the ``BufferizableOpInterface`` (every op
that implements it, downstream dialects included), keeps its decisions in
upstream's ``OneShotAnalysisState`` and checks only the (read, write) pairs
a decision creates. It then annotates the IR like upstream's
``test-analysis-only`` or runs upstream's copy insertion and bufferization on
that same state (no upstream analysis), or only analyzes (explanations,
min-copy-bytes).
"""

from __future__ import annotations

import threading
from typing import Sequence

from mlir import ir

from memplan import _core

#: Upstream numbers print-conflicts' ``C_<i>`` / ``W_<i>`` annotations with
#: process-wide counters (``mlir-opt --split-input-file`` keeps counting
#: across chunks): memplan keeps them per process too.
_counters = {"conflicts": 0, "non_writable": 0}
_counters_lock = threading.Lock()


def reset_conflict_counters() -> None:
    """Number print-conflicts' annotations from 0 again, as a fresh
    ``mlir-opt`` process does."""
    with _counters_lock:
        _counters.update(conflicts=0, non_writable=0)


def _split(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def run(module: ir.Operation, values: dict, heuristic: str, seed: int,
        analysis_only: bool = False,
        orders: Sequence[tuple[str, int]] = (),
        check_facts: bool = False) -> _core.EngineResult:
    """Analyze ``module`` with the ``memplan-one-shot-bufferize`` option
    ``values`` in the order ``heuristic`` (``seed`` for the fuzzer), then
    annotate (``test-analysis-only``) or bufferize it; with
    ``analysis_only`` leave the IR untouched and report the copies the
    rewrite would make (``result.copies``; an op that is not bufferizable is
    then an error unless ``allow-unknown-ops``). With ``orders``
    ((heuristic, seed) pairs, ``heuristic`` then ignored), rank them and keep
    the cheapest (``result.order_costs``, ``result.chosen_order``; see
    :mod:`memplan.inplace.min_copy_bytes`). ``check_facts`` (testing) compares
    each interface answer the engine keeps with upstream's, an error where
    they differ. Diagnostics go to the context's
    handlers; ``result.ok`` is False when the analysis or the rewrite
    failed."""
    with _counters_lock:
        result = _core.run_interface_engine(
            module._CAPIPtr,
            test_analysis_only=values["test_analysis_only"],
            function_boundaries=values["bufferize_function_boundaries"],
            analysis_heuristic=heuristic,
            analysis_fuzzer_seed=seed & 0xFFFFFFFF,
            print_conflicts=values["print_conflicts"],
            dump_alias_sets=values["dump_alias_sets"],
            function_boundary_type_conversion=values["function_boundary_type_conversion"],
            unknown_type_conversion=values["unknown_type_conversion"],
            allow_return_allocs_from_loops=values["allow_return_allocs_from_loops"],
            allow_unknown_ops=values["allow_unknown_ops"],
            check_parallel_regions=values["check_parallel_regions"],
            # Upstream copies its 64-bit option into a 32-bit field.
            buffer_alignment=values["buffer_alignment"] & 0xFFFFFFFF,
            dialect_filter=_split(values["dialect_filter"]),
            no_analysis_func_filter=_split(values["no_analysis_func_filter"]),
            must_infer_memory_space=values["must_infer_memory_space"],
            use_encoding_for_memory_space=values["use_encoding_for_memory_space"],
            conflict_counter=_counters["conflicts"],
            non_writable_counter=_counters["non_writable"],
            analysis_only=analysis_only,
            rank_orders=[(h, s & 0xFFFFFFFF) for h, s in orders],
            check_facts=check_facts,
        )
        _counters["conflicts"] = result.conflict_counter
        _counters["non_writable"] = result.non_writable_counter
    return result
