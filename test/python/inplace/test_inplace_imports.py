"""memplan.inplace's modules import each other without a cycle, and none
hides an import of a memplan module inside a function (the way one dodges a
cycle)."""

from __future__ import annotations

import ast
import os

import memplan.inplace

PACKAGE = "memplan.inplace"
DIRECTORY = os.path.dirname(memplan.inplace.__file__)


def _modules() -> dict[str, ast.Module]:
    out = {}
    for name in sorted(os.listdir(DIRECTORY)):
        if name.endswith(".py"):
            module = PACKAGE if name == "__init__.py" else f"{PACKAGE}.{name[:-3]}"
            with open(os.path.join(DIRECTORY, name)) as f:
                out[module] = ast.parse(f.read(), name)
    return out


def _imported(node: ast.AST, modules: set[str]) -> set[str]:
    """memplan.inplace modules an import statement names (``from
    memplan.inplace import engine`` names memplan.inplace.engine)."""
    found = set()
    if isinstance(node, ast.Import):
        found = {a.name for a in node.names}
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        for a in node.names:
            sub = f"{node.module}.{a.name}"
            found.add(sub if sub in modules else node.module)
    return {m for m in found if m in modules}


def import_graph() -> dict[str, set[str]]:
    """Module -> the memplan.inplace modules it imports (anywhere in it)."""
    trees = _modules()
    names = set(trees)
    graph = {}
    for module, tree in trees.items():
        edges = set()
        for node in ast.walk(tree):
            edges |= _imported(node, names)
        edges.discard(module)
        graph[module] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (its nodes in order), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_inplace_imports_are_acyclic():
    graph = import_graph()
    assert graph[PACKAGE] == {"memplan.inplace.explain"}
    assert "memplan.inplace.engine" in graph["memplan.inplace.bufferize"]
    assert find_cycle(graph) is None


def test_no_memplan_import_inside_functions():
    for module, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        names = (
                            [a.name for a in inner.names]
                            if isinstance(inner, ast.Import)
                            else [inner.module]
                        )
                        assert not any(
                            n and n.startswith("memplan") for n in names
                        ), f"{module}.{node.name} imports {names} inside the function"
