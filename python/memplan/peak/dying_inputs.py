"""``memplan-reuse-dying-inputs``: elementwise results written into a dying input.

``%r = linalg.generic ins(%a, %b) outs(%empty)`` with all loops parallel needs a
new buffer for ``%r`` even when ``%a`` (same type, read at the same index) is
never used again. Writing ``%r`` into ``%a`` instead (``outs(%a)``) saves that
buffer: below the dataflow bound, which keeps every destination as written.
Candidates come from the interfaces (``LinalgOp``, upstream's
``linalg::isElementwise``, ``BufferizableOpInterface``); legality from the
in-place analysis: memplan's engine analyzes the rewritten module and a
rewrite stays only where the op writes its input in place and no other
operand lost its in-place decision. Inputs whose buffer may be a function
argument or a constant are never used (writing the caller's tensors would
change what the caller sees). C++: ``lib/transforms/ReuseDyingInputs.cpp``.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext, register_pass
from memplan.peak import FUNCTION_BOUNDARIES, run_analyzing


#: The pass's statistics: counter, statistic name, description.
_COUNTERS = {
    "candidates": ("candidates", "Elementwise ops with an input that may die there"),
    "reused": ("reused-inputs", "Ops now writing into a dying input"),
    "rejected": ("rejected", "Candidates the in-place analysis did not allow"),
}


@register_pass(
    "memplan-reuse-dying-inputs",
    "Write elementwise results into an input that dies there, where the in-place analysis allows it",
    "Tensor level, before bufferization. An elementwise linalg op (all loops parallel) whose "
    "destination is a fresh tensor it does not read gets, as destination, an input of the same "
    "type and indexing map that is not used after it and whose buffer the program allocates. "
    "Each rewrite is checked by memplan's in-place analysis (One-Shot, with function boundaries "
    "by default) and kept only where the op bufferizes in place and no other operand loses its "
    "in-place decision. Tensor semantics are unchanged.",
    options=[FUNCTION_BOUNDARIES],
)
def _run(module: ir.Operation, ctx: PassContext) -> None:
    stats = run_analyzing("memplan-reuse-dying-inputs", _core.reuse_dying_inputs, _COUNTERS, module, ctx)
    ctx.preserves_all_analyses = stats.reused == 0


__all__: list[str] = []
