"""The earlier graph-based C++ in-place core (``lib/inplace_*.cpp``).

The pass runs the interface engine (:mod:`memplan.inplace.engine`); this
core, with the Python reference analysis (:mod:`memplan.inplace.analysis`)
where it declines, still ranks the analysis orders for
``analysis-heuristic=min-copy-bytes`` (its copy plan gives each order's copy
bytes) until that and the explanation API move onto the engine's results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mlir import ir

from memplan import _core
from memplan.inplace.analysis import Options
from memplan.ir.graph import extract_graph

_HEURISTICS = {"bottom-up": 0, "top-down": 1, "fuzzer": 2, "bottom-up-from-terminators": 3}

ENGINES = ("auto", "cpp", "python")


def unsupported_options(opts: Options) -> Optional[str]:
    """Why the C++ core cannot take these options, or None if it can."""
    if opts.analysis_heuristic not in _HEURISTICS:
        return f"analysis-heuristic={opts.analysis_heuristic}"
    if opts.print_conflicts:
        return "print-conflicts"
    if opts.dump_alias_sets:
        return "dump-alias-sets"
    if opts.dialect_filter:
        return "dialect-filter"
    if opts.no_analysis_func_filter:
        return "no-analysis-func-filter"
    return None


@dataclass
class FastAnalysis:
    """The core's answer for one module."""

    graph: _core.Graph
    result: _core.InplaceResult

    @property
    def ok(self) -> bool:
        return self.result.ok



def analyze(module: ir.Operation, opts: Options, plan_copies: bool = False,
            graph: Optional[_core.Graph] = None) -> FastAnalysis:
    """Run the C++ core on ``module`` (the options must be supported).
    ``plan_copies`` also plans the tensor copies of the out-of-place
    decisions (its bytes rank the orders of min-copy-bytes). ``graph``: the module's
    graph, when already extracted (the IR must not have changed since)."""
    reason = unsupported_options(opts)
    if reason is not None:
        raise ValueError(f"the C++ in-place core does not support {reason}")
    if graph is None:
        graph = extract_graph(module)
    result = _core.inplace_analyze(
        graph,
        function_boundaries=opts.bufferize_function_boundaries,
        allow_unknown_ops=opts.allow_unknown_ops,
        allow_return_allocs_from_loops=opts.allow_return_allocs_from_loops,
        heuristic=_HEURISTICS[opts.analysis_heuristic],
        seed=opts.analysis_fuzzer_seed & 0xFFFFFFFF,
        check_parallel_regions=opts.check_parallel_regions,
        plan_copies=plan_copies,
    )
    return FastAnalysis(graph, result)


def choose_min_copy_bytes(module: ir.Operation, opts: Options):
    """min-copy-bytes through the core: (options of the chosen order, [(order,
    bytes, copies)] per order, the chosen order's analysis with its copy
    plan), or None when the core declines any order (the Python reference
    then decides, as it also handles failed orders)."""
    from dataclasses import replace

    from memplan.inplace.explain import MIN_COPY_BYTES_ORDERS, order_name

    best = None
    costs = []
    graph = extract_graph(module)
    for h, seed in MIN_COPY_BYTES_ORDERS:
        o = replace(opts, analysis_heuristic=h, analysis_fuzzer_seed=seed)
        fa = analyze(module, o, plan_copies=True, graph=graph)
        if not fa.ok:
            return None
        cost = (fa.result.copy_bytes, fa.result.copy_count)
        costs.append((order_name(h, seed), *cost))
        if best is None or cost < best[0]:
            best = (cost, o, fa)
    return best[1], costs, best[2]
