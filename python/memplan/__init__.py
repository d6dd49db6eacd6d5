"""memplan: memory planning for upstream MLIR.

In-place analysis, buffer lifetimes and reuse, and external transient storage,
as passes that run inside upstream MLIR pass pipelines from Python.
"""

__version__ = "0.1.0"

from memplan.pipeline import PipelineError, run_pipeline  # noqa: E402
from memplan.ir.foreign import ForeignModuleError, import_module  # noqa: E402
from memplan import passes as _passes  # noqa: E402

# Importing memplan registers its passes in MLIR's pass registry:
# PassManager.parse("builtin.module(memplan-...)") then finds them.
_passes.registered_passes()

__all__ = ["ForeignModuleError", "PipelineError", "import_module", "run_pipeline", "__version__"]
