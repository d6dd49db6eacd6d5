"""memplan: memory planning for upstream MLIR.

In-place analysis, buffer lifetimes and reuse, and external transient storage,
as passes that run inside upstream MLIR pass pipelines from Python.
"""

__version__ = "0.1.0"

from memplan.pipeline import PipelineError, run_pipeline  # noqa: E402

__all__ = ["PipelineError", "run_pipeline", "__version__"]
