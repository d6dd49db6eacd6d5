"""The lit test cases of buffer reuse, as runnable (before, after) pairs."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from mlir import ir, passmanager

import memplan
import memplan.passes
from memplan.ir.parse import parse_source, split_input
from memplan.reuse.check import check_module

LIT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "lit")

#: A chunk with any of these cannot run in the ExecutionEngine.
_NOT_RUNNABLE = ('"test.', "func.func private", "memref<memref", "(Not runnable")
_FUNC = re.compile(r"^\s*func\.func\s+@(\w+)", re.M)


@dataclass
class LitCase:
    file: str
    line: int
    text: str
    functions: list[str]

    @property
    def runnable(self) -> bool:
        return not any(marker in self.text for marker in _NOT_RUNNABLE)

    def __str__(self) -> str:
        return f"{os.path.basename(self.file)}:{self.line}"


def lit_cases(*names: str) -> list[LitCase]:
    """Every ``// -----`` chunk of the named files under test/lit/."""
    cases = []
    for name in names:
        path = os.path.normpath(os.path.join(LIT_DIR, name))
        with open(path) as f:
            text = f.read()
        for chunk in split_input(text):
            funcs = _FUNC.findall(chunk.text)
            if funcs:
                cases.append(LitCase(path, chunk.first_line, chunk.text, funcs))
    return cases


def rewrite(text: str, pipeline: str, allow_unregistered: bool = True) -> str:
    """``text`` after ``pipeline``, as text."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = allow_unregistered
        module = parse_source(text, "case.mlir")
        memplan.run_pipeline(module, pipeline)
        return str(module)


def run_reuse(text: str, **options) -> tuple[str, dict[str, int], "object"]:
    """``memplan-buffer-reuse`` with ``options`` on ``text``; returns the new
    text, the statistics and the check result."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        module = parse_source(text, "case.mlir")
        p = memplan.passes.buffer_reuse(**options)
        pm = passmanager.PassManager("builtin.module")
        p.add_to(pm)
        pm.run(module)
        stats = {k: v for k, (v, _) in p.statistics.items()}
        return str(module), stats, check_module(module)


def parse_text(text: str) -> str:
    """``text`` parsed and printed (generic implicit module made explicit)."""
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        return str(parse_source(text, "case.mlir"))


def nested_module(text: str, name: str) -> str:
    """The nested ``module @name`` of ``text``, printed as a module of its own."""
    with ir.Context():
        module = ir.Module.parse(text)
        found = []

        def visit(op):
            if (
                op.name == "builtin.module"
                and "sym_name" in op.attributes
                and ir.StringAttr(op.attributes["sym_name"]).value == name
            ):
                found.append(str(op))
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        assert len(found) == 1, name
        return found[0]
