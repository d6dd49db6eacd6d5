"""The ``func.call`` graph of a module: callees, callers, recursion, order."""

from __future__ import annotations

from dataclasses import dataclass, field

from memplan import _core
from memplan.ir.graph import Graph, function_ids, function_name, is_public


@dataclass
class CallGraph:
    """Functions by name, the call sites in each, and a callee-first order."""

    graph: Graph
    funcs: dict[str, int] = field(default_factory=dict)  # name -> func op id
    calls: dict[int, list[tuple[int, str]]] = field(default_factory=dict)  # func -> [(call op, callee)]
    #: Strongly connected components that recurse (a cycle, or a self call).
    recursive: list[list[str]] = field(default_factory=list)
    #: Function names, callees before callers (recursive SCCs in any order).
    order: list[str] = field(default_factory=list)

    def callee_of(self, call: int) -> str:
        return self.graph.symbol_attribute(call, "callee") or ""

    def is_public(self, func: int) -> bool:
        return is_public(self.graph, func)

    def is_declaration(self, func: int) -> bool:
        return self.graph.region_begin[func + 1] == self.graph.region_begin[func] or (
            self.graph.op_end[func] == func
        )


def build_call_graph(graph: Graph) -> CallGraph:
    """Collect direct calls between the module's functions and order them."""
    cg = CallGraph(graph)
    call_id = graph.name_id("func.call")
    for f in function_ids(graph):
        cg.funcs[function_name(graph, f)] = f
        cg.calls[f] = []
        if call_id < 0:
            continue
        for op in range(f + 1, int(graph.op_end[f]) + 1):
            if graph.op_name[op] == call_id:
                cg.calls[f].append((op, cg.callee_of(op)))
    _order(cg)
    return cg


def _order(cg: CallGraph) -> None:
    # MLIR's CallGraph, components in post-order (lib/call_order.cpp).
    # Declarations have no callable region, so no node: they call nothing and
    # go first.
    ordered: list[str] = []
    for names, recursive in _core.call_graph_order(cg.graph.op_capsule(0)):
        ordered.extend(n for n in names if n in cg.funcs)
        if recursive:
            cg.recursive.append(sorted(names))
    placed = set(ordered)
    cg.order = [n for n in cg.funcs if n not in placed] + ordered
