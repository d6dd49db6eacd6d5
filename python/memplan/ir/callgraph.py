"""The call graph of a module: callees, callers, recursion, order.

Calls are the ops that implement CallOpInterface (``func.call``,
``func.call_indirect``, ``llvm.call``, a downstream dialect's calls), with
the symbol they call; functions are the FunctionOpInterface ops of the
module; the order is MLIR's CallGraph's (``lib/IR/CallOrder.cpp``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memplan import _core
from memplan.ir.graph import Graph, function_ids, function_name, is_public


@dataclass
class CallGraph:
    """Functions by name, the call sites in each, and a callee-first order."""

    graph: Graph
    funcs: dict[str, int] = field(default_factory=dict)  # name -> func op id
    calls: dict[int, list[tuple[int, str]]] = field(
        default_factory=dict
    )  # func -> [(call op, callee)]
    #: Strongly connected components that recurse (a cycle, or a self call).
    recursive: list[list[str]] = field(default_factory=list)
    #: Function names, callees before callers (recursive SCCs in any order).
    order: list[str] = field(default_factory=list)

    def callee_of(self, call: int) -> str:
        """The symbol a call calls (CallOpInterface); "" for an indirect call."""
        return self.graph.callee(call) or ""

    def is_public(self, func: int) -> bool:
        """Function op ``func`` is public (callable from outside the module)."""
        return is_public(self.graph, func)

    def is_declaration(self, func: int) -> bool:
        """Function op ``func`` has no body."""
        return self.graph.region_begin[func + 1] == self.graph.region_begin[func] or (
            self.graph.op_end[func] == func
        )


def build_call_graph(graph: Graph) -> CallGraph:
    """Collect the calls in the module's functions and order them."""
    cg = CallGraph(graph)
    calls = np.nonzero((graph.op_role & 0xFF) == _core.LifetimeRole.CALL)[0]
    for f in function_ids(graph):
        cg.funcs[function_name(graph, f)] = f
        inside = calls[(calls > f) & (calls <= int(graph.op_end[f]))]
        cg.calls[f] = [(op, cg.callee_of(op)) for op in inside.tolist()]
    _order(cg)
    return cg


def _order(cg: CallGraph) -> None:
    # MLIR's CallGraph, components in post-order (lib/IR/CallOrder.cpp).
    # Declarations have no callable region, so no node: they call nothing and
    # go first.
    ordered: list[str] = []
    for names, recursive in _core.call_graph_order(cg.graph.op_capsule(0)):
        ordered.extend(n for n in names if n in cg.funcs)
        if recursive:
            cg.recursive.append(sorted(names))
    placed = set(ordered)
    cg.order = [n for n in cg.funcs if n not in placed] + ordered
