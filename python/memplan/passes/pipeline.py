"""Textual pass pipelines that mix upstream MLIR passes and memplan passes.

memplan's passes are in MLIR's pass registry, so MLIR parses the pipeline:
``builtin.module(one-shot-bufferize{...}, memplan-buffer-reuse, func.func(cse))``
is checked (names, options, nesting: memplan's passes run on
``builtin.module``) exactly as mlir-opt checks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from memplan import _core
from memplan import passes as registry

if TYPE_CHECKING:  # mlir.ir imports numpy: imported where a pipeline runs
    from mlir import ir, passmanager


#: Upstream's reference bufferization (../shared/workloads/README.md):
#: identity-layout function boundaries, explicit deallocations, lifetimes
#: shortened.
UPSTREAM_BUFFERIZATION = (
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,func.func(optimize-allocation-liveness)"
)

#: The same with memplan's in-place analysis driving the bufferization (the
#: same memref IR, without upstream's analysis): what memplan's memory passes
#: expect as input.
BUFFERIZATION = UPSTREAM_BUFFERIZATION.replace(
    "one-shot-bufferize{", "memplan-one-shot-bufferize{", 1
)

#: memplan's in-place analysis, the bufferization ``memplan-memory-pipeline``
#: runs before its deallocation.
MEMPLAN_ONE_SHOT = (
    "memplan-one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}"
)

#: memplan's in-place analysis and its own deallocation (upstream's
#: ownership-based deallocation only for what memplan does not understand).
MEMPLAN_BUFFERIZATION = f"{MEMPLAN_ONE_SHOT},memplan-buffer-deallocation"

#: memplan's tensor-level passes that lower the peak bufferization reaches
#: (:mod:`memplan.peak`), in the order ``memplan-memory-pipeline`` runs them.
PEAK_PASSES = (
    "memplan-fold-transposes",
    "memplan-split-destinations",
    "memplan-recompute-cheap-values",
    "memplan-reorder-for-memory",
    "memplan-reuse-dying-inputs",
    "memplan-eliminate-subset-copies",
)


class PipelineError(ValueError):
    """A pipeline that does not parse or names an unknown pass or option."""


def parse_pipeline(text: str, context: ir.Context | None = None) -> passmanager.PassManager:
    """MLIR's pass manager for ``text`` (``builtin.module(...)``); raises
    :class:`PipelineError` with MLIR's message."""
    from mlir import passmanager

    registry.registered_passes()  # memplan's passes are in MLIR's registry
    try:
        return passmanager.PassManager.parse(text.strip(), context=context)
    except ValueError as err:
        raise PipelineError(str(err).strip()) from None


def run_pipeline(module: Union[ir.Module, ir.Operation], text: str) -> list[registry.MemplanPass]:
    """Run a mixed pipeline on ``module`` in place; returns the memplan passes
    run, in order, with their statistics.

    Raises :class:`PipelineError` for a bad pipeline, ``mlir.ir.MLIRError``
    (with the passes' diagnostics) when a pass fails, and ``TypeError`` for a
    module of other MLIR Python bindings (bring it over with
    :func:`memplan.import_module`).
    """
    from mlir import ir

    op = module.operation if isinstance(module, ir.Module) else module
    if not isinstance(op, (ir.Operation, ir.OpView)):
        from memplan.ir.foreign import foreign_module_message

        raise TypeError(foreign_module_message(module, "run_pipeline"))
    pm = parse_pipeline(text, op.context)
    with registry.recording_runs(op.context) as ran:
        run_pass_manager(pm, op)
    return ran


def run_pass_manager(pm: passmanager.PassManager, op: ir.Operation) -> None:
    """``pm.run(op)`` with the GIL released while MLIR runs: memplan passes
    that the pass manager runs on its worker threads (one per nested module)
    take the GIL in turn, where ``PassManager.run``, which holds it all
    along, makes them fail. Raises ``mlir.ir.MLIRError`` with the error
    diagnostics when the pipeline fails, as ``PassManager.run`` does."""
    from mlir import ir

    context = op.context
    errors: list[ir.DiagnosticInfo] = []

    def capture(diag: ir.Diagnostic) -> bool:
        # What PassManager.run's capture takes: errors, unless the context
        # asks for them to be emitted.
        if context.emit_error_diagnostics or diag.severity != ir.DiagnosticSeverity.ERROR:
            return False
        errors.append(ir.DiagnosticInfo(diag))
        return True

    handler = context.attach_diagnostic_handler(capture)
    try:
        ok = _core.run_pass_manager(pm, op)
    finally:
        handler.detach()
    if not ok:
        raise ir.MLIRError("Failure while executing pass pipeline", errors)
