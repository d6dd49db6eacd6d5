"""Bufferization semantics of the ops memplan's in-place analysis models.

For every op the analysis meets, :func:`describe_op` returns an :class:`OpSem`
that answers the questions upstream asks through ``BufferizableOpInterface``:
which tensor operands bufferize to a memory read / write, which values they
alias (and how), whether results are writable, whether the op is an
allocation, and whether accesses are element-wise. The answers follow the
upstream MLIR 22 interface implementations op by op; an op whose upstream
semantics memplan does not model raises :class:`Unsupported` so the analysis
never guesses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

EQUIV = 0
UNKNOWN = 1


class Unsupported(Exception):
    """An op or pattern the analysis does not model exactly."""

    def __init__(self, op: int, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


@dataclass
class OpSem:
    """Semantics of one op. Operand keys are graph-wide operand ids."""

    bufferizable: bool = True
    read: dict = field(default_factory=dict)
    write: dict = field(default_factory=dict)
    #: operand -> list of (value, relation, definite)
    alias: dict = field(default_factory=dict)
    #: operand -> callable(state) -> list, for state-dependent aliasing (scf.for)
    dyn_alias: dict = field(default_factory=dict)
    must_inplace: set = field(default_factory=set)
    #: result value -> bool; None: upstream default rule
    result_write: dict = field(default_factory=dict)
    #: value -> bool (results or block arguments owned by this op)
    writable: dict = field(default_factory=dict)
    allocation: set = field(default_factory=set)
    #: callable(state, opnds) -> bool
    elementwise: Optional[Callable] = None
    repetitive_regions: tuple = ()
    parallel_regions: tuple = ()
    region_branch: bool = False
    subset_insert: Optional[tuple] = None  # (source operand, dest operand)
    is_cast: bool = False
    #: value -> list of (operand, relation, definite) (non-default inverse)
    value_alias_operands: dict = field(default_factory=dict)
    #: scf.for: init operand -> iter bbArg whose reads make the init read
    lazy_read: dict = field(default_factory=dict)


# Dialects whose ops upstream may bufferize: an op of these we do not model is
# an error even with allow-unknown-ops (upstream would not treat it as unknown).
BUFFERIZABLE_DIALECTS = {
    "tensor", "linalg", "scf", "bufferization", "vector", "func", "sparse_tensor",
    "shape", "ml_program", "cf", "memref", "affine", "gpu", "async",
}
ARITH_BUFFERIZABLE = {"arith.constant", "arith.select", "arith.index_cast"}
