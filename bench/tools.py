"""Paths of the tools the benchmarks run: the wheel's mlir-opt and this venv's memplan-opt."""

from __future__ import annotations

import importlib.util
import os
import sys


def package_tool(package: str, name: str) -> str:
    """``<site-packages>/<package>/bin/<name>``."""
    spec = importlib.util.find_spec(package)
    return os.path.join(list(spec.submodule_search_locations)[0], "bin", name)


MLIR_OPT = package_tool("mlir", "mlir-opt")
MEMPLAN_OPT = os.path.join(os.path.dirname(sys.executable), "memplan-opt")
