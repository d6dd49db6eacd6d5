"""``memplan-one-shot-bufferize``: upstream's one-shot-bufferize with memplan's
in-place analysis (:mod:`memplan.inplace.engine`).

* With ``test-analysis-only`` the IR is annotated exactly like upstream
  (``__inplace_operands_attr__``, ``print-conflicts``, ``dump-alias-sets``,
  ``bufferization.access`` / ``__equivalent_func_args__`` at function
  boundaries).
* Otherwise memplan's decisions drive upstream's copy insertion and
  bufferization on the same analysis state: the memref IR of upstream's
  ``one-shot-bufferize``, without upstream's analysis.
* ``analysis-heuristic=min-copy-bytes`` first picks the analysis order that
  copies the fewest bytes.
* Before bufferizing, a branch's later edge to a block an earlier edge of it
  already reaches, with tensor operands, gets a block of its own
  (``include/memplan/Inplace/RepeatedSuccessors.h``): upstream reads one edge
  per successor block, and would bufferize such a program into IR that does
  not verify.
"""

from __future__ import annotations

from typing import Optional

from mlir import ir
from mlir.dialects import func

from memplan import _core
from memplan.inplace import engine
from memplan.inplace.min_copy_bytes import DYNAMIC_COST, Ranking, run_ranked
from memplan.inplace.options import OPTIONS
from memplan.passes import PassContext


def upstream_pipeline(values: dict) -> str:
    """Upstream's one-shot-bufferize with the user's options: every option
    that differs from its default (memplan's options are upstream's, with
    upstream's defaults), min-copy-bytes as upstream's default order."""
    parts = []
    for opt in OPTIONS:
        value = values[opt.py_name]
        if opt.name == "analysis-heuristic" and value == "min-copy-bytes":
            continue
        if opt.name == "cfg-conflicts-as-upstream":  # memplan's alone
            continue
        if value != opt.default:
            parts.append(f"{opt.name}={opt.format(value)}")
    return "builtin.module(one-shot-bufferize{" + " ".join(parts) + "})"


def _report_costs(ctx: PassContext, ranking: Ranking) -> None:
    """min-copy-bytes: bytes and copies of every analysis order tried, and
    which one was kept."""
    ctx.stat(
        "min-copy-bytes-choice",
        ranking.choice,
        "order kept (0 bottom-up, 1 top-down, 2 bottom-up-from-terminators, 3-5 fuzzer seeds 1-3)",
    )
    for name, nbytes, ncopies in ranking.costs:
        if nbytes is None:
            continue  # that order's analysis failed
        # A copy of dynamic size costs 2^40 in the ranking; MLIR's pass
        # statistics are 32-bit unsigned, so those copies are counted apart
        # from the static bytes.
        dynamic, static = divmod(nbytes, DYNAMIC_COST)
        ctx.stat(
            f"copy-bytes-{name}",
            static,
            f"bytes of statically sized copies with analysis-heuristic={name}",
        )
        ctx.stat(
            f"dynamic-copies-{name}",
            dynamic,
            f"copies of dynamic size with analysis-heuristic={name}",
        )
        ctx.stat(f"copies-{name}", ncopies, f"copies with analysis-heuristic={name}")


