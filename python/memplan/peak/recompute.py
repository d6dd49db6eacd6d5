"""``memplan-recompute-cheap-values``: recompute what is cheap instead of holding it.

torch-mlir's importer CSEs ``linalg.fill`` as it does ``tensor.empty``: one
zero-filled tensor is the destination of the same matmul in every layer, and
bufferization keeps its buffer (or a copy of it per layer) from the first
layer to the last. A value whose computation reads only constants, scalars
and other such values (side-effect free ops by ``MemoryEffectOpInterface``,
their tensor operands and the tensors their regions use ``ConstantLike`` or
cheap, any region a ``LinalgOp`` payload: zero and constant fills,
broadcasts of constants, ``tensor.empty``, index-only generics) can be
computed again right before each op that uses it instead (one computation
per op of the function body holding uses, shared by them; the value is
moved down when one op holds them all).

Whether to recompute is decided per function body by a model of the bytes
its tensors hold at every op and between ops (the dataflow bound in tensor
terms: each tensor from its definition to its last use, in place only into
a destination that dies there; ``lib/Peak/BlockPeakModel.cpp``).
Recomputing a value frees its buffer between its uses and adds, before each
user, what its computation holds; every candidate is taken, the ones whose
computation would hold more at the peak are dropped, then, the costliest in
work first, each one the peak does not need. So the modeled peak never
rises, and work is added only where holding a value costs bytes at the
peak, within ``max-added-work-percent`` of the function's work (loop
iterations times payload ops of its linalg ops). Values with dynamic sizes,
values computed inside a loop body or a branch, and computations of more
than 64 ops are left alone. ``remarks`` reports one remark per decision.
The rewrite: ``lib/Peak/RecomputeCheapValues.cpp``; the grouping of
uses by the op holding them is shared with ``memplan-split-destinations``.
Run it after ``memplan-split-destinations`` (as ``memplan-memory-pipeline``
does), whose split destinations the model reads as one buffer each.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext
from memplan.peak import report


def run(module: ir.Operation, ctx: PassContext) -> None:
    """The pass' body (declared in :mod:`memplan.passes.declarations`)."""
    stats = _core.recompute_cheap_values(module._CAPIPtr, ctx.options)
    for location, message in stats.remarks:
        ctx.remark(location, message)
    report(stats, ctx)
    ctx.preserves_all_analyses = stats.recomputed == 0


__all__ = ["run"]
