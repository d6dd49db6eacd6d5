"""``memplan-split-destinations``: one fresh destination per use.

torch-mlir's importer (and any pass that CSEs) shares one ``tensor.empty``
between the same op of every layer. Upstream bufferization then makes one
buffer, allocated where that ``tensor.empty`` stands, and writes it in place
in every layer: it lives from the first layer to the last. This pass gives
every op of the destination's block that holds uses of it its own copy, right
before that op (a use inside a loop gets its copy before the loop), shared by
the uses that op holds: a loop or a branch gets one destination, as upstream
allocates it, not one per nested use, which would hold them all on every
path. A destination held by one op moves down to it. The grouping of uses is
``lib/Peak/UseAnchors.cpp``, shared with
``memplan-recompute-cheap-values``. The rewrite itself is C++ on MLIR's C++ API
(``lib/Peak/SplitDestinations.cpp``); which ops are destinations comes
from the interfaces: side-effect free, no regions and no tensor operands, one
tensor result that ``BufferizableOpInterface`` says bufferizes to an
allocation. A shared destination that one of its uses reads stays shared:
the program reads undefined contents, and bufferization would give it what
another use wrote, which the split would change.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext
from memplan.peak import report


def run(module: ir.Operation, ctx: PassContext) -> None:
    stats = _core.split_destinations(module._CAPIPtr)
    report(stats, ctx)
    ctx.preserves_all_analyses = not (stats.split or stats.sunk)


__all__: list[str] = []
