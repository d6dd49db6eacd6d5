"""``memplan-reuse-dying-inputs``: elementwise results written into a dying input.

``%r = linalg.generic ins(%a, %b) outs(%empty)`` with all loops parallel needs a
new buffer for ``%r`` even when ``%a`` (same type, read at the same index) is
never used again. Writing ``%r`` into ``%a`` instead (``outs(%a)``) saves that
buffer: below the dataflow bound, which keeps every destination as written.
Candidates come from the interfaces (``LinalgOp``, upstream's
``linalg::isElementwise`` or the same shape with a payload whose other ops
touch no buffer by ``MemoryEffectOpInterface``, such as the ``cf.assert``
checks torch-mlir's fused payloads keep, ``BufferizableOpInterface``);
legality from the
in-place analysis: memplan's engine analyzes the rewritten module with the
rewritten operands decided after every other operand, so a rewrite stays
only where the op writes its input in place without costing any other
operand its in-place decision; one that would is dropped alone, the others
stay (a second analysis, as bufferization will run it, confirms that no
operand lost its decision). Inputs whose buffer may be a function
argument or a constant are never used (writing the caller's tensors would
change what the caller sees). C++: ``lib/Peak/ReuseDyingInputs.cpp``.
"""

from __future__ import annotations

from memplan import _core
from memplan.peak import analyzing_pass

#: The pass' body (declared in memplan.passes.declarations).
run = analyzing_pass("memplan-reuse-dying-inputs", _core.reuse_dying_inputs, changed="reused")

__all__ = ["run"]
