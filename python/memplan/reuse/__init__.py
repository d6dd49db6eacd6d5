"""Buffer reuse: rewrite eligible allocations into views of one pool per scope.

``plan_function(lifetimes, algorithm, alignment)`` lays pools out (no IR
change); ``apply_plan`` rewrites; ``check_module`` verifies a rewritten
module (no two simultaneously live views share a byte). The pass is
``memplan-buffer-reuse``; ``memplan-memory-pipeline`` runs it after upstream
bufferization and deallocation.
"""

from memplan.reuse.plan import PoolPlan, plan_function
from memplan.reuse.rewrite import apply_plan

__all__ = ["PoolPlan", "apply_plan", "plan_function"]
