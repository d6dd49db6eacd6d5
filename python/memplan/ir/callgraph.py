"""The ``func.call`` graph of a module: callees, callers, recursion, order."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    # Tarjan's SCC algorithm, iterative; SCCs come out callee-first.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    counter = 0
    succ = {
        name: [c for _, c in cg.calls[f] if c in cg.funcs] for name, f in cg.funcs.items()
    }
    for root in cg.funcs:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                scc = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    scc.append(w)
                    if w == node:
                        break
                cg.order.extend(reversed(scc))
                if len(scc) > 1 or node in succ[node]:
                    cg.recursive.append(sorted(scc))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
