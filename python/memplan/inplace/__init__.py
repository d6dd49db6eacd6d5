"""memplan's in-place analysis: One-Shot-style read-after-write conflict
analysis that makes upstream's in-place decisions at near n log n cost.

    from memplan.inplace import analyze
    result = analyze(module, bufferize_function_boundaries=True)
    for copy in result.copies:            # every out-of-place tensor operand
        print(copy.explain())
    result.to_json()

The pass is ``memplan-one-shot-bufferize`` (:mod:`memplan.inplace.bufferize`).
"""

from memplan.inplace.explain import (
    AnalysisResult,
    ConflictInfo,
    InplaceAnalysisError,
    OperandDecision,
    ValueInfo,
    analyze,
)

__all__ = [
    "analyze",
    "AnalysisResult",
    "OperandDecision",
    "ConflictInfo",
    "ValueInfo",
    "InplaceAnalysisError",
]
