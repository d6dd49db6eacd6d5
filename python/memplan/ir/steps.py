"""Edits as data: a program of steps (``memplan._core.EditStep``, written
once in include/memplan/Reuse/EditSteps.def) that one C++ call creates
in order. The pool rewrite (:mod:`memplan.reuse.rewrite`) states each pool's
``index`` arithmetic this way, transient emplacement
(:mod:`memplan.transients.emplace`) the whole rewrite of a module. A step is
named by its position; graph op and value ids name the IR, so no op handle
is held across the edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from memplan import _core
from memplan.ir.graph import Graph

_S = _core.EditStep


@dataclass(frozen=True)
class Step:
    """A value the edit computes at run time: the position of its step."""

    index: int


Offset = Union[int, Step]
"""A byte count known to the planner (int) or computed at run time."""


class Program:
    """An edit's steps in creation order: constants once each per insertion
    point, graph values by id."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, int, int, int]] = []
        #: The operands of the clone steps.
        self.clone_operands: list[int] = []
        self._constants: dict[int, Step] = {}
        self._values: dict[int, Step] = {}

    def _add(self, kind: _core.EditStep, a: int = 0, b: int = 0, c: int = 0) -> Step:
        self.steps.append((int(kind), a, b, c))
        return Step(len(self.steps) - 1)

    def constant(self, value: int) -> Step:
        """An ``index`` constant, made once per insertion point."""
        if value not in self._constants:
            self._constants[value] = self._add(_S.CONSTANT, value)
        return self._constants[value]

    def value(self, value: int) -> Step:
        """The graph value ``value`` (creates nothing)."""
        if value not in self._values:
            self._values[value] = self._add(_S.VALUE, value)
        return self._values[value]

    def of(self, x: Offset) -> Step:
        """``x`` as a step (a constant for a known count)."""
        return self.constant(x) if isinstance(x, int) else x

    def binary(self, kind: _core.EditStep, x: Step, y: Step) -> Step:
        """``kind`` (an ``arith`` binary op or comparison) of ``x`` and ``y``."""
        return self._add(kind, x.index, y.index)

    def select(self, condition: Step, x: Step, y: Step) -> Step:
        """``x`` where ``condition`` holds, else ``y``."""
        return self._add(_S.SELECT, condition.index, x.index, y.index)

    def pool(self, size: Offset) -> Step:
        """A byte buffer (``memref.alloc``) of ``size`` bytes: static for a
        known count, else ``memref<?xi8>``."""
        if isinstance(size, int):
            return self._add(_S.POOL, size)
        return self._add(_S.POOL, -1, size.index)

    def argument(self, func: int, index: int) -> Step:
        """Argument ``index`` of function ``func``'s entry block, one the
        edit adds included (creates nothing)."""
        return self._add(_S.ARGUMENT, func, index)

    def clone(self, op: int, operands: list[Step], num_results: int) -> list[Step]:
        """The results of a clone of graph op ``op`` reading ``operands``."""
        first = self._add(_S.CLONE, op, len(self.clone_operands))
        self.clone_operands.extend(s.index for s in operands)
        return [first] + [self._add(_S.RESULT, first.index, r) for r in range(1, num_results)]

    def dim(self, buffer: Step, index: Step) -> Step:
        """``memref.dim`` of ``buffer`` at ``index``."""
        return self._add(_S.DIM, buffer.index, index.index)

    def assert_(self, condition: Step) -> None:
        """``cf.assert`` of ``condition`` with the edit's message."""
        self._add(_S.ASSERT, condition.index)

    def view(self, buffer: Step, offset: Step, size: Step) -> Step:
        """``memref.view`` of ``size`` bytes of ``buffer`` at ``offset``."""
        return self._add(_S.VIEW, buffer.index, offset.index, size.index)

    def dealloc(self, buffer: Step) -> None:
        """``memref.dealloc`` of ``buffer``."""
        self._add(_S.DEALLOC, buffer.index)

    def _position(self, kind: _core.EditStep, op: int) -> None:
        self._add(kind, op)
        self._constants = {}

    def entry_begin(self, func: int) -> None:
        """The steps after this go at the start of ``func``'s entry block."""
        self._position(_S.ENTRY_BEGIN, func)

    def before(self, op: int) -> None:
        """The steps after this go before graph op ``op``."""
        self._position(_S.BEFORE, op)

    def after(self, op: int) -> None:
        """The steps after this go after graph op ``op``."""
        self._position(_S.AFTER, op)

    def function(self, func: int, name: int, skip: int) -> None:
        """A public ``func.func`` named by the edit's ``names[name]`` right
        after function ``func``, taking its arguments but argument ``skip``
        (-1: all) and returning ``index``; the steps after this go into its
        entry block."""
        self._position(_S.FUNCTION, func)
        self.steps[-1] = (int(_S.FUNCTION), func, name, skip)

    def new_argument(self, index: int) -> Step:
        """Argument ``index`` of the function :meth:`function` made last
        (creates nothing)."""
        return self._add(_S.NEW_ARGUMENT, index)

    def return_(self, value: Step) -> None:
        """``func.return`` of ``value``."""
        self._add(_S.RETURN, value.index)


def cloner(graph: Graph, program: Program) -> Callable[[int, list[Step]], list[Step]]:
    """Clones graph ops as steps of ``program`` (for
    :func:`memplan.ir.slices.clone_slice`)."""
    return lambda op, operands: program.clone(op, operands, int(graph.num_results[op]))


__all__ = ["Offset", "Program", "Step", "cloner"]
