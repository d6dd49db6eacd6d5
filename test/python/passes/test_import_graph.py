"""The import graph of the memplan package has no cycle.

Every ``import`` and ``from ... import`` of python/memplan is read with
:mod:`ast`, the ones inside functions and under ``if TYPE_CHECKING:``
included (relative imports resolved), and gives an edge between modules and
between packages: ``memplan.<package>`` for the modules of a subpackage,
and each top-level module (``memplan.passes.pipeline``, ``memplan.passes``, ...)
its own node. Both graphs must be acyclic, so that the packages form layers:
the test harness (numerics, the run-time oracles) above the passes, the
passes above the IR bridge.

Importing ``memplan.a.b`` also runs the ``__init__`` of ``memplan`` and
``memplan.a``; those implicit parent imports are not edges (every module
would depend on ``memplan``). Pass bodies that the registry imports by name
when a pass first runs (``run="module:function"`` in
memplan/passes/declarations.py) are not edges either: the registry is below
the passes, as MLIR's is.

A function-local import hides an edge from whoever reads the module's
header, and is how cycles were hidden: one is allowed only for a reason
listed in :data:`LOCAL_IMPORT_REASONS`.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import textwrap
from pathlib import Path
from typing import NamedTuple, Optional

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "python" / "memplan"

#: Modules built from C++ (nanobind), not .py files of the tree.
EXTENSION_MODULES = frozenset({"memplan._core"})

#: The modules that ``import memplan`` and memplan-opt's start-up load
#: (test_registry.py checks that they are all): they import the MLIR
#: bindings' Python layer (mlir.ir imports numpy) and anything heavier where
#: it is used, so that memplan-opt starts in the bindings' own time.
START_UP_MODULES = frozenset(
    {
        "memplan",
        "memplan._core",
        "memplan.passes.capacity",
        "memplan.cli",
        "memplan.cli.opt",
        "memplan.passes.declarations",
        "memplan.passes",
        "memplan.passes.pipeline",
    }
)

#: Why a function-local import may stay local, by the check that allows it.
LOCAL_IMPORT_REASONS = {
    "optional": "an optional dependency (matplotlib: the plot extra)",
    "slow": "a slow standard module, needed on a rare path (importlib.metadata: versions)",
    "start-up": "a module memplan-opt loads at start-up defers what it does not need",
    "command": "a command-line module imports its command's machinery when that command runs",
}

#: Optional dependencies: imported where they are used, so memplan works
#: without them.
OPTIONAL_DEPENDENCIES = ("matplotlib",)

#: Standard modules that take tens of milliseconds to import (importlib.metadata
#: loads email and zipfile) and are read only to print a version.
SLOW_STANDARD_MODULES = ("importlib.metadata",)


class Import(NamedTuple):
    """One imported module, as one import statement names it."""

    module: str  # the importing module
    line: int
    target: str  # the imported module (for ``from m import name``: m.name if a module, else m)
    local: bool  # inside a function


def module_names(package: Path) -> dict[str, Path]:
    """Every module of ``package`` (a directory), by dotted name."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]
) -> list[str]:
    """The modules ``node`` imports: ``from p import name`` imports the
    module ``p.name`` if there is one, else (an attribute of) ``p``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        base = base[: len(base) + int(is_package) - node.level]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [
        f"{prefix}.{alias.name}" if _is_module(f"{prefix}.{alias.name}", known) else prefix
        for alias in node.names
    ]


@functools.lru_cache(maxsize=None)
def _is_external_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):  # a parent is not a package
        return False


def _is_module(name: str, known: set[str]) -> bool:
    """``name`` is a module: of the tree (``known``: its top package's
    modules) or, outside the tree, one that Python finds."""
    top = min(known, key=len).split(".")[0]
    if name.split(".")[0] == top:
        return name in known
    return _is_external_module(name)


def imports(package: Path) -> list[Import]:
    """Every import of every module of ``package``."""
    names = module_names(package)
    known = set(names) | EXTENSION_MODULES
    found = []
    for module, path in names.items():
        tree = ast.parse(path.read_text(), str(path))
        in_function = set()
        for func in ast.walk(tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                in_function.update(
                    id(n) for n in ast.walk(func) if isinstance(n, (ast.Import, ast.ImportFrom))
                )
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in set(_imported(module, path.name == "__init__.py", node, known)):
                    found.append(Import(module, node.lineno, target, id(node) in in_function))
    return sorted(found)


def package_of(module: str, top: str) -> str:
    """``top.<first part>`` for a module of the package ``top``."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == top else parts[0]


