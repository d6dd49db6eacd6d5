"""``memplan-one-shot-bufferize``: upstream's one-shot-bufferize with memplan's
in-place analysis.

* With ``test-analysis-only`` the IR is annotated exactly like upstream
  (``__inplace_operands_attr__``, ``print-conflicts``, ``dump-alias-sets``,
  ``bufferization.access`` / ``__equivalent_func_args__`` at function
  boundaries).
* Otherwise every out-of-place decision is materialized as an explicit copy
  in tensor IR (``bufferization.alloc_tensor() copy(%t)``, as upstream's
  TensorCopyInsertion does) and the IR is handed to upstream
  ``one-shot-bufferize`` with the user's options for the rewrite.

When the analysis meets an op or pattern it does not model, the pass fails
with a located error in ``test-analysis-only`` mode, and in rewrite mode falls
back to running upstream's own analysis (with a remark).
"""

from __future__ import annotations

from typing import Optional

from mlir import ir, passmanager

from memplan.inplace.analysis import HEURISTICS, AnalysisError, Options
from memplan.inplace.semantics import Unsupported
from memplan.passes import Option, PassContext, register_pass

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
    Option("analysis-fuzzer-seed", int, 0, "seed of the fuzzer heuristic"),
    Option("test-analysis-only", bool, False, "only annotate the IR with the analysis results"),
    Option("print-conflicts", bool, False, "annotate RaW conflicts (with test-analysis-only)"),
    Option("dump-alias-sets", bool, False, "annotate alias sets (with test-analysis-only)"),
    Option("copy-before-write", bool, False, "skip the analysis, copy before every write"),
    Option("buffer-alignment", int, 64, "alignment of new allocations"),
    Option("dialect-filter", str, "", "comma-separated dialects to bufferize; empty: all"),
    Option("no-analysis-func-filter", str, "", "comma-separated functions to skip in the analysis"),
    Option("check-parallel-regions", bool, True, "privatize buffers written in parallel regions"),
    Option("analysis-engine", str, "auto",
           "memplan: C++ core when it models the input (auto), always (cpp: error where it "
           "declines) or the Python reference (python)",
           choices=("auto", "cpp", "python")),
]


def options_from(values: dict) -> Options:
    heuristic = values["analysis_heuristic"]
    return Options(
        bufferize_function_boundaries=values["bufferize_function_boundaries"],
        allow_unknown_ops=values["allow_unknown_ops"],
        allow_return_allocs_from_loops=values["allow_return_allocs_from_loops"],
        analysis_heuristic=heuristic,
        analysis_fuzzer_seed=values["analysis_fuzzer_seed"],
        test_analysis_only=values["test_analysis_only"],
        print_conflicts=values["print_conflicts"],
        dump_alias_sets=values["dump_alias_sets"],
        check_parallel_regions=values["check_parallel_regions"],
        dialect_filter=tuple(x for x in values["dialect_filter"].split(",") if x),
        no_analysis_func_filter=tuple(x for x in values["no_analysis_func_filter"].split(",") if x),
    )


def upstream_pipeline(values: dict, **override) -> str:
    """The upstream one-shot-bufferize pass with the user's options."""
    v = dict(values)
    v.update(override)
    parts = []
    for key in ("bufferize_function_boundaries", "allow_return_allocs_from_loops", "allow_unknown_ops",
                "test_analysis_only", "print_conflicts", "dump_alias_sets", "copy_before_write",
                "check_parallel_regions"):
        parts.append(f"{key.replace('_', '-')}={'true' if v[key] else 'false'}")
    parts.append(f"function-boundary-type-conversion={v['function_boundary_type_conversion']}")
    parts.append(f"unknown-type-conversion={v['unknown_type_conversion']}")
    parts.append(f"buffer-alignment={v['buffer_alignment']}")
    h = v["analysis_heuristic"]
    if h == "min-copy-bytes":
        h = "bottom-up"
    parts.append(f"analysis-heuristic={h}")
    if h == "fuzzer":
        parts.append(f"analysis-fuzzer-seed={v['analysis_fuzzer_seed']}")
    if v["dialect_filter"]:
        parts.append(f"dialect-filter={v['dialect_filter']}")
    if v["no_analysis_func_filter"]:
        parts.append(f"no-analysis-func-filter={v['no_analysis_func_filter']}")
    return "builtin.module(one-shot-bufferize{" + " ".join(parts) + "})"


