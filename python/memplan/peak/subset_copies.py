"""``memplan-eliminate-subset-copies``: producers write into their consumer's buffer.

A value copied into a subset of a larger tensor needs its own buffer and the
larger one at once: the input of a ``tensor.pad`` and its padded copy (the
peak of most CNNs, before a 3x3 convolution or a pooling), the operands of a
``tensor.concat`` (skip connections, rotary embeddings), the source of a
``tensor.insert_slice``. When the value is made by destination-style ops
that start at a fresh destination, they can write straight into the subset
instead, as upstream's ``eliminate-empty-tensors`` does for
``tensor.insert_slice``::

    %r = linalg.generic ins(%x) outs(%e)
    %p = tensor.pad %r low[1, 1] high[1, 1]

becomes::

    %big = linalg.fill ins(%pad) outs(tensor.empty())
    %s = tensor.extract_slice %big[1, 1] [4, 4] [1, 1]
    %r = linalg.generic ins(%x) outs(%s)
    %p = tensor.insert_slice %r into %big[1, 1] [4, 4] [1, 1]

The larger tensor is made (and filled with the padding value) right before
the producers start; the border keeps the padding and the interior gets the
producers' writes, so the values are the same bit for bit. The
``insert_slice`` bufferizes in place: one buffer and no copy.

Legality, decided per value (C++: ``lib/Peak/EliminateSubsetCopies.cpp``):

* the value and every tensor its producers write into are used only along
  that chain (so nothing reads the value after the copy, nothing else sees
  the larger tensor's other contents through it); the chain ends at a fresh
  destination (``tensor.empty``, by ``BufferizableOpInterface``) that the
  first op does not read, or at a fill-like op of one, which is cloned onto
  the slice when it is shared;
* static shapes; a padding value that does not depend on the position and is
  defined (or is a constant) before the producers; for an insertion, the
  destination and offsets available before the producers, or pure ops that
  can be moved there; in a concat, the producers of the operands written in
  place must not interleave;
* memplan's in-place analysis, on a clone of the module with every rewrite
  applied, bufferizes every operand of the rewrite in place and keeps every
  in-place decision of the rest of the module;
* the modeled peak of the function (buffers as the analysis' alias sets
  rooted at allocations, each live from its first to its last op) does not
  go up: holding the larger tensor from the producers on may cost more than
  the copy saves.

With ``remarks`` each candidate gets a remark: written in place, or why it
stays a copy.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.ir.parse import location_prefix
from memplan.passes import PassContext
from memplan.peak import report

ARGUMENT = "memplan-eliminate-subset-copies"


def run(module: ir.Operation, ctx: PassContext) -> None:
    """The pass' body (declared in :mod:`memplan.passes.declarations`)."""
    stats = _core.eliminate_subset_copies(module._CAPIPtr, ctx.options)
    # With the remarks option, one per candidate, a failed analysis included.
    for location, message in stats.remarks:
        ctx.remark(location, f"{ARGUMENT}: {message}")
    if not stats.analyzed and not ctx.options["remarks"]:
        ctx.remark(
            module, f"{ARGUMENT}: the in-place analysis failed on this module; nothing changed"
        )
    report(stats, ctx)
    ctx.preserves_all_analyses = stats.written == 0


def copy_decisions(module: ir.Operation, function_boundaries: bool = True) -> dict[str, str]:
    """What ``memplan-eliminate-subset-copies`` would do with the copies of
    the tensor program ``module`` (left unchanged): per ``file:line:col`` of
    a pad, concat or insert_slice, its remarks (one per value copied)
    joined by ``"; "``. Empty when the in-place analysis fails on
    ``module``."""
    options = {"bufferize_function_boundaries": function_boundaries, "remarks": True}
    stats = _core.eliminate_subset_copies(module._CAPIPtr, options, dry_run=True)
    out: dict[str, str] = {}
    for location, message in stats.remarks:
        key = location_prefix(location)
        out[key] = f"{out[key]}; {message}" if key in out else message
    return out


__all__ = ["copy_decisions", "run"]
