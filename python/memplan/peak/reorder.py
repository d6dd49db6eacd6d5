"""``memplan-reorder-for-memory``: a memory-aware op order for tensor programs.

The order an importer emits ops in is rarely the one with the lowest peak:
an op that frees a large buffer may wait behind ops that allocate new ones.
This pass list-schedules each single-block function body (C++:
``lib/transforms/ReorderForMemory.cpp``): among the ops whose operands are
ready, the one that frees the most bytes net of what it allocates goes first.
The order keeps every use-def dependence, the relative order of the ops with
memory effects, and every read of a tensor before an in-place write over it
(memplan's in-place analysis). Buffers are modeled as bufferization lays
them out (the analysis' alias sets rooted at a fresh destination). A body is
reordered only when its modeled peak goes down, and put back when the
analysis of the new order leaves an operand out of place that was in place.
Tensor semantics are unchanged.
"""

from __future__ import annotations

from memplan import _core
from memplan.peak import analyzing_pass

#: The pass' body (declared in memplan.pass_declarations).
run = analyzing_pass("memplan-reorder-for-memory", _core.reorder_for_memory, changed="reordered")

__all__ = ["run"]