def _locate(module: ir.Operation, ma_or_an, op: int):
    try:
        return ma_or_an.pyop(op)
    except Exception:  # pragma: no cover - op id out of range
        return module


def run_upstream(module: ir.Operation, values: dict, **override) -> None:
    pm = passmanager.PassManager.parse(upstream_pipeline(values, **override), module.context)
    pm.run(module)


class UpstreamFailed(Exception):
    """Upstream's rewrite failed; its diagnostics are in ``err``."""

    def __init__(self, err: ir.MLIRError):
        super().__init__(str(err))
        self.err = err


def _report_upstream(ctx: PassContext, module: ir.Operation, err: ir.MLIRError) -> None:
    diags = list(err.error_diagnostics)
    if not diags:
        ctx.error(module, str(err))
    for d in diags:
        ctx.error(d.location, d.message)


@register_pass(
    "memplan-one-shot-bufferize",
    "One-Shot Bufferize with memplan's near-linear in-place analysis",
    "Makes upstream One-Shot Analysis' in-place decisions (identical annotations with "
    "test-analysis-only); otherwise materializes the copies and lets upstream rewrite.",
    options=OPTIONS,
)
def _run(module: ir.Operation, ctx: PassContext) -> None:
    try:
        _run_checked(module, ctx)
    except ir.MLIRError as err:
        _report_upstream(ctx, module, err)


def _run_core(module: ir.Operation, ctx: PassContext, opts: Options, values: dict) -> bool:
    """The pass through the C++ core (annotation, or rewrite mode with the
    core's copy plan); False when the Python reference has to run instead
    (engine=python, or the core declined)."""
    from memplan.inplace import fast

    engine = values["analysis_engine"]
    if engine == "python":
        return False
    analysis_only = values["test_analysis_only"]
    fa = None
    if opts.analysis_heuristic == "min-copy-bytes":
        chosen = fast.choose_min_copy_bytes(module, opts)
        if chosen is not None:
            opts, costs, fa = chosen  # the kept order's analysis, copy plan included
            _report_costs(ctx, costs, opts)
    reason = fast.unsupported_options(opts)
    where = module
    if reason is None:
        if fa is None:
            fa = fast.analyze(module, opts)
        if fa.ok and analysis_only:
            ctx.stat("num-tensor-in-place", fa.num_inplace(), "tensor operands in place")
            ctx.stat("cpp-core", 1, "modules analyzed by the C++ core")
            fast.annotate(fa, opts)
            return True
        if fa.ok:
            ctx.stat("cpp-core", 1, "modules analyzed by the C++ core")
            scopes = fa.result.scopes
            boundary = {f.func for f in fa.result.facts}
            _rewrite(module, ctx, values, fa.graph, fa.result.inplace, fa.result.decided,
                     [(s, s in boundary) for s in scopes])
            return True
        if analysis_only:
            where, reason = fa.decline_location(module), fa.result.decline_reason
        else:
            reason = "the C++ core declined the module"
    if engine == "cpp":
        ctx.error(where, f"memplan-one-shot-bufferize: the C++ core does not handle this input: {reason}")
        return True
    ctx.stat("python-reference", 1, "modules the C++ core declined (Python analysis ran)")
    return False


def _report_costs(ctx: PassContext, costs: list, chosen: Options) -> None:
    """min-copy-bytes: bytes and copies of every analysis order tried, and
    which one was kept."""
    from memplan.inplace.explain import MIN_COPY_BYTES_ORDERS

    key = (chosen.analysis_heuristic, chosen.analysis_fuzzer_seed)
    if key in MIN_COPY_BYTES_ORDERS:
        ctx.stat("min-copy-bytes-choice", MIN_COPY_BYTES_ORDERS.index(key),
                 "order kept (0 bottom-up, 1 top-down, 2 bottom-up-from-terminators, 3-5 fuzzer seeds 1-3)")
    for name, nbytes, ncopies in costs:
        if nbytes is None:
            continue  # that order's analysis failed
        ctx.stat(f"copy-bytes-{name}", nbytes, f"bytes copied with analysis-heuristic={name}")
        ctx.stat(f"copies-{name}", ncopies, f"copies with analysis-heuristic={name}")


