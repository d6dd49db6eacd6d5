"""memplan: memory planning for upstream MLIR.

In-place analysis, buffer lifetimes and reuse, and external transient storage,
as passes that run inside upstream MLIR pass pipelines from Python.

Importing memplan registers its passes in MLIR's pass registry from their
declarations (:mod:`memplan.passes.declarations`) and imports nothing else:
the API below and the subpackages load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# The bindings' native library, which memplan._core links against (and their
# dialect registry); not ``mlir.ir``, whose Python layer imports numpy.
import mlir._mlir_libs  # noqa: E402,F401

from memplan import passes as _passes  # noqa: E402

# Importing memplan registers its passes in MLIR's pass registry:
# PassManager.parse("builtin.module(memplan-...)") then finds them.
_passes.registered_passes()

#: The public API, by the module that defines it (imported on first use).
_API = {
    "PipelineError": "memplan.passes.pipeline",
    "run_pipeline": "memplan.passes.pipeline",
    "ForeignModuleError": "memplan.ir.foreign",
    "import_module": "memplan.ir.foreign",
}
_SUBPACKAGES = frozenset(
    {
        "cli",
        "deallocation",
        "debug",
        "inplace",
        "ir",
        "lifetimes",
        "liveness",
        "numerics",
        "passes",
        "peak",
        "reuse",
        "transients",
    }
)

__all__ = ["ForeignModuleError", "PipelineError", "import_module", "run_pipeline", "__version__"]


def __getattr__(name: str) -> Any:
    if name in _API:
        value = getattr(importlib.import_module(_API[name]), name)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"memplan.{name}")
    raise AttributeError(f"module 'memplan' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API) | _SUBPACKAGES)