def graph(found: list[Import], top: str, packages: bool) -> dict[str, set[str]]:
    """The edges between the modules of ``top`` (or between its packages)."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        if imp.target.split(".")[0] != top:
            continue
        a, b = imp.module, imp.target
        if packages:
            a, b = package_of(a, top), package_of(b, top)
        if a != b:
            edges.setdefault(a, set()).add(b)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan):
    each a sorted list of nodes that all reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
        if v not in index:
            visit(v)
    return sorted(components)


def _describe(found: list[Import], component: list[str], top: str, packages: bool) -> str:
    """The nodes of a cycle and the imports of each edge between them."""
    members = set(component)
    lines = [" <-> ".join(component)]
    for imp in found:
        src = package_of(imp.module, top) if packages else imp.module
        dst = package_of(imp.target, top) if packages else imp.target
        if src != dst and src in members and dst in members:
            where = "function-local " if imp.local else ""
            lines.append(f"    {imp.module}:{imp.line}: {where}import of {imp.target}")
    return "\n".join(lines)


def local_import_reason(imp: Import) -> Optional[str]:
    """The key of :data:`LOCAL_IMPORT_REASONS` allowing the function-local
    import ``imp``, or None."""
    if imp.target.split(".")[0] in OPTIONAL_DEPENDENCIES:
        return "optional"
    if imp.target in SLOW_STANDARD_MODULES:
        return "slow"
    if imp.target in START_UP_MODULES:  # loaded anyway: deferring it only hides the edge
        return None
    if imp.module in START_UP_MODULES:
        return "start-up"
    if imp.module.startswith("memplan.cli."):
        return "command"
    return None


def _check_acyclic(package: Path, packages: bool) -> None:
    found = imports(package)
    found_cycles = cycles(graph(found, package.name, packages))
    report = "\n".join(_describe(found, c, package.name, packages) for c in found_cycles)
    assert not found_cycles, f"{len(found_cycles)} import cycle(s):\n{report}"


def test_packages_import_no_cycle():
    _check_acyclic(PACKAGE, packages=True)


def test_modules_import_no_cycle():
    _check_acyclic(PACKAGE, packages=False)


def test_function_local_imports_have_a_reason():
    # A function-local import of a memplan module that is not deferred for
    # start-up would hide an edge of the graph; stdlib and mlir imports
    # inside functions are moved to the header too.
    unexplained = [
        f"{imp.module}:{imp.line}: {imp.target}"
        for imp in imports(PACKAGE)
        if imp.local and local_import_reason(imp) is None
    ]
    assert not unexplained, "function-local imports without a reason:\n" + "\n".join(unexplained)


def test_harness_is_above_the_passes():
    # The numerics harness (and the run-time oracles in it) may import the
    # passes; nothing outside the harness and the command line imports it.
    edges = graph(imports(PACKAGE), PACKAGE.name, packages=True)
    users = sorted(a for a, bs in edges.items() if "memplan.numerics" in bs)
    assert set(users) <= {"memplan.cli"}, users


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "pkg"


def test_checker_finds_a_planted_cycle(tmp_path):
    # Two packages importing each other, one of the imports hidden in a
    # function and relative: the package graph and the module graph both
    # have the cycle, and the hidden import has no reason.
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a/__init__.py": "",
            "pkg/a/low.py": """
                from pkg.b.high import run

                def use():
                    return run()
            """,
            "pkg/b/__init__.py": "",
            "pkg/b/high.py": """
                def run():
                    from ..a import low

                    return low
            """,
        },
    )
    found = imports(package)
    assert Import("pkg.b.high", 3, "pkg.a.low", True) in found
    assert cycles(graph(found, "pkg", packages=True)) == [["pkg.a", "pkg.b"]]
    assert cycles(graph(found, "pkg", packages=False)) == [["pkg.a.low", "pkg.b.high"]]
    with pytest.raises(AssertionError, match="pkg.b.high:3: function-local import of pkg.a.low"):
        _check_acyclic(package, packages=True)
    hidden = [imp for imp in found if imp.local]
    assert [local_import_reason(imp) for imp in hidden] == [None]


def test_checker_keeps_packages_without_a_cycle_acyclic(tmp_path):
    # A chain of three packages and a module importing its own package's
    # sibling: no cycle (the implicit parent-package imports are not edges).
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import a",
            "pkg/a/__init__.py": "from .x import f",
            "pkg/a/x.py": "from pkg.b import y\nfrom . import z",
            "pkg/a/z.py": "",
            "pkg/b/__init__.py": "",
            "pkg/b/y.py": "import pkg.c.w",
            "pkg/c/__init__.py": "",
            "pkg/c/w.py": "import os",
        },
    )
    found = imports(package)
    assert cycles(graph(found, "pkg", packages=True)) == []
    assert cycles(graph(found, "pkg", packages=False)) == []
    assert graph(found, "pkg", packages=True) == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.c"},
    }