def _call_to_defined_function(module: ir.Operation) -> Optional[ir.Operation]:
    """The first func.call with tensor operands to a func.func of ``module``."""
    defined = set()
    calls = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "func.func" and op.regions[0].blocks:
            defined.add(ir.StringAttr(op.attributes["sym_name"]).value)
        elif op.name == "func.call" and any(isinstance(v.type, ir.RankedTensorType) or
                                            isinstance(v.type, ir.UnrankedTensorType)
                                            for v in op.operands):
            calls.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    for call in calls:
        if ir.FlatSymbolRefAttr(call.attributes["callee"]).value in defined:
            return call
    return None


def _run_checked(module: ir.Operation, ctx: PassContext) -> None:
    from memplan.inplace.annotate import annotate
    from memplan.inplace.driver import ModuleAnalysis

    values = ctx.options
    if values["analysis_heuristic"] == "fuzzer" and not values["analysis_fuzzer_seed"]:
        # Upstream aborts on it.
        ctx.error(module, "memplan-one-shot-bufferize: analysis-heuristic=fuzzer needs a "
                          "non-zero analysis-fuzzer-seed")
        return
    if values["copy_before_write"]:
        if values["test_analysis_only"]:
            ctx.error(module, "copy-before-write cannot be combined with test-analysis-only")
            return
        call = _call_to_defined_function(module) if values["bufferize_function_boundaries"] else None
        if call is not None:
            # Upstream crashes when such a callee writes its tensor argument.
            ctx.error(call, "memplan-one-shot-bufferize: copy-before-write with "
                            "bufferize-function-boundaries does not support calls to functions "
                            "defined in the module")
            return
        run_upstream(module, values)
        return
    opts = options_from(values)
    if _run_core(module, ctx, opts, values):
        return
    ma = ModuleAnalysis(module, opts)
    try:
        if opts.analysis_heuristic == "min-copy-bytes":
            from memplan.inplace.explain import run_heuristic

            ma = run_heuristic(module, opts)
            _report_costs(ctx, ma.heuristic_costs, ma.opts)
        else:
            ma.run()
    except Unsupported as err:
        where = _locate(module, ma.an, err.op)
        if values["test_analysis_only"]:
            ctx.error(where, f"memplan-one-shot-bufferize: {err.message}")
            return
        ctx.remark(where, f"memplan-one-shot-bufferize: {err.message}; falling back to upstream's analysis")
        run_upstream(module, values)
        return
    except AnalysisError as err:
        ctx.error(ma.an.pyop(err.op), err.message)
        return
    an = ma.an
    if values["test_analysis_only"]:
        ctx.stat("num-tensor-in-place", sum(an.inplace[o] for o in range(len(an.operands))
                                             if an.decided[o] or an.inplace[o]), "tensor operands in place")
        annotate(ma)
        for op, msg in an.errors:
            ctx.error(an.pyop(op), msg)
        return
    if an.errors:
        for op, msg in an.errors:
            ctx.error(an.pyop(op), msg)
        return
    _rewrite(module, ctx, values, an.graph, an.inplace, an.decided,
             [(f, f in ma.func_facts) for f in ma.scopes])


def _rewrite(module: ir.Operation, ctx: PassContext, values: dict, graph, inplace, decided,
             scopes: list) -> None:
    """Rewrite mode: upstream's copy insertion and bufferization with
    memplan's decisions (no upstream analysis)."""
    from memplan.inplace import rewrite

    try:
        stats = rewrite.bufferize(graph, inplace, decided, scopes, values)
    except rewrite.RewriteFailed:
        ctx.failed = True
        return
    ctx.stat("num-buffer-alloc", stats.num_buffer_alloc, "buffer allocations")
    ctx.stat("num-tensor-in-place", stats.num_tensor_in_place, "tensor operands in place")
    ctx.stat("num-tensor-out-of-place", stats.num_tensor_out_of_place, "tensor operands out of place")
