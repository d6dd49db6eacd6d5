"""memplan's in-place engine (``lib/Inplace/``, on MLIR's C++ API) behind
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


def run(
    module: ir.Operation,
    values: dict,
    heuristic: str,
    seed: int,
    analysis_only: bool = False,
    orders: Sequence[tuple[str, int]] = (),
    check_facts: bool = False,
) -> _core.EngineResult:
    """Analyze ``module`` with the ``memplan-one-shot-bufferize`` option
    ``values`` (every option, keyed by Python name, as
    :class:`memplan.passes.PassContext` holds them; the engine reads them by
    name) in the order ``heuristic`` (``seed`` for the fuzzer), then
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
            values,
            analysis_heuristic=heuristic,
            analysis_fuzzer_seed=seed,
            conflict_counter=_counters["conflicts"],
            non_writable_counter=_counters["non_writable"],
            analysis_only=analysis_only,
            rank_orders=list(orders),
            check_facts=check_facts,
        )
        _counters["conflicts"] = result.conflict_counter
        _counters["non_writable"] = result.non_writable_counter
    return result
