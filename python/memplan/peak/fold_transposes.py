"""``memplan-fold-transposes``: read operands where they lie.

torch-mlir imports every ``nn.Linear`` as a ``linalg.transpose`` of the
weight into a fresh tensor followed by a ``linalg.matmul`` of that copy, and
attention transposes its heads before each batched matmul. The permuted copy
is often the largest buffer of the program (a 2048x2048 weight: 16 MB), and
nobody needs it: a LinalgOp reads its operands through indexing maps.

This pass folds each layout copy (a LinalgOp on tensors whose payload
forwards its one input to its one init through a permutation or a broadcast:
``linalg.transpose``, ``linalg.broadcast``, ``linalg.copy``, such
``linalg.generic``\\ s) into its readers::

    %t = linalg.transpose ins(%w : tensor<16x8xf32>)
           outs(%e : tensor<8x16xf32>) permutation = [1, 0]
    %r = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x16xf32>)
           outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>

becomes::

    %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d1, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>]
           ins(%x, %w : tensor<4x8xf32>, tensor<16x8xf32>)
           outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>

A LinalgOp input reads the source through the composed map: the same op
where it takes the map (its verifier and ``LinalgOp`` agree), else, with
``generalize`` (the default), the ``linalg.generic`` with the same loops in
the same order and the same payload (``linalg.batch_matmul`` only takes maps
whose batch dimension comes first), which computes the same bits.
``tensor.extract`` reads the mapped element. Reshapes that only insert or
drop unit dimensions are looked through. A copy is folded when every use
reads through it, and is then not stored at all; one that a use writes into,
returns or passes on stays, and its other reads are folded only when every
kept use comes first and the source lives anyway (a function argument or a
constant). With ``remarks``, one remark per decision. C++:
``lib/Peak/FoldTransposes.cpp``.
"""

from __future__ import annotations

from mlir import ir

from memplan import _core
from memplan.passes import PassContext
from memplan.peak import report


def run(module: ir.Operation, ctx: PassContext) -> None:
    """Fold the layout copies of ``module`` into their readers (the pass body)."""
    stats, remarks = _core.fold_transposes(module._CAPIPtr, ctx.options)
    report(stats, ctx)
    for location, message in remarks:  # with the remarks option only
        ctx.remark(location, f"memplan-fold-transposes: {message}")
    ctx.preserves_all_analyses = not (stats.folded or stats.partial)


__all__: list[str] = []