def _boundary_memory_space_errors(
    module: ir.Operation, values: dict
) -> list[tuple[ir.Operation, str]]:
    """Function boundaries whose memory space upstream cannot pick.

    With function boundaries, upstream's bufferization takes the memory space
    of every tensor argument and result of every ``func.func`` (declarations
    included, and so the tensor results of calls to them) from its default
    memory space and asserts where there is none (MLIR 22): with
    ``must-infer-memory-space`` there is none for any tensor, with
    ``use-encoding-for-memory-space`` none for an unranked one. Returns each
    such function with the message to report (the first offending type)."""
    if not values["bufferize_function_boundaries"] or values["test_analysis_only"]:
        return []
    dialects = [d for d in values["dialect_filter"].split(",") if d]
    if dialects and "func" not in dialects:
        return []  # upstream leaves functions alone
    if values["must_infer_memory_space"]:

        def has_no_space(t: ir.Type) -> bool:
            return isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))

        option, why = "must-infer-memory-space", ""
    elif values["use_encoding_for_memory_space"]:

        def has_no_space(t: ir.Type) -> bool:
            return isinstance(t, ir.UnrankedTensorType)

        option, why = "use-encoding-for-memory-space", " (an unranked tensor has no encoding)"
    else:
        return []
    found: list[tuple[ir.Operation, str]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        # Typed checks: upstream's function boundaries are func-dialect only
        # (FuncBufferizableOpInterface covers func.func/call/return).
        if isinstance(op.opview, func.FuncOp):
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            where = [f"tensor argument #{i}" for i, t in enumerate(ftype.inputs) if has_no_space(t)]
            where += [f"tensor result #{i}" for i, t in enumerate(ftype.results) if has_no_space(t)]
            if where:
                found.append(
                    (
                        op,
                        f"memplan-one-shot-bufferize: {option}: the memory space of {where[0]} "
                        f"cannot be inferred at a function boundary{why} (upstream "
                        "one-shot-bufferize "
                        "asserts here)",
                    )
                )
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _copy_before_write_blocker(module: ir.Operation) -> Optional[tuple[ir.Operation, str]]:
    """copy-before-write with function boundaries: the first op upstream's
    module bufferization cannot take, with the message to report, or None.

    Without the analysis, upstream's call interface reads a One-Shot analysis
    state that was never built (llvm-project issue 163052): a func.call with
    tensor operands crashes, whether its callee has a body (when it writes the
    argument) or not. A func.func whose body does not end in func.return trips
    an assertion (MLIR 22.1.8); the analysis path reports it with this message.
    """
    found: list[tuple[ir.Operation, str]] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        # Typed checks, as in _boundary_memory_space_errors.
        view = op.opview
        if isinstance(view, func.FuncOp) and op.regions[0].blocks:
            if not any(
                len(block.operations)
                and isinstance(
                    block.operations[len(block.operations) - 1].operation.opview, func.ReturnOp
                )
                for block in op.regions[0].blocks
            ):
                found.append((op, "cannot bufferize func.func without func.return"))
                return ir.WalkResult.INTERRUPT
        elif isinstance(view, func.CallOp) and any(
            isinstance(v.type, (ir.RankedTensorType, ir.UnrankedTensorType)) for v in op.operands
        ):
            found.append(
                (
                    op,
                    "memplan-one-shot-bufferize: copy-before-write with "
                    "bufferize-function-boundaries does not support calls with tensor operands "
                    "(upstream crashes on them)",
                )
            )
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0] if found else None


def run(module: ir.Operation, ctx: PassContext) -> None:
    values = ctx.options
    if values["analysis_heuristic"] == "fuzzer" and not values["analysis_fuzzer_seed"]:
        # Upstream aborts on it.
        ctx.error(
            module,
            "memplan-one-shot-bufferize: analysis-heuristic=fuzzer needs a "
            "non-zero analysis-fuzzer-seed",
        )
        return
    if values["must_infer_memory_space"] and values["use_encoding_for_memory_space"]:
        ctx.error(
            module,
            "only one of 'must-infer-memory-space' and 'use-encoding-for-memory-space' "
            "are allowed in memplan-one-shot-bufferize",
        )
        return
    boundary_errors = _boundary_memory_space_errors(module, values)
    for op, message in boundary_errors:
        ctx.error(op, message)
    if boundary_errors:
        return
    if not values["test_analysis_only"]:
        # Upstream's bufferization reads one edge per successor block.
        split = _core.split_repeated_successors(module._CAPIPtr)
        if split:
            ctx.stat(
                "split-successor-edges",
                split,
                "repeated successor edges given a block of their own",
            )
    if values["copy_before_write"]:
        if values["test_analysis_only"]:
            ctx.error(module, "copy-before-write cannot be combined with test-analysis-only")
            return
        blocker = (
            _copy_before_write_blocker(module) if values["bufferize_function_boundaries"] else None
        )
        if blocker is not None:
            ctx.error(*blocker)
            return
        # Nothing to analyze: upstream's pass, as a nested pipeline.
        if not ctx.run_pipeline(upstream_pipeline(values)):
            ctx.failed = True
        return
    heuristic, seed = values["analysis_heuristic"], values["analysis_fuzzer_seed"]
    if heuristic == "min-copy-bytes":
        ranking, result = run_ranked(module, values)
        _report_costs(ctx, ranking)
    else:
        result = engine.run(module, values, heuristic, seed)
    if not result.ok:
        ctx.failed = True
        return
    ctx.stat("num-tensor-in-place", result.num_tensor_in_place, "tensor operands in place")
    ctx.stat(
        "num-tensor-out-of-place", result.num_tensor_out_of_place, "tensor operands out of place"
    )
    if values["test_analysis_only"]:
        # Only discardable attributes were added (the annotations).
        ctx.preserves_all_analyses = True
    else:
        ctx.stat("num-buffer-alloc", result.num_buffer_alloc, "buffer allocations")
