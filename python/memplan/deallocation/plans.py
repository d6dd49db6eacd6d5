"""memplan-buffer-deallocation's plans as data, and their one apply.

:func:`plan` runs the ownership analysis of ``memplan-buffer-deallocation``
(C++: ``lib/Deallocation/Ownership.cpp``) on a module without changing it and
returns one :class:`DeallocationPlan` per function with a body: plain data in
the ids of the module's graph (:func:`memplan.ir.extract_graph`), with no MLIR
handle in it (``include/memplan/Deallocation/DeallocationPlanFields.def``
documents every field). :func:`apply` checks plans against the module and
builds what they say with the pass's own rewrite, one C++ call per function;
a malformed plan raises (``IndexError``, ``TypeError``, ``ValueError``) before
anything changes.

The pass changes the IR before it plans (:func:`prepare`): it drops reads
of buffers nothing uses, with its options copies loop inits only where
loops run and drops every dead buffer value, and returns what returned
merges always hold (a plan with ``return_forwards``, which :func:`apply`
refuses). :func:`prepare`, :func:`plan` then :func:`apply` make the pass's
output on a module whose functions memplan does not leave to upstream; the
pass itself stays one C++ call (``_core.deallocate_buffers``), the same
analysis and the same apply without the graph in between.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from memplan import _core
from memplan.ir.graph import OpLike, extract_graph

DeallocationPlan = _core.DeallocationPlan
Ownership = _core.Ownership
FreePlace = _core.FreePlace


def prepare(
    module: OpLike, drop_dead_values: bool = False, copy_where_loops_run: bool = False
) -> int:
    """What ``memplan-buffer-deallocation`` does to ``module`` before it plans,
    with its options of those names: the
    plans :func:`plan` then makes are the pass's. Returns the number of loop
    inits copied only where their loop runs."""
    operation = module.operation if isinstance(module, (ir.Module, ir.OpView)) else module
    options = {"drop-dead-values": drop_dead_values, "copy-where-loops-run": copy_where_loops_run}
    return _core.prepare_deallocation(operation._CAPIPtr, options).loop_copies


def plan(module: OpLike) -> list[DeallocationPlan]:
    """The deallocation plan of every function with a body in ``module`` (its
    nested ``builtin.module``\\ s included), in the ids of
    ``extract_graph(module)``. The IR is not changed. A function memplan
    leaves to upstream's deallocation has ``left`` set (the reason)."""
    return _core.plan_deallocation(extract_graph(module))


def apply(module: OpLike, plans: Sequence[DeallocationPlan]) -> dict[str, int]:
    """Apply ``plans`` (those :func:`plan` made of ``module``, which must be
    unchanged since: their ids are of its graph) to ``module``: the plans of
    the functions left to upstream are skipped, every other one is checked
    before any is applied, so that a malformed plan raises and changes
    nothing. Returns the ``DeallocationStats`` counters summed over the
    plans, by attribute name."""
    graph = extract_graph(module)
    applied = [p for p in plans if not p.left]
    for p in applied:
        _core.check_deallocation_plan(graph, p)
    totals = {attribute: 0 for attribute, _, _ in _core.DeallocationStats.STATISTICS}
    for p in applied:
        stats = _core.apply_deallocation_plan(graph, p)
        for attribute in totals:
            totals[attribute] += getattr(stats, attribute)
    return totals


__all__ = ["DeallocationPlan", "FreePlace", "Ownership", "apply", "plan", "prepare"]
