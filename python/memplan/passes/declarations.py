"""Every memplan pass and pipeline alias, declared once.

What upstream's ``Passes.td`` is to its passes: each declaration gives the
pass' pipeline argument, summary, description and typed options, and where
its body is (``"module:function"``, imported when the pass first runs; a
description of None is that module's docstring). MLIR's pass registry,
``--help``, the Python wrappers (``memplan.passes.<name>``) and the pipeline
parser all come from here.

This module imports nothing heavy (no ``mlir.ir``, which loads numpy, and no
pass module): importing memplan registers every pass from it, so
``memplan-opt`` starts in about the time the MLIR bindings take to load. A
new pass is declared here, with its body in its own module.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from memplan import _core
from memplan.passes import (
    CAPACITY,
    SEARCH_BUDGET,
    Option,
    alignment,
    declared_statistics,
    forward_options,
    register_pass,
    register_pipeline,
    table_options,
)
from memplan.passes.pipeline import MEMPLAN_ONE_SHOT, PEAK_PASSES

# ---------------------------------------------------------------------------
# In-place analysis and bufferization
# ---------------------------------------------------------------------------

#: The options of ``memplan-one-shot-bufferize``: upstream's
#: ``one-shot-bufferize`` options plus ``analysis-heuristic=min-copy-bytes``
#: (see :mod:`memplan.inplace.options`), declared once, in C++
#: (include/memplan/Inplace/OneShotOptions.def), whose engine reads them as a
#: typed struct.
ONE_SHOT_BUFFERIZE_OPTIONS = table_options(_core.ONE_SHOT_BUFFERIZE_OPTIONS)

#: Analysis orders: upstream's four and memplan's min-copy-bytes.
HEURISTICS: tuple[str, ...] = next(
    o.choices for o in ONE_SHOT_BUFFERIZE_OPTIONS if o.name == "analysis-heuristic"
)

register_pass(
    "memplan-one-shot-bufferize",
    "One-Shot Bufferize with memplan's near-linear in-place analysis",
    "Makes upstream One-Shot Analysis' in-place decisions (identical annotations with "
    "test-analysis-only) and drives upstream's copy insertion and bufferization with them.",
    options=ONE_SHOT_BUFFERIZE_OPTIONS,
    run="memplan.inplace.bufferize:run",
)

# ---------------------------------------------------------------------------
# Tensor-level passes that lower the peak (memplan.peak)
# ---------------------------------------------------------------------------


def _peak_pass(
    argument: str,
    summary: str,
    module: str,
    options: Sequence[tuple[str, str, Any, str, Optional[tuple[str, ...]]]] = (),
    stats: Any = None,
) -> None:
    """Declares a pass of memplan.peak: described by the docstring of its
    module ``memplan.peak.<module>``, whose ``run`` is its body, with the
    options its C++ struct declares (``options``, a ``_core`` table from
    include/memplan/Passes/PassOptions.def); with the ``_core`` counters class
    ``stats`` (Counters.def), it runs on a module or on one function and
    reports those counters as its statistics."""
    register_pass(
        argument,
        summary,
        None,
        options=table_options(options),
        run=f"memplan.peak.{module}:run",
        on_functions=stats is not None,
        statistics=declared_statistics(stats) if stats is not None else (),
    )


_peak_pass(
    "memplan-fold-transposes",
    "Fold transposes and broadcasts into the indexing maps of the ops that read them",
    "fold_transposes",
    _core.FOLD_TRANSPOSES_OPTIONS,
    _core.FoldTransposesStats,
)
_peak_pass(
    "memplan-split-destinations",
    "Give every use of a fresh tensor destination its own copy, right before its user",
    "split_destinations",
    stats=_core.SplitDestinationsStats,
)
_peak_pass(
    "memplan-recompute-cheap-values",
    "Recompute cheap values (fills, broadcasts of constants) at their users where holding them "
    "costs bytes at the peak",
    "recompute",
    _core.RECOMPUTE_OPTIONS,
    _core.RecomputeStats,
)
_peak_pass(
    "memplan-reuse-dying-inputs",
    "Write elementwise results into an input that dies there, where the in-place analysis allows "
    "it",
    "dying_inputs",
    _core.DYING_INPUT_OPTIONS,
)
_peak_pass(
    "memplan-reorder-for-memory",
    "Reorder the ops of each function body for a lower memory peak, keeping every dependence",
    "reorder",
    _core.REORDER_OPTIONS,
)
_peak_pass(
    "memplan-eliminate-subset-copies",
    "Compute values copied into a pad, concat or insert_slice straight into that subset",
    "subset_copies",
    _core.SUBSET_COPY_OPTIONS,
)

# ---------------------------------------------------------------------------
# Lifetimes, deallocation and pools
# ---------------------------------------------------------------------------

register_pass(
    "memplan-buffer-liveness",
    "Report buffer live intervals, peak live bytes and pooling eligibility",
    "Analysis only (the IR is unchanged). For every function: each memref.alloc and "
    "memref.alloca, its size in bytes (or an expression of its dynamic sizes), its live "
    "interval [start, end) over pre-order program points (uses through aliases and "
    "regions included) and whether memplan-buffer-reuse can pool it, with the reason "
    "if not. Also peak_live_bytes and total_alloc_bytes.",
    options=[
        Option("format", str, "text", "report format", choices=("text", "json", "none")),
        Option("output", str, "-", "file to write the report to; '-' for stdout"),
        Option("remarks", bool, False, "emit a remark for each allocation that is not poolable"),
        CAPACITY,
    ],
    run="memplan.liveness.liveness_pass:run",
)

register_pass(
    "memplan-buffer-deallocation",
    "Free each buffer right after its last use, with ownership known statically where the paths "
    "agree and a run-time flag where they do not",
    "Runs after bufferization, in place of buffer-deallocation-pipeline and "
    "optimize-allocation-liveness. memplan's ownership analysis decides who frees every buffer of "
    "a function: allocations and call results are owned by their block, a value a region op or a "
    "branch merges is owned where every incoming edge hands ownership over, not where none does, "
    "and under an i1 flag (appended to results, region arguments and block arguments) where they "
    "disagree; each owned buffer is freed right after the last use of any value that may point "
    "into it, and a function returns copies of what it does not own. Functions the analysis "
    "cannot reason about are left to upstream's buffer-deallocation-pipeline and "
    "optimize-allocation-liveness, run with every other function's body hidden.",
    # Declared with their C++ struct (include/memplan/Passes/PassOptions.def).
    options=table_options(_core.DEALLOCATION_OPTIONS),
    run="memplan.deallocation.dealloc_pass:run",
)

register_pass(
    "memplan-verify-deallocation",
    "Prove that every heap buffer is freed exactly once on every path, and nothing else",
    "Checks a deallocated memref program without changing it: every heap allocation "
    "(memref.alloc, bufferization.clone, a call's memref result) is freed exactly once on every "
    "path through its function or returned; no stack buffer, argument or global is freed; no "
    "buffer is used through any view after its free, returned freed, or freed while "
    "asynchronous work may still use it. Functions returning memrefs hand them to the caller, "
    "which owns them (upstream's function boundary ABI). Paths follow RegionBranchOpInterface "
    "and BranchOpInterface to a fixpoint with the i1 flags that decide them. A violation is a "
    "located error (the pass fails); what cannot be proven is a located warning.",
    run="memplan.deallocation.verify:run",
)

#: The ``algorithm`` choices of the pool passes (all from :mod:`memplan.reuse.packing`).
ALGORITHMS = ("best", "linear-scan", "greedy-by-size", "best-fit")

# Shared by the pass and the pipeline alias that forwards them.
_ALGORITHM = Option("algorithm", str, "best", "packing algorithm", choices=ALGORITHMS)
_ALIGNMENT = Option("alignment", alignment, 64, "byte alignment of the pool and of every offset")

register_pass(
    "memplan-buffer-reuse",
    "Pack non-overlapping heap allocations into one memref.view pool per scope",
    "Each eligible memref.alloc becomes memref.view %pool[%offset][sizes] of one "
    "memref.alloc {alignment = A} : memref<Nxi8> per function (or parallel body); its "
    "dealloc is removed and the pool is freed after the last use of any view. Offsets "
    "come from memplan.reuse.packing; buffers with dynamic (hoistable) sizes are placed after "
    "the static region. Ineligible allocations are left unchanged and counted per reason.",
    options=[
        _ALGORITHM,
        _ALIGNMENT,
        Option("remarks", bool, False, "emit a remark per pool and per allocation left alone"),
        CAPACITY,
        SEARCH_BUDGET,
    ],
    per_module=True,
    run="memplan.reuse.reuse_pass:run",
)


#: Each tensor-level pass of ``memplan-memory-pipeline`` (PEAK_PASSES, in
#: order) with the pipeline option that turns it off.
PEAK_PASS_OPTIONS: dict[str, Option] = dict(
    zip(
        PEAK_PASSES,
        (
            Option(
                "fold-transposes",
                bool,
                True,
                "fold transposes and broadcasts into the ops that read them "
                "(memplan-fold-transposes)",
            ),
            Option(
                "split-destinations",
                bool,
                True,
                "give every use of a shared tensor.empty its own, right before its user "
                "(memplan-split-destinations)",
            ),
            Option(
                "recompute",
                bool,
                True,
                "recompute cheap values (fills, broadcasts of constants) at their users where "
                "holding them costs bytes at the peak (memplan-recompute-cheap-values)",
            ),
            Option(
                "reorder",
                bool,
                True,
                "reorder each function body where its modeled peak goes down "
                "(memplan-reorder-for-memory; the importer's order stays elsewhere)",
            ),
            Option(
                "reuse-dying-inputs",
                bool,
                True,
                "write elementwise results into dying inputs (memplan-reuse-dying-inputs)",
            ),
            Option(
                "eliminate-subset-copies",
                bool,
                True,
                "compute values copied into a pad, concat or insert_slice straight into that "
                "subset "
                "(memplan-eliminate-subset-copies)",
            ),
        ),
        strict=True,
    )
)


def _expand_memory_pipeline(options: dict[str, Any]) -> str:
    steps = [p for p, option in PEAK_PASS_OPTIONS.items() if options[option.py_name]]
    if options["reorder"] and not options["reuse_dying_inputs"]:
        # The order's model must not count writes that will not happen.
        steps[steps.index("memplan-reorder-for-memory")] += "{dying-inputs=false}"
    # Promotion before deallocation, as upstream orders them: a buffer that
    # becomes an alloca is never freed (promoted after, its free stayed).
    steps.append(MEMPLAN_ONE_SHOT)
    if options["promote_to_stack"]:
        steps.append("func.func(promote-buffers-to-stack)")
    # Dead aliases would hold buffers past their last use, above upstream's
    # run-time peak on the paths through the ops that carry them; a loop's
    # init copied where the loop makes no trip, above it on those paths (#31).
    dealloc = "drop-dead-values=true"
    if options["copy_where_loops_run"]:
        dealloc += " copy-where-loops-run=true"
    steps.append(f"memplan-buffer-deallocation{{{dealloc}}}")
    # The packing options reach memplan-buffer-reuse where they are set.
    packing = forward_options(options, (CAPACITY, SEARCH_BUDGET))
    reuse = f"algorithm={options['algorithm']} alignment={options['alignment']}{packing}"
    steps.append(f"memplan-buffer-reuse{{{reuse}}}")
    return ", ".join(steps)


register_pipeline(
    "memplan-memory-pipeline",
    "Tensor program in, memref program out, at the lowest peak memplan reaches",
    _expand_memory_pipeline,
    "Expands to: " + "".join(f"[{p},] " for p in PEAK_PASSES) + f"{MEMPLAN_ONE_SHOT}, "
    "[func.func(promote-buffers-to-stack),] "
    "memplan-buffer-deallocation{drop-dead-values [copy-where-loops-run]}, "
    "memplan-buffer-reuse{algorithm alignment [capacity] [search-budget]}.",
    options=[
        _ALGORITHM,
        _ALIGNMENT,
        CAPACITY,
        SEARCH_BUDGET,
        Option(
            "promote-to-stack",
            bool,
            False,
            "run promote-buffers-to-stack before pooling (small buffers become allocas)",
        ),
        Option(
            "copy-where-loops-run",
            bool,
            True,
            "copy a loop's init only where the loop makes a trip, where nothing writes the "
            "source or the loop's results after it (memplan-buffer-deallocation's option)",
        ),
        *PEAK_PASS_OPTIONS.values(),
    ],
)

# ---------------------------------------------------------------------------
# External transient storage (memplan.transients)
# ---------------------------------------------------------------------------

#: The transient passes' offset alignment (memplan.transients.plan.DEFAULT_ALIGNMENT).
_TRANSIENT_ALIGNMENT = Option(
    "alignment", alignment, 64, "byte alignment of every offset in the storage"
)
_ASSERT_SIZE = Option("assert-size", bool, True, "check the storage size with cf.assert")

register_pass(
    "memplan-add-transient-storage",
    "Add a caller-provided transient storage argument to a function",
    "Appends `%storage: memref<?xi8> {memplan.transients}` to the public function "
    "named by `func`. Fails if it is missing, private, called in the module, or "
    "already takes storage.",
    options=[Option("func", str, "", "name of the function (without @)")],
    run="memplan.transients.passes:run_add_storage",
)

register_pass(
    "memplan-verify-transient-storage",
    "Check that every transient allocation can be placed in caller storage",
    "Errors (with locations) when a transient size depends on a memory load, a "
    "call, a mutable global, or a value that cannot be recomputed at the function "
    "entry, on recursion, and on a malformed storage argument. Remarks name the "
    "allocations that stay on the heap and why. The IR is unchanged.",
    options=[
        Option("remarks", bool, True, "emit remarks for allocations left on the heap"),
        CAPACITY,
        SEARCH_BUDGET,
    ],
    per_module=True,
    run="memplan.transients.passes:run_verify",
)

register_pass(
    "memplan-annotate-transient-storage",
    "Write the transient storage plan as attributes (test pass)",
    "Per allocation its scope, live interval, slot, offset and size expressions "
    "(or why it stays on the heap); per function the storage argument and size "
    "expression; per call the callee storage passed down.",
    options=[_TRANSIENT_ALIGNMENT, CAPACITY, SEARCH_BUDGET],
    per_module=True,
    run="memplan.transients.passes:run_annotate",
)

register_pass(
    "memplan-emplace-transients",
    "Place every transient allocation in caller-provided storage",
    "Each transient `memref.alloc` becomes `memref.view %storage[%offset][sizes]` "
    "and loses its dealloc; callees that need storage get a `memref<?xi8>` argument "
    "and receive a view of the caller's storage. Offsets and the total size are "
    "computed at the function entry; with `assert-size` a `cf.assert` checks that "
    "the storage is large enough. Function results stay on the heap.",
    options=[_ASSERT_SIZE, _TRANSIENT_ALIGNMENT, CAPACITY, SEARCH_BUDGET],
    per_module=True,
    run="memplan.transients.passes:run_emplace",
)

register_pass(
    "memplan-materialize-transient-size-queries",
    "Generate @<name>_transient_size functions",
    "For each public function with caller storage, a public function with the "
    "same arguments minus the storage returning the required bytes (`index`), "
    "built from pure arithmetic only. The original function gets "
    "`memplan.transient_size_fn`. Runs after memplan-emplace-transients.",
    per_module=True,
    run="memplan.transients.passes:run_queries",
)

register_pass(
    "memplan-annotate-constant-transient-size",
    "Record sizes whose query folded to a constant",
    "After canonicalize and cse: when `@<name>_transient_size` returns a constant, "
    "put `memplan.transient_size = N : index` on the function, so callers can "
    "skip the query.",
    per_module=True,
    run="memplan.transients.passes:run_constant",
)


def _expand_transients(options: dict[str, Any]) -> str:
    packing = forward_options(options, (CAPACITY, SEARCH_BUDGET))
    return (
        f"memplan-verify-transient-storage{{remarks=false{packing}}},"
        f"memplan-emplace-transients{{assert-size={str(options['assert_size']).lower()} "
        f"alignment={options['alignment']}{packing}}},"
        "memplan-materialize-transient-size-queries,canonicalize,cse,"
        "memplan-annotate-constant-transient-size"
    )


register_pipeline(
    "memplan-transients",
    "Verify, emplace, generate size queries, fold, and record constant sizes",
    _expand_transients,
    "Runs memplan-verify-transient-storage, memplan-emplace-transients (both with the capacity and "
    "search budget), "
    "memplan-materialize-transient-size-queries, canonicalize, cse and "
    "memplan-annotate-constant-transient-size.",
    options=[_ASSERT_SIZE, _TRANSIENT_ALIGNMENT, CAPACITY, SEARCH_BUDGET],
)

# ---------------------------------------------------------------------------
# Test passes
# ---------------------------------------------------------------------------

register_pass(
    "memplan-test-print-graph",
    "Print the compact graph the IR bridge extracts, per function",
    "Test pass: prints ops (pre-order id, parent, block, operands, results) and "
    "values (definition, type, byte size, uses) of every func.func. IR unchanged.",
    options=[Option("stream", str, "stdout", "where to print", choices=("stdout", "stderr"))],
    run="memplan.debug.print_graph:run",
)

register_pass(
    "memplan-test-apply-pool-edit",
    "Apply the pools stated by memplan.test_offset attributes, without the planner",
    None,
    options=[_ALIGNMENT],
    run="memplan.debug.apply_pool_edit:run",
)

register_pass(
    "memplan-test-apply-transient-edit",
    "Apply the transient storage stated by memplan.test_offset attributes, without the planner",
    None,
    options=[_ASSERT_SIZE],
    run="memplan.debug.apply_transient_edit:run",
)

register_pass(
    "memplan-test-apply-deallocation-plan",
    "Apply the deallocation plan stated by memplan.test_ attributes, without the analysis",
    None,
    run="memplan.debug.apply_deallocation_plan:run",
)
