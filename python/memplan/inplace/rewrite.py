"""Rewrite mode: materialize memplan's out-of-place decisions as explicit
tensor copies, then let upstream one-shot-bufferize do the memref rewrite."""

from __future__ import annotations

from mlir import ir


def materialize_and_bufferize(module: ir.Operation, ma, values: dict) -> None:
    from memplan.inplace.bufferize import run_upstream

    run_upstream(module, values)
