"""``memplan-verify-deallocation`` and :func:`verify`: a checker of
deallocated memref programs (``lib/Deallocation/DeallocationVerifier.cpp``).

What it proves, per function with a body, under the function boundary ABI of
upstream's ownership-based deallocation (a callee never frees its arguments;
what a function or a call returns is a heap buffer the caller owns): every
heap allocation is freed exactly once on every path or returned; nothing
else is freed (no ``memref.alloca``, no argument, no global); no buffer is
read or written, through any view, after it is freed, returned freed, or
freed while asynchronous work that uses it may still run. Paths are
followed through ``RegionBranchOpInterface`` ops (``scf.if`` both branches,
``scf.for`` zero and many trips, ``scf.while``) and branches
(``BranchOpInterface``) to a fixpoint, with the i1 flags that decide them;
what it cannot prove is a warning (kind ``unproven``), never silence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from mlir import ir

from memplan import _core
from memplan.ir.parse import location_prefix
from memplan.passes import PassContext

#: Every kind of issue; all but ``unproven`` are violations (errors).
KINDS = (
    "double-free",
    "invalid-free",
    "leak",
    "use-after-free",
    "async-free",
    "bad-return",
    "unproven",
)


@dataclass(frozen=True)
class Violation:
    """One issue the checker found, at an op's location."""

    kind: str
    """One of :data:`KINDS`."""
    location: ir.Location
    message: str
    notes: tuple[tuple[ir.Location, str], ...] = field(default=())
    """(location, text): the allocation, the first free, the path taken."""

    @property
    def is_error(self) -> bool:
        """A violation, not a warning that something could not be proven."""
        return self.kind != "unproven"

    def __str__(self) -> str:
        severity = "error" if self.is_error else "warning"
        lines = [f"{location_prefix(self.location)}: {severity}: {self.message}"]
        lines += [f"{location_prefix(loc)}: note: {text}" for loc, text in self.notes]
        return "\n".join(lines)


def verify(module: Union[ir.Module, ir.Operation, ir.OpView]) -> list[Violation]:
    """The issues of every function in ``module`` (a module, or one function
    op): an empty list when every heap buffer is proven freed exactly once on
    every path, after its last use, and nothing else is freed. Never changes
    the IR."""
    op = module.operation if isinstance(module, (ir.Module, ir.OpView)) else module
    out = []
    for kind, loc, message, notes in _core.verify_deallocation(op._CAPIPtr):
        out.append(
            Violation(
                kind,
                ir.Location._CAPICreate(loc),
                message,
                tuple((ir.Location._CAPICreate(n), text) for n, text in notes),
            )
        )
    return out


def run(module: ir.Operation, ctx: PassContext) -> None:
    issues = verify(module)
    for issue in issues:
        if issue.is_error:
            ctx.error(issue.location, issue.message, list(issue.notes))
        else:
            ctx.warning(issue.location, issue.message, list(issue.notes))
    ctx.stat("violations", sum(i.is_error for i in issues), "Frees, leaks and uses proven wrong")
    ctx.stat("unproven", sum(not i.is_error for i in issues), "Things the checker could not prove")
    ctx.preserves_all_analyses = True


__all__ = ["KINDS", "Violation", "run", "verify"]
